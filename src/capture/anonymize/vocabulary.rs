//! The words `capture --anonymize` keeps: MongoDB's field names, command names, stages, states,
//! error code names and the words of its messages, as shardtop reads or answers with them
//! (`vocabulary.txt`, generated from the string literals of `live`, `serve`, `cluster`, `wire` and
//! [`super::fields`]
//! by `scripts/anonymize_vocabulary.py`), and numbers and single characters. Anything else in a
//! capture is a name or a user's word and is replaced.
//!
//! Owns: the list and the test of one word. May not touch: where words are in a capture.

use std::collections::HashSet;
use std::sync::OnceLock;

const WORDS: &str = include_str!("vocabulary.txt");

fn words() -> &'static HashSet<&'static str> {
    static SET: OnceLock<HashSet<&'static str>> = OnceLock::new();
    SET.get_or_init(|| {
        WORDS
            .lines()
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .collect()
    })
}

/// Whether `word` is kept as it is: one of MongoDB's words, a number (ASCII digits) or a single
/// character (the empty word too: nothing to hide).
pub fn is_safe(word: &str) -> bool {
    word.chars().nth(1).is_none()
        || word.bytes().all(|b| b.is_ascii_digit())
        || words().contains(word)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mongodb_words_and_numbers_are_kept_names_are_not() {
        for w in [
            "moveChunk",
            "_id",
            "errmsg",
            "NamespaceNotFound",
            "27018",
            "a",
            "",
        ] {
            assert!(is_safe(w), "{w}");
        }
        for w in ["payroll", "zqsecret", "10x", "shop", "orders"] {
            assert!(!is_safe(w), "{w}");
        }
    }
}
