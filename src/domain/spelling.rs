//! "Did you mean": the nearest of a few known words to a typo (issue 24 §3, §4).

/// The candidate closest to `word`, when it is close enough to be a typo of it: at most two
/// edits (a swap counts as one), and fewer edits than the candidate has letters.
pub fn nearest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let word = word.to_ascii_lowercase();
    candidates
        .into_iter()
        .map(|candidate| (strsim::damerau_levenshtein(&word, candidate), candidate))
        .filter(|(distance, candidate)| *distance <= 2 && *distance < candidate.len())
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, candidate)| candidate)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typos_find_their_word_and_strangers_nothing() {
        let words = ["background", "description", "model"];
        assert_eq!(nearest("backgroud", words), Some("background"));
        assert_eq!(nearest("Descripton", words), Some("description"));
        assert_eq!(nearest("colour", words), None);
        assert_eq!(nearest("mo", ["model", "m"]), None);
    }
}
