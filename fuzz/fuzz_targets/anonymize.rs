//! Bytes as a capture file, anonymized (`capture --anonymize`): nothing may panic, the result is
//! written and reads back unchanged, anonymizing is deterministic, and every word left in it
//! (field names, values, the header's target, errors) is one of MongoDB's, a number, a pseudonym
//! (`db_1`, `x_3`, `host-2.invalid`) or a key value's stand-in (`k000123`).
#![no_main]

use bson::Bson;
use libfuzzer_sys::fuzz_target;
use shardtop::capture::anonymize::{REMOVED, anonymize, vocabulary::is_safe};
use shardtop::capture::{Outcome, file};

fn allowed(word: &str) -> bool {
    let numbered = |p: &str| {
        word.strip_prefix(p)
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    };
    is_safe(word)
        || ["db_", "coll_", "shard_", "rs_", "zone_", "user_", "x_", "k"]
            .iter()
            .any(|p| numbered(p))
        || ["host", "invalid", "entry", "chunk", "mongodb", "srv"].contains(&word)
        || REMOVED.contains(word)
}

fn check(s: &str) {
    for w in s.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$')) {
        assert!(allowed(w), "{w:?} survives anonymizing");
    }
}

fn walk(v: &Bson) {
    match v {
        Bson::String(s) | Bson::Symbol(s) | Bson::JavaScriptCode(s) => check(s),
        Bson::Document(d) => d.iter().for_each(|(k, v)| {
            check(k);
            walk(v);
        }),
        Bson::Array(a) => a.iter().for_each(walk),
        _ => {}
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(capture) = file::from_bytes("input", data) else {
        return;
    };
    let a = anonymize(&capture);
    assert_eq!(a, anonymize(&capture), "anonymizing is deterministic");
    let mut written = Vec::new();
    file::to_writer(&a, &mut written).expect("an anonymized capture is written");
    let back = file::from_bytes("again", &written).expect("and reads back");
    assert_eq!(back, a);
    check(&back.target);
    for r in &back.reads {
        check(&r.db);
        walk(&Bson::Document(r.command.clone()));
        match &r.outcome {
            Outcome::Documents(d) => d.iter().for_each(|d| walk(&Bson::Document(d.clone()))),
            Outcome::Reply(d) => walk(&Bson::Document(d.clone())),
            Outcome::Error {
                code_name, message, ..
            } => {
                check(code_name.as_deref().unwrap_or(""));
                check(message);
            }
        }
    }
});
