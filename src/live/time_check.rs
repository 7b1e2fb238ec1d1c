//! Times a server cannot have written: a date later than the poll's own clock plus a day of
//! clock skew, or before 2009 (before MongoDB existed), in a chunk's `onCurrentShardSince` or a
//! `config.changelog`/`config.actionlog` entry's `time`. Such a value is flagged (a note naming
//! the field and the collection) and not used as fact: the chunk's time on its shard is unknown,
//! a log entry is shown "(time invalid)" when it was read and is not used for the balancer's
//! round times or a migration's place on a time axis.
//!
//! The server writes these from its own clock: `onCurrentShardSince` is the commit time of the
//! migration that put the chunk there (`src/mongo/db/s/config/
//! sharding_catalog_manager_chunk_operations.cpp`, `commitChunkMigration`), a log entry's `time`
//! is `Date_t::now()` when it is logged (`src/mongo/db/s/sharding_logging.cpp`).
//!
//! But `onCurrentShardSince` before 2009 is not impossible: the upgrade to FCV 7.0 copies it from
//! the chunk's `history[0].validAfter` (same file, `setOnCurrentShardSinceFieldOnChunks`), and
//! MongoDB's own 7.0 documentation of `config.chunks` shows `Timestamp(1, 0)` in both. Such a
//! value is not a wall-clock time: the chunk's time on its shard is unknown, said as that, not
//! called invalid. Only a future one (past the day of skew) is flagged.
//!
//! Owns: the plausibility rule and the chunks' notes. May not touch: the reads, the views.

use std::collections::{BTreeSet, HashMap};

use super::config::ChunkRow;
use crate::model::ShardKey;

/// 2009-01-01T00:00:00Z, ms since the epoch: no MongoDB server wrote a date before it.
pub const EARLIEST_MS: i64 = 1_230_768_000_000;

/// A server's clock may run ahead of this machine's by this much (a day) before its dates are
/// taken as invalid.
pub const FUTURE_TOLERANCE_MS: i64 = 86_400_000;

/// Why a date (ms since the epoch) is not one a server can report at `now_ms` (the poll's
/// clock), or `None` when it is.
pub fn invalid(t_ms: i64, now_ms: u64) -> Option<&'static str> {
    let now = i64::try_from(now_ms).unwrap_or(i64::MAX);
    if t_ms < EARLIEST_MS {
        Some("before 2009")
    } else if t_ms > now.saturating_add(FUTURE_TOLERANCE_MS) {
        Some("after this poll's clock plus 1 day")
    } else {
        None
    }
}

/// A date as ISO 8601 (UTC), or its milliseconds when out of the calendar's range.
pub fn date_text(t_ms: i64) -> String {
    bson::DateTime::from_millis(t_ms)
        .try_to_rfc3339_string()
        .unwrap_or_else(|_| format!("{t_ms} ms since the epoch"))
}

/// The chunks whose `onCurrentShardSince` was invalid, by collection (their lower bounds), kept
/// between polls: an incremental poll re-reads only the chunks that changed.
#[derive(Debug, Default)]
pub struct SinceCheck {
    /// The poll's clock (ms since the epoch).
    pub clock_ms: u64,
    invalid: HashMap<String, BTreeSet<ShardKey>>,
    /// Chunks whose `onCurrentShardSince` is before 2009: not a wall-clock time (as an upgrade
    /// to 7.0 can leave it), so unknown.
    not_wall_clock: HashMap<String, BTreeSet<ShardKey>>,
}

impl SinceCheck {
    /// A full load of `ns` follows: forget what was known of it.
    pub fn full(&mut self, ns: &str) {
        self.invalid.remove(ns);
        self.not_wall_clock.remove(ns);
    }

    /// Checks one chunk of `ns` read now: an `onCurrentShardSince` that is not a wall-clock time
    /// (before 2009) or is invalid (in the future) becomes unknown (0, as when the field is
    /// absent) and is noted.
    pub fn row(&mut self, ns: &str, row: &mut ChunkRow) {
        let since_ms = i64::try_from(row.info.since.saturating_mul(1000)).unwrap_or(i64::MAX);
        let why = (row.info.since != 0)
            .then(|| invalid(since_ms, self.clock_ms))
            .flatten();
        let early = self.not_wall_clock.entry(ns.to_string()).or_default();
        if why == Some("before 2009") {
            early.insert(row.min.clone());
        } else {
            early.remove(&row.min);
        }
        let set = self.invalid.entry(ns.to_string()).or_default();
        if why.is_some_and(|w| w != "before 2009") {
            set.insert(row.min.clone());
        } else {
            set.remove(&row.min);
        }
        if why.is_some() {
            row.info.since = 0;
        }
    }

    /// [`SinceCheck::row`] for each of `rows`.
    pub fn rows(&mut self, ns: &str, rows: &mut [ChunkRow]) {
        for r in rows {
            self.row(ns, r);
        }
    }

    /// One note per collection with invalid `onCurrentShardSince`, and one per collection with
    /// one before 2009, for the shards pane.
    pub fn notes(&self) -> Vec<crate::cluster::privileges::RefusedRead> {
        let chunks = |n: usize| format!("{n} chunk{}", if n == 1 { "" } else { "s" });
        let invalid = (self.invalid.iter())
            .filter(|(_, mins)| !mins.is_empty())
            .map(|(ns, mins)| {
                format!(
                    "config.chunks of {ns}: `onCurrentShardSince` of {} is not a time a server \
                     can report (after this poll's clock plus 1 day): not used",
                    chunks(mins.len()),
                )
            });
        let early = (self.not_wall_clock.iter())
            .filter(|(_, mins)| !mins.is_empty())
            .map(|(ns, mins)| {
                format!(
                    "config.chunks of {ns}: `onCurrentShardSince` of {} is before 2009, not a \
                     wall-clock time (set at the upgrade to 7.0 from the chunk's history): time \
                     on shard unknown",
                    chunks(mins.len()),
                )
            });
        let mut out: Vec<_> = (invalid.chain(early))
            .map(|text| crate::cluster::privileges::RefusedRead {
                feeds: crate::cluster::privileges::Feeds::Shards,
                text,
            })
            .collect();
        out.sort_by(|a, b| a.text.cmp(&b.text));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ChunkInfo, ChunkVersion, KeyValue, ShardIdx};

    /// 2026-12-03T03:00:00Z.
    const NOW: u64 = 1_796_266_800_000;

    fn row(min: i64, since_secs: u64) -> ChunkRow {
        let mut info = ChunkInfo::new(ShardIdx(0), ChunkVersion::new(1, 0));
        info.since = since_secs;
        ChunkRow {
            min: ShardKey::single(KeyValue::Int64(min)),
            max: ShardKey::single(KeyValue::Int64(min + 1)),
            info,
        }
    }

    #[test]
    fn the_future_past_a_day_and_before_2009_are_invalid() {
        let now = NOW as i64;
        assert_eq!(invalid(now, NOW), None);
        assert_eq!(invalid(now - 3_600_000, NOW), None);
        assert_eq!(
            invalid(now + FUTURE_TOLERANCE_MS, NOW),
            None,
            "a day of skew"
        );
        assert!(invalid(now + FUTURE_TOLERANCE_MS + 1, NOW).is_some());
        assert_eq!(invalid(EARLIEST_MS, NOW), None);
        assert_eq!(invalid(EARLIEST_MS - 1, NOW), Some("before 2009"));
        assert_eq!(invalid(0, NOW), Some("before 2009"), "the epoch");
        assert!(invalid(i64::MAX, NOW).is_some());
        assert_eq!(date_text(EARLIEST_MS), "2009-01-01T00:00:00Z");
        assert!(date_text(i64::MAX).contains("ms since the epoch"));
    }

    #[test]
    fn an_invalid_on_current_shard_since_is_unknown_and_noted_until_the_chunk_changes() {
        let mut check = SinceCheck {
            clock_ms: NOW,
            ..SinceCheck::default()
        };
        let now_secs = NOW / 1000;
        let mut rows = vec![
            row(0, now_secs - 60),
            row(1, now_secs + 10 * 86_400),
            row(2, 1_000_000_000), // 2001
            row(3, 0),             // absent (before 7.0)
        ];
        check.rows("app.orders", &mut rows);
        let since: Vec<u64> = rows.iter().map(|r| r.info.since).collect();
        assert_eq!(since, [now_secs - 60, 0, 0, 0]);
        let notes = check.notes();
        assert_eq!(notes.len(), 2, "{notes:?}");
        assert!(
            notes[0].text.starts_with(
                "config.chunks of app.orders: `onCurrentShardSince` of 1 chunk is before 2009, \
                 not a wall-clock time"
            ),
            "{}",
            notes[0].text
        );
        assert!(
            notes[1].text.starts_with(
                "config.chunks of app.orders: `onCurrentShardSince` of 1 chunk is not a time"
            ),
            "{}",
            notes[1].text
        );
        // The future chunk re-read with a valid time: the note on the early one is left.
        let mut again = [row(1, now_secs)];
        check.rows("app.orders", &mut again);
        assert_eq!(check.notes().len(), 1);
        assert!(check.notes()[0].text.contains("before 2009"));
        // A full load that finds none: no note.
        check.full("app.orders");
        let mut clean = [row(0, now_secs)];
        check.rows("app.orders", &mut clean);
        assert!(check.notes().is_empty());
    }

    #[test]
    fn timestamp_1_0_as_mongodb_s_7_0_example_has_it_is_unknown_not_invalid() {
        let mut check = SinceCheck {
            clock_ms: NOW,
            ..SinceCheck::default()
        };
        let mut rows = [row(0, 1)]; // Timestamp(1, 0)
        check.rows("test.users", &mut rows);
        assert_eq!(rows[0].info.since, 0, "time on shard unknown");
        let notes = check.notes();
        assert_eq!(notes.len(), 1);
        assert!(!notes[0].text.contains("not a time a server"), "{notes:?}");
        assert!(notes[0].text.contains("time on shard unknown"), "{notes:?}");
    }
}
