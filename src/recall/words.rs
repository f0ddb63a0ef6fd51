//! Words as recall compares them: lower-cased, split at anything that isn't a letter or a
//! digit, and stemmed in the owner's language (Snowball, through `rust-stemmers`), so "renew",
//! "renewed" and "renewal" meet. The index stores each passage's stems; a query is stemmed the
//! same way, its filler words dropped. Pure.

use std::collections::HashMap;

use rust_stemmers::{Algorithm, Stemmer};

use super::synonyms;
use crate::config::runtime::RECALL_LANGUAGES;

/// The Snowball stemmer of a language the `recall_language` setting names
/// ([`RECALL_LANGUAGES`]).
fn algorithm(language: &str) -> Option<Algorithm> {
    Some(match language {
        "english" => Algorithm::English,
        "german" => Algorithm::German,
        "french" => Algorithm::French,
        "spanish" => Algorithm::Spanish,
        "italian" => Algorithm::Italian,
        "portuguese" => Algorithm::Portuguese,
        "dutch" => Algorithm::Dutch,
        "danish" => Algorithm::Danish,
        "swedish" => Algorithm::Swedish,
        "norwegian" => Algorithm::Norwegian,
        "finnish" => Algorithm::Finnish,
        "hungarian" => Algorithm::Hungarian,
        "romanian" => Algorithm::Romanian,
        "russian" => Algorithm::Russian,
        "greek" => Algorithm::Greek,
        "turkish" => Algorithm::Turkish,
        "arabic" => Algorithm::Arabic,
        _ => return None,
    })
}

/// English words that say nothing about what is looked for: the common function words
/// (pronouns, auxiliaries, articles, prepositions, conjunctions and their contractions) and the
/// words a question to a memory is full of ("remember", "told", "now"). Left out of a
/// question, never out of the index.
const ENGLISH_FILLER: &str = "\
    i me my myself we our ours ourselves you your yours yourself he him his himself she her \
    hers herself it its itself they them their theirs what which who whom whose this that \
    these those am is are was were be been being have has had having do does did doing \
    would should could will shall can may might must i'm you're he's she's it's we're \
    they're i've you've we've they've i'd you'd he'd she'd we'd they'd i'll you'll he'll \
    she'll we'll they'll isn't aren't wasn't weren't hasn't haven't hadn't doesn't don't \
    didn't won't wouldn't shouldn't can't cannot couldn't let's that's who's what's here's \
    there's when's where's why's how's a an the and but if or because as until while of at \
    by for with about against between into through during to from up down in out on off \
    over under again further then once here there when where why how all any both each few \
    more most other some such nor only own same so than too very just also us now ever \
    still already yet last told tell said say says mention mentioned remember recall know \
    think thing things something anything someone anyone please end going get got";

/// One word of a question: its stem and the stems that may stand for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Asked {
    /// The word's stem.
    pub stem: String,
    /// The stems of the words that stand for it in the language's groups (not the stem).
    pub alternatives: Vec<String>,
}

/// The owner's language, for stemming.
pub struct Words {
    name: &'static str,
    stemmer: Stemmer,
    /// Stem → the stems that stand for it ([`synonyms`]).
    alternatives: HashMap<String, Vec<String>>,
}

impl Words {
    /// Stemming in `language` (a name from [`RECALL_LANGUAGES`]); `None` for an unknown one.
    pub fn new(language: &str) -> Option<Self> {
        let language = language.trim().to_lowercase();
        let name = RECALL_LANGUAGES
            .into_iter()
            .find(|name| *name == language)?;
        algorithm(name).map(|algorithm| {
            let stemmer = Stemmer::create(algorithm);
            let groups: &[&str] = if name == "english" {
                synonyms::ENGLISH
            } else {
                &[]
            };
            let mut alternatives: HashMap<String, Vec<String>> = HashMap::new();
            for group in groups {
                let stems: Vec<String> = group
                    .split_whitespace()
                    .map(|word| stemmer.stem(word).into_owned())
                    .collect();
                for stem in &stems {
                    let others = alternatives.entry(stem.clone()).or_default();
                    for other in &stems {
                        if other != stem && !others.contains(other) {
                            others.push(other.clone());
                        }
                    }
                }
            }
            Self {
                name,
                stemmer,
                alternatives,
            }
        })
    }

    /// The language's name.
    pub fn language(&self) -> &'static str {
        self.name
    }

    /// The stems of `text`, space-separated, in order.
    pub fn stems(&self, text: &str) -> String {
        tokens(text)
            .map(|token| self.stemmer.stem(&token).into_owned())
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The stems a question looks for: its words stemmed, filler words (in English) and
    /// repeats dropped; every word when all of them are filler.
    pub fn query_stems(&self, question: &str) -> Vec<String> {
        let all: Vec<String> = tokens(question).collect();
        let filler = |token: &String| {
            self.name == "english"
                && ENGLISH_FILLER
                    .split_whitespace()
                    .any(|word| word == token.as_str())
        };
        let kept: Vec<&String> = if all.iter().all(filler) {
            all.iter().collect()
        } else {
            all.iter().filter(|token| !filler(token)).collect()
        };
        let mut stems: Vec<String> = Vec::new();
        for token in kept {
            let stem = self.stemmer.stem(token).into_owned();
            if !stems.contains(&stem) {
                stems.push(stem);
            }
        }
        stems
    }
}

impl Asked {
    /// Every stem `asked` looks for, its words' and their alternatives', each once.
    pub fn every_stem(asked: &[Asked]) -> Vec<String> {
        let mut stems: Vec<String> = Vec::new();
        for word in asked {
            for stem in std::iter::once(&word.stem).chain(&word.alternatives) {
                if !stems.contains(stem) {
                    stems.push(stem.clone());
                }
            }
        }
        stems
    }
}

impl Words {
    /// The words a question looks for (as [`Words::query_stems`]), each with the stems that
    /// may stand for it.
    pub fn asked(&self, question: &str) -> Vec<Asked> {
        self.query_stems(question)
            .into_iter()
            .map(|stem| Asked {
                alternatives: self.alternatives.get(&stem).cloned().unwrap_or_default(),
                stem,
            })
            .collect()
    }
}

/// `text` lower-cased and split at anything that isn't a letter, a digit or an apostrophe
/// inside a word.
fn tokens(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .map(|token| token.trim_matches('\'').to_lowercase())
        .filter(|token| !token.is_empty())
}
