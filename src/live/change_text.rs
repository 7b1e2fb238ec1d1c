//! A `config.changelog` entry in words: the chunk's bounds as the server prints them and the
//! shards it went between, not the raw `details` document; the namespace once.
//!
//! The `details` shapes are the server's (`src/mongo/db/s/migration_source_manager.cpp` for
//! `moveChunk.*`, `split_chunk.cpp` for `split`/`multi-split`, `merge_chunks_command.cpp` for
//! `merge`); others are written as `key value` pairs.

use bson::{Bson, Document};

use crate::model::shell_text;
use crate::view::{MigrationEntry, MigrationStep};

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

/// A migration's entry (`moveChunk.start`, `.commit`, `.error`, `.from`, `.to`) with what
/// keys it to the other entries of the same migration, or `None` for another entry or one
/// without its bounds and shards. The fields are the server's: `migration_source_manager.cpp`
/// logs `min`, `max`, `from`, `to` (and `counts` in the commit); `move_timing_helper.cpp` logs
/// the same with `note` and `errmsg`. serve's entries add its own words (`shardtop`), whose
/// outcome (the start's size and reason, the commit's counts, the error) is kept.
pub fn migration_entry(what: &str, ns: &str, d: &Document) -> Option<MigrationEntry> {
    let step = match what {
        "moveChunk.start" => MigrationStep::Start,
        "moveChunk.commit" => MigrationStep::Commit,
        "moveChunk.error" => MigrationStep::Error,
        "moveChunk.from" | "moveChunk.to" => match d.get_str("note") {
            Ok("success") => MigrationStep::Succeeded,
            Ok("aborted") => MigrationStep::Aborted,
            _ => return None,
        },
        _ => return None,
    };
    let bounds = range(d)?;
    let (from, to) = (text(d, "from")?, text(d, "to")?);
    let ours = d.get_str("shardtop").ok();
    let mut range = bounds.clone();
    let outcome = match step {
        MigrationStep::Start => {
            // serve's "#1 ns from → to [min, max) (size, reason)": the last parentheses.
            if let Some((_, tail)) = ours.and_then(|t| t.rsplit_once(" (")) {
                range.push_str(&format!(" ({tail}"));
            }
            String::new()
        }
        _ if ours.is_some() => ours
            .and_then(|t| t.split_once(&format!(" → {to}: ")))
            .map(|(_, o)| o.to_string())
            .unwrap_or_default(),
        MigrationStep::Commit => d
            .get_document("counts")
            .ok()
            .and_then(|c| {
                let docs = number(c, "cloned")?;
                let bytes = number(c, "clonedBytes").unwrap_or(0).max(0) as u64;
                let docs = crate::units::count(docs.max(0) as u64, "doc");
                Some(format!(
                    "{docs}, {} cloned",
                    crate::units::human_bytes(bytes)
                ))
            })
            .unwrap_or_default(),
        _ => text(d, "errmsg").unwrap_or_default(),
    };
    Some(MigrationEntry {
        key: format!("{ns} {bounds} {from} {to}"),
        step,
        ns: ns.to_string(),
        from,
        to,
        range,
        outcome,
    })
}

/// Adds a changelog entry's migration outcome to `outcomes`: a commit, or a failure with the
/// entry's `errmsg` (a `moveChunk.error` gives none; the aborted `moveChunk.from` of the same
/// migration, when read, fills it in). `origin_ms`: the wall-clock time of the poll's clock 0.
pub fn note_outcome(
    outcomes: &mut crate::cluster::balancer::outcomes::Outcomes,
    what: &str,
    entry: &Document,
    origin_ms: u64,
) {
    use crate::cluster::balancer::outcomes::{Outcome, OutcomeError};
    let ns = entry.get_str("ns").unwrap_or_default();
    let Some(m) = (entry.get_document("details").ok()).and_then(|d| migration_entry(what, ns, d))
    else {
        return;
    };
    let error = match m.step {
        MigrationStep::Commit => None,
        MigrationStep::Error | MigrationStep::Aborted => Some(OutcomeError {
            code: None,
            code_name: None,
            message: if m.outcome.is_empty() {
                format!("{what} (the entry gives no error message)")
            } else {
                m.outcome.clone()
            },
        }),
        _ => return,
    };
    let at_ms = (entry
        .get_datetime("time")
        .map_or(0, |t| t.timestamp_millis().max(0) as u64))
    .saturating_sub(origin_ms);
    let range = m.range.split(" (").next().unwrap_or(&m.range).to_string();
    outcomes.push(
        ns,
        Outcome {
            at_ms,
            from: m.from,
            to: m.to,
            range,
            error,
        },
    );
}

/// The whole of a `config.<log>` entry for the event log's detail view: the entry as relaxed
/// Extended JSON, and its error when it reports one (`errmsg`: a migration's `moveChunk.from` /
/// `moveChunk.to` aborted, a failed balancer round; `code` and `codeName` when it has them).
pub fn detail(
    log: &str,
    d: &Document,
    errmsg: Option<String>,
) -> std::sync::Arc<crate::view::EventDetail> {
    use crate::view::{EventDetail, EventDocument, EventError};
    let json = Bson::Document(d.clone()).into_relaxed_extjson().to_string();
    let details = d.get_document("details").ok();
    let errmsg = errmsg.or_else(|| Some(details?.get_str("errmsg").ok()?.to_string()));
    let error = errmsg.map(|errmsg| EventError {
        code: details
            .and_then(|x| number(x, "code"))
            .and_then(|c| i32::try_from(c).ok()),
        code_name: details
            .and_then(|x| x.get_str("codeName").ok())
            .map(str::to_string),
        errmsg,
    });
    EventDetail::of(EventDocument::new(&format!("config.{log}"), &json), error)
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
    #![allow(clippy::unwrap_used)]
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

    /// The changelog of `tests/fixtures/clusters/8.0.32-realrock.json`: a real
    /// `moveChunk.commit` and a real `moveChunk.from` (of another range), as a mongos returns
    /// them.
    fn real_changelog() -> Vec<Document> {
        let text = include_str!("../../tests/fixtures/clusters/8.0.32-realrock.json");
        let v: serde_json::Value = serde_json::from_str(text).unwrap();
        (v["config"]["changelog"].as_array().unwrap().iter())
            .map(|d| match Bson::try_from(d.clone()).unwrap() {
                Bson::Document(d) => d,
                other => panic!("{other}"),
            })
            .collect()
    }

    /// `d` as another entry of the same migration: `what`, its details cut to the fields the
    /// server logs in it, at `time` + `dt` ms.
    fn entry_of(d: &Document, what: &str, dt: i64, keep: &[&str]) -> Document {
        let mut e = d.clone();
        let det = d.get_document("details").unwrap();
        let mut details = Document::new();
        for k in ["min", "max", "from", "to"].iter().chain(keep) {
            if let Some(v) = det.get(*k) {
                details.insert(*k, v.clone());
            }
        }
        let t = d.get_datetime("time").unwrap().timestamp_millis() + dt;
        e.insert("what", what);
        e.insert("details", details);
        e.insert("time", bson::DateTime::from_millis(t));
        e
    }

    fn log_of(entries: &[Document]) -> Vec<crate::view::LogLine> {
        let mut log = std::collections::VecDeque::new();
        for d in entries {
            let line = crate::live::logs::line_of(crate::trace::LogCollection::Changelog, d);
            crate::view::append_log(&mut log, line);
        }
        log.into()
    }

    #[test]
    fn a_live_migration_is_one_line_its_donor_entry_folded_in() {
        let real = real_changelog();
        let (commit, other_from) = (&real[0], &real[1]);
        // The same migration's start (min, max, from, to) and its donor's `moveChunk.from`
        // (the real entry's steps and note, for the committed range), around the real commit.
        let start = entry_of(commit, "moveChunk.start", -1_200, &[]);
        let mut from = other_from.clone();
        let mut det = from.get_document("details").unwrap().clone();
        for k in ["min", "max"] {
            let bound = commit.get_document("details").unwrap().get(k).unwrap();
            det.insert(k, bound.clone());
        }
        from.insert("details", det);
        from.insert("time", other_from.get_datetime("time").unwrap());
        let log = log_of(&[start.clone(), commit.clone(), from, other_from.clone()]);
        let texts: Vec<&str> = log.iter().map(|l| l.text.as_str()).collect();
        assert_eq!(
            texts,
            [
                "moveChunk            shop.orders sh1 → sh2 committed: 3784 docs, 1.0 MiB cloned \
                 · [{ customerId: MinKey }, { customerId: 3784 })",
                // The real `moveChunk.from` of a range whose start and commit were not read.
                "moveChunk            shop.orders sh1 → sh2 succeeded \
                 · [{ customerId: 37840 }, { customerId: 41624 })",
            ]
        );
        let start_ms = start.get_datetime("time").unwrap().timestamp_millis() as u64;
        assert_eq!(log[0].at_ms, start_ms, "the line keeps its start's time");
        assert!(
            log.iter()
                .all(|l| l.kind == crate::view::LogKind::Migration)
        );
        assert!(texts.iter().all(|t| t.matches("shop.orders").count() == 1));

        // A failed one: its start, `moveChunk.error` (no message) and the donor's
        // `moveChunk.from` saying why.
        let error = entry_of(commit, "moveChunk.error", 0, &[]);
        let mut aborted = entry_of(other_from, "moveChunk.from", 0, &[]);
        let mut det = error.get_document("details").unwrap().clone();
        det.insert("note", "aborted");
        det.insert("errmsg", "Data transfer error: ExceededTimeLimit");
        aborted.insert("details", det);
        let log = log_of(&[start, error, aborted]);
        assert_eq!(log.len(), 1, "{log:?}");
        assert_eq!(
            log[0].text,
            "moveChunk            shop.orders sh1 → sh2 failed: Data transfer error: \
             ExceededTimeLimit · [{ customerId: MinKey }, { customerId: 3784 })"
        );
        assert_eq!(log[0].kind, crate::view::LogKind::Error);

        // The recipient's `moveChunk.to` may come before the donor's commit: still one line,
        // the commit's counts in it.
        let mut to = entry_of(commit, "moveChunk.to", -100, &[]);
        let mut det = to.get_document("details").unwrap().clone();
        det.insert("note", "success");
        to.insert("details", det);
        let start = entry_of(commit, "moveChunk.start", -1_200, &[]);
        let log = log_of(&[start, to, commit.clone()]);
        assert_eq!(log.len(), 1, "{log:?}");
        assert!(
            log[0]
                .text
                .contains("sh1 → sh2 committed: 3784 docs, 1.0 MiB cloned · ["),
            "{}",
            log[0].text
        );
    }

    #[test]
    fn serve_s_migration_entries_keep_its_words_and_the_namespace_once() {
        let d = |what: &str, text: &str| {
            doc! {"what": what, "ns": "app.events", "time": bson::DateTime::from_millis(5),
            "details": {"min": {"_id": 1}, "max": {"_id": 2}, "from": "shard0000",
            "to": "shard0001", "shardtop": text}}
        };
        let start = d(
            "moveChunk.start",
            "#1 app.events shard0000 → shard0001 [{_id: 1}, {_id: 2}) (1.0 MiB, chunksImbalance)",
        );
        let commit = d(
            "moveChunk.commit",
            "#1 app.events shard0000 → shard0001: 1051 docs, 1.0 MiB in 1.1s",
        );
        let mut from = d("moveChunk.from", "");
        let mut det = from.get_document("details").unwrap().clone();
        det.remove("shardtop");
        det.insert("note", "success");
        from.insert("details", det);
        let log = log_of(&[start, commit, from]);
        assert_eq!(log.len(), 1, "{log:?}");
        assert_eq!(
            log[0].text,
            "moveChunk            app.events shard0000 → shard0001 committed: 1051 docs, 1.0 MiB \
             in 1.1s · [{ _id: 1 }, { _id: 2 }) (1.0 MiB, chunksImbalance)"
        );
    }
}
