//! The README and the docs keep their word (issue 44): every relative link in `README.md`,
//! `CONTRIBUTING.md` and `docs/*.md` reaches a file (and, into a markdown page, a heading
//! there), every `ollim-bot …` command in the README's code blocks parses with the binary's
//! own command line, and the README's routine is a file the bot loads without a note.

use std::path::{Path, PathBuf};

use clap::Parser;
use ollim_bot::cli::Cli;
use ollim_bot::scheduling::{
    cron::CronSchedule,
    files::{parse_routine, routine_notes},
};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The pages whose links are checked.
fn pages() -> Vec<PathBuf> {
    let root = Path::new(ROOT);
    let mut pages = vec![root.join("README.md"), root.join("CONTRIBUTING.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .expect("docs/")
        .filter_map(|entry| Some(entry.ok()?.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "md"))
        .collect();
    docs.sort();
    pages.extend(docs);
    pages
}

/// A page's fenced code blocks, `(language, body)`.
fn code_blocks(text: &str) -> Vec<(String, String)> {
    let mut blocks = Vec::new();
    let mut open: Option<(String, String)> = None;
    for line in text.lines() {
        let fence = line.trim_start().strip_prefix("```");
        match (fence, open.take()) {
            (Some(_), Some(block)) => blocks.push(block),
            (Some(language), None) => open = Some((language.trim().to_owned(), String::new())),
            (None, Some((language, mut body))) => {
                body.push_str(line);
                body.push('\n');
                open = Some((language, body));
            }
            (None, None) => {}
        }
    }
    blocks
}

/// A page's lines outside code blocks.
fn outside_fences(text: &str) -> Vec<&str> {
    let mut fenced = false;
    let mut lines = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced {
            lines.push(line);
        }
    }
    lines
}

/// A page's lines outside code blocks, with inline code spans taken out.
fn prose(text: &str) -> Vec<String> {
    outside_fences(text)
        .into_iter()
        .map(|line| {
            let spans: Vec<&str> = line.split('`').collect();
            let outside: Vec<&str> = spans.iter().step_by(2).copied().collect();
            outside.join(" ")
        })
        .collect()
}

/// The targets of a page's markdown links (`[text](target)`), web addresses left out.
fn relative_links(text: &str) -> Vec<String> {
    let mut links = Vec::new();
    for line in prose(text) {
        let mut rest = line.as_str();
        while let Some(at) = rest.find("](") {
            rest = &rest[at + 2..];
            let Some(end) = rest.find(')') else { break };
            let target = rest[..end].trim();
            let web = ["http://", "https://", "mailto:"];
            if !web.iter().any(|scheme| target.starts_with(scheme)) {
                links.push(target.to_owned());
            }
            rest = &rest[end..];
        }
    }
    links
}

/// The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to hyphens.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | ' '))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of a markdown page's headings (a repeated one gets `-1`, `-2`, … as on GitHub).
fn anchors(text: &str) -> Vec<String> {
    let mut anchors: Vec<String> = Vec::new();
    for line in outside_fences(text) {
        let Some(heading) = line.strip_prefix('#') else {
            continue;
        };
        let heading = heading.trim_start_matches('#');
        if !heading.starts_with(' ') {
            continue;
        }
        let base = slug(heading);
        let seen = anchors
            .iter()
            .filter(|a| {
                **a == base
                    || a.strip_prefix(&format!("{base}-"))
                        .is_some_and(|n| n.parse::<u32>().is_ok())
            })
            .count();
        anchors.push(if seen == 0 {
            base
        } else {
            format!("{base}-{seen}")
        });
    }
    anchors
}

/// Why `link` on `page` leads nowhere, if it does.
fn broken(page: &Path, link: &str) -> Option<String> {
    let (path, anchor) = link.split_once('#').unwrap_or((link, ""));
    let target = if path.is_empty() {
        page.to_path_buf()
    } else {
        page.parent()?.join(path)
    };
    if !target.exists() {
        return Some(format!("{link}: no {}", target.display()));
    }
    let markdown = target.extension().is_some_and(|ext| ext == "md");
    if anchor.is_empty() || !markdown {
        return None;
    }
    let found = anchors(&read(&target));
    (!found.iter().any(|a| a == anchor))
        .then(|| format!("{link}: no heading #{anchor} (there: {found:?})"))
}

#[test]
fn every_relative_link_reaches_its_file_and_heading() {
    let mut broken_links = Vec::new();
    for page in pages() {
        for link in relative_links(&read(&page)) {
            if let Some(why) = broken(&page, &link) {
                broken_links.push(format!("{}: {why}", page.display()));
            }
        }
    }
    assert!(broken_links.is_empty(), "{broken_links:#?}");
}

/// `line` as shell words, up to a redirection, pipe or `&&`, without its comment.
fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quote: Option<char> = None;
    let mut in_word = false;
    for c in line.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.push(c),
            (None, '"' | '\'') => {
                quote = Some(c);
                in_word = true;
            }
            (None, c) if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            (None, c) => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(word);
    }
    let stops = ["#", ">", "|", "&&", ";", "2>"];
    let end = words
        .iter()
        .position(|w| stops.iter().any(|s| w.starts_with(s)))
        .unwrap_or(words.len());
    words.truncate(end);
    words
}

#[test]
fn the_readme_commands_parse_with_the_binarys_command_line() {
    let readme = read(&Path::new(ROOT).join("README.md"));
    let mut commands = Vec::new();
    for (language, body) in code_blocks(&readme) {
        if !matches!(language.as_str(), "sh" | "bash" | "") {
            continue;
        }
        for line in body.lines() {
            let words = shell_words(line);
            if words.first().is_some_and(|w| w == "ollim-bot") {
                commands.push(words);
            }
        }
    }
    let shown: Vec<String> = commands.iter().map(|c| c.join(" ")).collect();
    for needed in ["ollim-bot setup", "ollim-bot doctor", "ollim-bot"] {
        assert!(shown.iter().any(|c| c == needed), "README shows {shown:?}");
    }
    for command in &commands {
        if let Err(error) = Cli::try_parse_from(command) {
            panic!("README's `{}` doesn't parse: {error}", command.join(" "));
        }
    }
    assert!(
        readme.contains(".ci/test.sh"),
        "README names the command that runs the tests"
    );
}

#[test]
fn the_readme_routine_is_one_the_bot_loads() {
    let readme = read(&Path::new(ROOT).join("README.md"));
    let section = readme
        .split("\n## A routine")
        .nth(1)
        .expect("README has a section \"A routine\"");
    let (_, file) = code_blocks(section)
        .into_iter()
        .find(|(language, _)| language == "markdown")
        .expect("a markdown block in README's \"A routine\"");
    let routine = parse_routine(&file).unwrap_or_else(|e| panic!("{e}\n{file}"));
    assert!(
        routine_notes(&file).is_empty(),
        "{:?}",
        routine_notes(&file)
    );
    CronSchedule::parse(&routine.cron).expect("its cron");
    assert!(routine.until_done.is_some(), "the example shows until-done");
}

#[test]
fn headings_become_githubs_anchors() {
    assert_eq!(slug("Issue 16 — Hard to break"), "issue-16--hard-to-break");
    assert_eq!(
        slug("At rest (issue 29): `cargo bench --bench rest`"),
        "at-rest-issue-29-cargo-bench---bench-rest"
    );
    assert_eq!(
        anchors("# A\n## A\n```\n# not a heading\n```\n## B"),
        ["a", "a-1", "b"]
    );
    assert_eq!(
        shell_words("ollim-bot recall \"the flat\" > out # c"),
        ["ollim-bot", "recall", "the flat"]
    );
}
