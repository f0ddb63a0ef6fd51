//! The planted facts and the questions asked about them. Each fact is said in exactly one
//! passage of the year; its `answer` is a short string that occurs in that passage and
//! nowhere else (the generator checks), so a hit is judged by it. Around each fact, passages
//! sharing its words (other dentists, other keys, other flights), some later in the year than
//! the fact, where recall's lift for recency favours them.
//!
//! The facts are written as a small table (`facts_said.rs`: the conversation, `facts_noted.rs`:
//! the notes), one line each:
//!
//! ```text
//! fact <day> <place> | <answer> | <text>      the fact; day 0 is 2026-01-01
//! ask <two|one|none> | <question>            asked weeks later, in other words
//! agent | <query>                            the query the agent sends for that question
//! near <day> <place> | <text>                a passage sharing the fact's words
//! ```
//!
//! A place is `main said|answer` (the main conversation, the owner or the assistant),
//! `fork said|answer`, `bg said` (a background run's prompt), `bg answer`, `bg tool <name>` (a
//! tool's result in a background run) or `note <path>` (a markdown file under the data dir,
//! `\n` for a line break). `two|one|none`: how many content words the question shares with
//! the fact's passage (other forms of a word count, renew/renewal).
//!
//! The agent's queries were written blind (stop 53) by a helper standing in for the agent: it
//! was given only the `recall` tool's description as the agent sees it and the questions, never
//! the year, the facts or the index, and asked for the query it would send. Three more blind
//! runs (two with a longer description) gave the same top-5 figure, 39 of 43.

/// Who says it in a conversation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Side {
    Said,
    Answer,
}

/// Where a planted passage goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Place {
    Main(Side),
    Fork(Side),
    /// A background run: its prompt, its reply, or a tool's result (the tool's name).
    BgPrompt,
    BgAnswer,
    BgTool(String),
    Note(String),
}

/// One planted passage.
#[derive(Debug, Clone)]
pub(crate) struct Planted {
    pub(crate) day: usize,
    pub(crate) place: Place,
    pub(crate) text: String,
}

/// How many content words a question shares with its fact.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shares {
    Two,
    One,
    None,
}

impl Shares {
    pub(crate) const ALL: [Shares; 3] = [Shares::Two, Shares::One, Shares::None];

    pub(crate) fn name(self) -> &'static str {
        match self {
            Shares::Two => "two+",
            Shares::One => "one",
            Shares::None => "none",
        }
    }
}

/// A fact, its question and the passages around it.
#[derive(Debug, Clone)]
pub(crate) struct Fact {
    pub(crate) passage: Planted,
    pub(crate) answer: String,
    pub(crate) question: String,
    pub(crate) shares: Shares,
    /// The query the agent sends for the question (its words and the other words the answer
    /// may use, as the tool's description asks).
    pub(crate) agent: String,
    pub(crate) near: Vec<Planted>,
}

/// Every planted fact.
pub(crate) fn all() -> Vec<Fact> {
    let mut facts = parse(crate::facts_said::SAID);
    facts.extend(parse(crate::facts_noted::NOTED));
    for fact in &facts {
        assert!(
            !fact.agent.is_empty(),
            "no agent query for {:?}",
            fact.question
        );
    }
    facts
}

fn parse(table: &str) -> Vec<Fact> {
    let mut facts: Vec<Fact> = Vec::new();
    for line in table.lines().map(str::trim) {
        if line.is_empty() || line.starts_with("//") {
            continue;
        }
        let mut fields = line.split(" | ");
        let head = fields.next().expect("a head");
        let rest: Vec<&str> = fields.collect();
        let (keyword, after) = head.split_once(' ').unwrap_or((head, ""));
        match keyword {
            "fact" => {
                let [answer, text] = rest[..] else {
                    panic!("fact needs | answer | text: {line}")
                };
                facts.push(Fact {
                    passage: planted(after, text),
                    answer: answer.to_owned(),
                    question: String::new(),
                    shares: Shares::None,
                    agent: String::new(),
                    near: Vec::new(),
                });
            }
            "ask" => {
                let fact = facts.last_mut().expect("ask after a fact");
                fact.shares = match after {
                    "two" => Shares::Two,
                    "one" => Shares::One,
                    "none" => Shares::None,
                    other => panic!("unknown share {other}"),
                };
                fact.question = rest.first().expect("a question").to_string();
            }
            "agent" => {
                let fact = facts.last_mut().expect("agent after an ask");
                fact.agent = rest.first().expect("a query").to_string();
            }
            "near" => {
                let fact = facts.last_mut().expect("near after a fact");
                fact.near
                    .push(planted(after, rest.first().expect("a text")));
            }
            other => panic!("unknown line {other}: {line}"),
        }
    }
    facts
}

/// `<day> <place>` and the text.
fn planted(head: &str, text: &str) -> Planted {
    let mut words = head.split_whitespace();
    let day = words
        .next()
        .and_then(|day| day.parse().ok())
        .expect("a day");
    let words: Vec<&str> = words.collect();
    let side = |word: &str| match word {
        "said" => Side::Said,
        "answer" => Side::Answer,
        other => panic!("unknown side {other}"),
    };
    let place = match words[..] {
        ["main", who] => Place::Main(side(who)),
        ["fork", who] => Place::Fork(side(who)),
        ["bg", "said"] => Place::BgPrompt,
        ["bg", "answer"] => Place::BgAnswer,
        ["bg", "tool", name] => Place::BgTool(name.to_owned()),
        ["note", path] => Place::Note(path.to_owned()),
        _ => panic!("unknown place {head}"),
    };
    Planted {
        day,
        place,
        text: text.replace("\\n", "\n"),
    }
}
