//! Free text in a capture (`capture --anonymize`): a server's message, a log entry's words, any
//! string that is not a name in a name's field. Every name seen is replaced where it stands whole
//! (spaces, colons, dots and any Unicode in it included), longest first; then every word left
//! that is not MongoDB's ([`super::vocabulary`]) nor a pseudonym becomes a stand-in (`x_1`), a
//! run of four or more numbers joined by `.` or `:` (an address) too, and every character that is
//! neither a word's, ASCII punctuation nor a space becomes `?`. What is left is MongoDB's words,
//! numbers, pseudonyms and punctuation.
//!
//! Owns: finding names and words in one string. May not touch: which fields hold free text.

use std::collections::HashMap;

use super::names::Names;
use super::vocabulary::is_safe;

/// The names to find in text, by their first character, longest first; rebuilt when more names
/// are known.
#[derive(Debug, Default)]
pub struct Matcher {
    count: Option<usize>,
    by_first: HashMap<char, Vec<(String, String)>>,
}

impl Matcher {
    fn refresh(&mut self, names: &Names) {
        if self.count == Some(names.count()) {
            return;
        }
        self.count = Some(names.count());
        self.by_first.clear();
        for (name, pseudonym) in names.all() {
            // A name made only of MongoDB's words reads the same replaced or not (a namespace
            // is found whole: its database is a name).
            if all_safe(name) && !name.contains('.') {
                continue;
            }
            if let Some(c) = name.chars().next() {
                let entry = self.by_first.entry(c).or_default();
                entry.push((name.to_string(), pseudonym.to_string()));
            }
        }
        for list in self.by_first.values_mut() {
            list.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then_with(|| a.0.cmp(&b.0)));
        }
    }

    /// The name seen that begins `rest` and ends at a word's end, longest first.
    fn find(&self, rest: &str) -> Option<(usize, &str)> {
        let c = rest.chars().next()?;
        self.by_first.get(&c)?.iter().find_map(|(name, p)| {
            let after = rest.strip_prefix(name.as_str())?;
            let ends = after.chars().next().is_none_or(|n| !word_char(n));
            ends.then_some((name.len(), p.as_str()))
        })
    }
}

/// A character of a word.
fn word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$'
}

/// A character that joins words into one run (`db.coll`, `host:port`, `a-b`, `rs/host`).
fn joiner(c: char) -> bool {
    matches!(c, '.' | ':' | '-' | '/' | '@')
}

/// Whether every word of `s` is kept as it is.
fn all_safe(s: &str) -> bool {
    s.split(|c: char| !word_char(c)).all(is_safe)
}

/// One part of a text: a pseudonym put in, or text still to look at.
enum Piece {
    Done(String),
    Raw(String),
}

/// `text` with every name seen and every word that is not MongoDB's replaced (see the module doc).
pub fn free(names: &mut Names, matcher: &mut Matcher, text: &str) -> String {
    matcher.refresh(names);
    let mut pieces = Vec::new();
    let mut raw = String::new();
    let mut at = 0;
    let mut after_word = false;
    while let Some(c) = text[at..].chars().next() {
        let found = if after_word {
            None
        } else {
            matcher.find(&text[at..])
        };
        if let Some((len, p)) = found {
            pieces.push(Piece::Raw(std::mem::take(&mut raw)));
            pieces.push(Piece::Done(p.to_string()));
            at += len;
            after_word = true;
        } else {
            raw.push(c);
            after_word = word_char(c);
            at += c.len_utf8();
        }
    }
    pieces.push(Piece::Raw(raw));
    let mut out = String::with_capacity(text.len());
    for p in pieces {
        match p {
            Piece::Done(s) => out.push_str(&s),
            Piece::Raw(s) => words(names, &s, &mut out),
        }
    }
    out
}

/// The words of `s` (no name seen in it) kept or replaced, onto `out`.
fn words(names: &mut Names, s: &str, out: &mut String) {
    let mut run = String::new();
    for c in s.chars() {
        if word_char(c) || joiner(c) {
            run.push(c);
            continue;
        }
        flush(names, &mut run, out);
        out.push(if c == ' ' || c.is_ascii_punctuation() {
            c
        } else if c.is_whitespace() {
            ' '
        } else {
            '?'
        });
    }
    flush(names, &mut run, out);
}

/// One run of words and joiners, kept or replaced, onto `out`.
fn flush(names: &mut Names, run: &mut String, out: &mut String) {
    if run.is_empty() {
        return;
    }
    let parts: Vec<&str> = run.split(joiner).collect();
    let numbers = parts
        .iter()
        .filter(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
        .count();
    if names.is_pseudonym(run) {
        out.push_str(run);
    } else if numbers >= 4
        && numbers == parts.iter().filter(|p| !p.is_empty()).count()
        && !run.contains(['-', '/', '@'])
    {
        // An IPv4 address, with or without its port (a version, `7.0.40-22`, is not one).
        out.push_str(&names.unknown(run));
    } else {
        let mut word = String::new();
        for c in run.chars() {
            if joiner(c) {
                out.push_str(&one(names, &word));
                word.clear();
                out.push(c);
            } else {
                word.push(c);
            }
        }
        out.push_str(&one(names, &word));
    }
    run.clear();
}

fn one(names: &mut Names, word: &str) -> String {
    if is_safe(word) || names.is_pseudonym(word) {
        word.to_string()
    } else {
        names.unknown(word)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_replaced_whole_and_other_words_by_stand_ins() {
        let mut n = Names::default();
        let mut m = Matcher::default();
        n.ns("zqdb.zq orders 2024");
        n.ns("zqdb.orders:zq");
        n.zone("zq west eu");
        n.connection("zqrs/zqhost.example:27018");
        let t = free(
            &mut n,
            &mut m,
            "moved zqdb.zq orders 2024-min_zqval to zq west eu from 10.1.2.3:5555 on zqhost.example:27018; orders:zq \u{1b}]52;c;zqclip\u{7} é",
        );
        assert_eq!(
            t,
            "moved db_1.coll_1-x_1 to zone_1 from x_2 on host-1.invalid:27018; coll_2 ?]52;c;x_3? é"
        );
    }

    /// The example of docs/capture.md.
    #[test]
    fn the_documented_example_holds() {
        let mut n = Names::default();
        let mut m = Matcher::default();
        n.ns("shop.orders 2024");
        n.ns("shop.orders");
        n.zone("eu-west");
        let t = free(
            &mut n,
            &mut m,
            "moved shop.orders 2024 to zone eu-west from 10.1.2.3:5555",
        );
        assert_eq!(t, "moved db_1.coll_1 to zone zone_1 from x_1");
    }
}
