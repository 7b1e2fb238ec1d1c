//! A `config.changelog` entry in words: the chunk's bounds as the server prints them and the
//! shards it went between, not the raw `details` document; the namespace once.
//!
//! The `details` shapes are the server's (`src/mongo/db/s/migration_source_manager.cpp` for
//! `moveChunk.*`, `split_chunk.cpp` for `split`/`multi-split`, `merge_chunks_command.cpp` for
//! `merge`); others are written as `key value` pairs.

use bson::{Bson, Document};

use crate::model::shell_text;

/// `[{ a: 1 }, { a: 5 })`, or `None` without both bounds.
fn range(d: &Document) -> Option<String> {
    let min = d.get_document("min").ok()?;
    let max = d.get_document("max").ok()?;
    Some(format!(
        "[{}, {})",
        shell_text::document(min),
        shell_text::document(max)
    ))
}

fn text(d: &Document, key: &str) -> Option<String> {
    d.get(key).map(|v| match v {
        Bson::String(s) => s.clone(),
        other => shell_text::value(other),
    })
}

fn number(d: &Document, key: &str) -> Option<i64> {
    match d.get(key)? {
        Bson::Int32(n) => Some(i64::from(*n)),
        Bson::Int64(n) => Some(*n),
        Bson::Double(x) => Some(*x as i64),
        _ => None,
    }
}

fn migration(what: &str, d: &Document) -> String {
    let mut parts = Vec::new();
    parts.extend(range(d));
    if let (Some(from), Some(to)) = (text(d, "from"), text(d, "to")) {
        parts.push(format!("{from} → {to}"));
    }
    if let Ok(counts) = d.get_document("counts")
        && let Some(docs) = number(counts, "cloned")
    {
        let bytes = number(counts, "clonedBytes").unwrap_or(0).max(0) as u64;
        parts.push(format!(
            "{docs} docs, {} cloned",
            crate::units::human_bytes(bytes)
        ));
    }
    for key in ["errmsg", "note"] {
        if let Some(t) = text(d, key)
            && !(what == "moveChunk.from" && t == "success" && key == "note")
        {
            parts.push(t);
        }
    }
    parts.join(" ")
}

fn split(d: &Document) -> String {
    let before = d.get_document("before").ok().and_then(range);
    let at = d
        .get_document("left")
        .ok()
        .and_then(|l| l.get_document("max").ok())
        .map(shell_text::document);
    match (before, at) {
        (Some(r), Some(at)) => format!("{r} at {at}"),
        (Some(r), None) => r,
        _ => pairs(d),
    }
}

fn multi_split(d: &Document) -> String {
    let chunk = d.get_document("chunk").ok().and_then(range);
    match (number(d, "number"), number(d, "of"), chunk) {
        (Some(n), Some(of), Some(r)) => format!("piece {n} of {of}: {r}"),
        _ => pairs(d),
    }
}

/// Other details as `key value` pairs, values as the server prints them.
fn pairs(d: &Document) -> String {
    d.iter()
        .map(|(k, v)| {
            let v = match v {
                Bson::String(s) => s.clone(),
                other => shell_text::value(other),
            };
            format!("{k} {v}")
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The details in words; the namespace is not repeated (the caller prints it once).
pub fn details(what: &str, ns: &str, d: &Document) -> String {
    if let Ok(text) = d.get_str("shardtop") {
        // serve's own words (the simulator's event text), which name the namespace first.
        return text
            .strip_prefix(ns)
            .map_or(text, str::trim_start)
            .to_string();
    }
    match what {
        w if w.starts_with("moveChunk") || w.starts_with("moveRange") => migration(w, d),
        "split" => split(d),
        "multi-split" => multi_split(d),
        _ => pairs(d),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::doc;

    #[test]
    fn changelog_details_read_as_words() {
        let commit = doc! {
            "min": {"customerId": Bson::MinKey}, "max": {"customerId": 3784},
            "from": "sh1", "to": "sh2",
            "counts": {"cloned": 3784_i64, "clonedBytes": 1_050_063_i64, "catchup": 0_i64},
        };
        assert_eq!(
            details("moveChunk.commit", "shop.orders", &commit),
            "[{ customerId: MinKey }, { customerId: 3784 }) sh1 → sh2 3784 docs, 1.0 MiB cloned"
        );
        let split = doc! {
            "before": {"min": {"a": 1}, "max": {"a": 9}},
            "left": {"min": {"a": 1}, "max": {"a": 5}},
            "right": {"min": {"a": 5}, "max": {"a": 9}},
        };
        assert_eq!(
            details("split", "d.c", &split),
            "[{ a: 1 }, { a: 9 }) at { a: 5 }"
        );
        let ours = doc! {"shardtop": "d.c [{ a: 1 }, { a: 9 }) on s0 at { a: 5 }"};
        assert_eq!(
            details("split", "d.c", &ours),
            "[{ a: 1 }, { a: 9 }) on s0 at { a: 5 }"
        );
        assert_eq!(details("addShard", "", &doc! {"host": "h:1"}), "host h:1");
    }
}
