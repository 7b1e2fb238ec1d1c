//! The log lines of `config.changelog` and `config.actionlog` entries, as the live view and a
//! replay of a recording show them: splits, merges, migrations (one line per migration), balancer
//! rounds and their errors.
//!
//! Owns: an entry's words. May not touch: the reads (`logs`), which decide what is new.

use bson::Document;

use crate::trace::LogCollection;
use crate::view::{LogKind, LogLine};

/// A line whose entry's time is invalid: shown at the poll that read it, marked.
pub(super) fn invalid_at(mut line: LogLine, invalid: bool, now_ms: u64) -> LogLine {
    if invalid {
        line.at_ms = now_ms;
        line.text = format!("(time invalid) {}", line.text);
    }
    line
}

/// An entry's time in milliseconds since the epoch (0 when it has none).
pub(super) fn at_ms(d: &Document) -> u64 {
    d.get_datetime("time")
        .map_or(0, |t| t.timestamp_millis().max(0) as u64)
}

/// The log line of an entry of either log, as the live view shows it (a replay of a recording
/// shows the recorded entries through this).
pub fn line_of(log: LogCollection, d: &Document) -> LogLine {
    match log {
        LogCollection::Changelog => change_line(d.get_str("what").unwrap_or("?"), d, true),
        LogCollection::Actionlog => {
            let details = d.get_document("details").cloned().unwrap_or_default();
            round_line(d, &details, round_error(&details).as_deref())
        }
    }
}

/// An entry's line; `merge`: a migration's entry is keyed to be one line with the others of
/// its migration (not an entry whose time is invalid: shown where it was read, as it is).
pub(super) fn change_line(what: &str, d: &Document, merge: bool) -> LogLine {
    let ns = d.get_str("ns").unwrap_or_default();
    let migration = (d.get_document("details").ok())
        .filter(|_| merge)
        .and_then(|det| crate::live::change_text::migration_entry(what, ns, det));
    let detail = Some(crate::live::change_text::detail("changelog", d, None));
    if let Some(m) = migration {
        return LogLine {
            detail,
            ..m.line(at_ms(d))
        };
    }
    let details = d.get_document("details").map_or_else(
        |_| String::new(),
        |det| crate::live::change_text::details(what, ns, det),
    );
    LogLine {
        at_ms: at_ms(d),
        kind: kind_of(what),
        text: crate::units::cut_at_words(&format!("{what:<20} {ns} {details}"), 200),
        migration: None,
        detail,
    }
}

/// A failed round's error: `errmsg`, or the error flag in either spelling (`errorOccured` before
/// 5.0, `errorOccurred` after).
pub(super) fn round_error(details: &Document) -> Option<String> {
    if let Ok(msg) = details.get_str("errmsg") {
        return Some(msg.to_string());
    }
    let flagged = ["errorOccurred", "errorOccured"]
        .iter()
        .any(|k| details.get_bool(k) == Ok(true));
    flagged.then(|| "the round reported an error".to_string())
}

pub(super) fn round_line(d: &Document, details: &Document, error: Option<&str>) -> LogLine {
    let n = |k: &str| crate::live::data_sizes::number(details, k);
    let mut text = format!(
        "{:<20} {}, {} moved, {} ms",
        "balancer.round",
        crate::units::count(n("candidateChunks"), "candidate"),
        n("chunksMoved"),
        n("executionTimeMillis")
    );
    if let Some(e) = error {
        text.push_str(&format!(
            " — failed: {}",
            crate::units::cut_at_words(e, 120)
        ));
    }
    LogLine {
        at_ms: at_ms(d),
        kind: if error.is_some() {
            LogKind::Error
        } else {
            LogKind::Balancer
        },
        text,
        migration: None,
        detail: Some(crate::live::change_text::detail("actionlog", d, None)),
    }
}

pub(super) fn kind_of(what: &str) -> LogKind {
    match what {
        w if w.contains("split") || w.starts_with("merge") => LogKind::Split,
        w if w.rsplit('.').next() == Some("error") || w.contains("abort") => LogKind::Error,
        w if w.starts_with("moveChunk") || w.starts_with("moveRange") => LogKind::Migration,
        w if w.contains("Zone") || w.contains("zone") => LogKind::Zone,
        w if w.contains("Shard") => LogKind::Shard,
        _ => LogKind::Other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::doc;

    #[test]
    fn a_failed_round_is_read_in_either_spelling() {
        assert_eq!(round_error(&doc! {"errorOccurred": false}), None);
        assert!(round_error(&doc! {"errorOccured": true}).is_some());
        assert!(round_error(&doc! {"errorOccurred": true}).is_some());
        assert_eq!(
            round_error(&doc! {"errorOccurred": true, "errmsg": "no config primary"}).as_deref(),
            Some("no config primary")
        );
    }
}
