//! Words as recall compares them: lower-cased, split at anything that isn't a letter or a
//! digit, and stemmed in the owner's language (Snowball, through `rust-stemmers`), so "renew",
//! "renewed" and "renewal" meet. The index stores each passage's stems; a query is stemmed the
//! same way, its filler words dropped. Pure.

use rust_stemmers::{Algorithm, Stemmer};

/// The languages recall stems, by the name the setting takes.
pub const LANGUAGES: [(&str, Algorithm); 17] = [
    ("english", Algorithm::English),
    ("german", Algorithm::German),
    ("french", Algorithm::French),
    ("spanish", Algorithm::Spanish),
    ("italian", Algorithm::Italian),
    ("portuguese", Algorithm::Portuguese),
    ("dutch", Algorithm::Dutch),
    ("danish", Algorithm::Danish),
    ("swedish", Algorithm::Swedish),
    ("norwegian", Algorithm::Norwegian),
    ("finnish", Algorithm::Finnish),
    ("hungarian", Algorithm::Hungarian),
    ("romanian", Algorithm::Romanian),
    ("russian", Algorithm::Russian),
    ("greek", Algorithm::Greek),
    ("turkish", Algorithm::Turkish),
    ("arabic", Algorithm::Arabic),
];

/// English words a question is full of that say nothing about what is looked for.
const ENGLISH_FILLER: &[&str] = &[
    "a", "about", "an", "and", "are", "as", "at", "be", "but", "by", "can", "did", "do", "does",
    "for", "from", "had", "has", "have", "how", "i", "in", "is", "it", "me", "my", "of", "on",
    "or", "so", "that", "the", "there", "this", "to", "told", "was", "we", "were", "what", "when",
    "where", "which", "who", "why", "with", "you", "your", "again", "last", "that's",
];

/// The owner's language, for stemming.
pub struct Words {
    name: &'static str,
    stemmer: Stemmer,
}

impl Words {
    /// Stemming in `language` (a name from [`LANGUAGES`]); `None` for an unknown one.
    pub fn new(language: &str) -> Option<Self> {
        let language = language.trim().to_lowercase();
        LANGUAGES
            .iter()
            .find(|(name, _)| *name == language)
            .map(|(name, algorithm)| Self {
                name,
                stemmer: Stemmer::create(*algorithm),
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
        let filler =
            |token: &String| self.name == "english" && ENGLISH_FILLER.contains(&token.as_str());
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

/// `text` lower-cased and split at anything that isn't a letter, a digit or an apostrophe
/// inside a word.
fn tokens(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .map(|token| token.trim_matches('\'').to_lowercase())
        .filter(|token| !token.is_empty())
}
