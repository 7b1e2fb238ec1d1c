//! The tails of `config.changelog` (splits, merges, migrations with their outcome) and
//! `config.actionlog` (balancer rounds: candidates, chunks moved, time, errors) read at each poll:
//! new entries since the last poll as log lines, and the migration totals the changelog
//! remembers (it is capped, so older migrations are forgotten). Reads only, through the client.
//! An entry whose `time` no server can report (`time_check`) is shown "(time invalid)" when it
//! is read, noted in the event log's pane, and not used for the tail's position, the balancer's
//! round times or a migration's place in time.

use crate::model::{ShardIdx, ShardKey};
use bson::{DateTime, Document, doc};

use super::client::{LiveClient, LiveError};
use crate::trace::LogCollection;
use crate::view::LogLine;

mod lines;

pub use lines::line_of;
use lines::{at_ms, change_line, invalid_at, round_error, round_line};

/// Entries read per poll and log; more wait for the next poll.
pub(crate) const PAGE: i64 = 100;

/// What the poller remembers of both logs between polls.
#[derive(Debug, Default)]
pub struct LogTails {
    last_change: Option<DateTime>,
    last_action: Option<DateTime>,
    pub completed: u64,
    pub failed: u64,
    /// `chunksMoved` summed over the `balancer.round` entries read (the newest `PAGE` at the
    /// first poll, then each new one).
    pub round_moved: u64,
    /// The newest balancer round's error (`errmsg`), if it failed.
    pub round_error: Option<String>,
    /// Migrations committed since the last take (`moveChunk.commit` entries): when, and the
    /// entry (its `ns` and `details` name the range and the donor).
    pub committed: Vec<(u64, Document)>,
    /// Every entry read since the last take, for a recording (`None`: not recording).
    recorded: Option<Vec<(LogCollection, Document)>>,
    /// The newest `MAX_MIGRATION_ENTRIES` `moveChunk.commit` and `moveChunk.from` entries read
    /// (the first poll's tail included): what a what-if fork measures migrations from.
    migration_entries: std::collections::VecDeque<Document>,
    /// When the balancer rounds read were logged (ms since the epoch), the newest
    /// `MAX_ROUND_TIMES`: the evidence of the balancing window's time zone.
    pub round_times_ms: std::collections::VecDeque<u64>,
    /// Each collection's migration outcomes, from the `moveChunk.commit`, `moveChunk.error`
    /// and aborted `moveChunk.from` entries read (the first poll's tail included).
    pub outcomes: crate::cluster::balancer::outcomes::Outcomes,
    /// Entries read whose `time` is invalid: their `_id`s (so a future one is shown once,
    /// though the tail, which never moves to it, reads it again), and the notes saying so.
    invalid_ids: std::collections::HashSet<String>,
    invalid_notes: Vec<String>,
}

/// Notes kept on entries with an invalid time, at most (the oldest go first).
const MAX_INVALID_NOTES: usize = 5;

/// Round times kept as evidence of the balancing window's time zone.
const MAX_ROUND_TIMES: usize = 1_000;

/// Committed migrations kept between two takes, at most.
const MAX_COMMITTED: usize = 10_000;

/// Migration entries kept for a what-if fork, at most (the oldest go first).
const MAX_MIGRATION_ENTRIES: usize = 2_000;

impl LogTails {
    /// The migrations committed since the last take: `(at_ms, ns, min, max, donor shard)`, the
    /// bounds in the collection's shard key (entries of collections not known are left out).
    pub fn take_committed(
        &mut self,
        state: &crate::cluster::Cluster,
    ) -> Vec<(u64, String, ShardKey, ShardKey, ShardIdx)> {
        std::mem::take(&mut self.committed)
            .into_iter()
            .filter_map(|(at, d)| {
                let ns = d.get_str("ns").ok()?;
                let c = state.collection(ns)?;
                let details = d.get_document("details").ok()?;
                let bound = |k: &str| {
                    c.pattern
                        .bound_from_document(details.get_document(k).ok()?)
                        .ok()
                };
                let from = details.get_str("from").ok()?;
                let from = state.shards.iter().position(|s| s.shard.id == from)?;
                Some((
                    at,
                    ns.to_string(),
                    bound("min")?,
                    bound("max")?,
                    ShardIdx(from as u32),
                ))
            })
            .collect()
    }

    /// Keeps every entry read from now on for [`LogTails::take_recorded`].
    pub fn record(&mut self) {
        self.recorded.get_or_insert_with(Vec::new);
    }

    /// The entries read since the last take (oldest first within each log); empty when not
    /// recording.
    pub fn take_recorded(&mut self) -> Vec<(LogCollection, Document)> {
        self.recorded
            .as_mut()
            .map(std::mem::take)
            .unwrap_or_default()
    }

    /// The `moveChunk.commit` and `moveChunk.from` entries read so far (the newest
    /// `MAX_MIGRATION_ENTRIES`), oldest first.
    pub fn migration_entries(&self) -> impl Iterator<Item = &Document> {
        self.migration_entries.iter()
    }

    fn keep_migration(&mut self, d: &Document) {
        self.migration_entries.push_back(d.clone());
        if self.migration_entries.len() > MAX_MIGRATION_ENTRIES {
            self.migration_entries.pop_front();
        }
    }

    fn keep(&mut self, log: LogCollection, d: &Document) {
        if let Some(r) = self.recorded.as_mut() {
            r.push((log, d.clone()));
        }
    }

    /// The notes on entries with an invalid `time`, for the event log's pane.
    pub fn notes(&self) -> Vec<crate::cluster::privileges::RefusedRead> {
        (self.invalid_notes.iter())
            .map(|text| crate::cluster::privileges::RefusedRead {
                feeds: crate::cluster::privileges::Feeds::Events,
                text: text.clone(),
            })
            .collect()
    }

    /// Whether `d`'s `time` is one a server can report at `now_ms`; if not, notes it once and
    /// says whether it was seen before (then it is left out).
    fn time_ok(&mut self, log: &str, d: &Document, now_ms: u64) -> Result<(), bool> {
        let Ok(t) = d.get_datetime("time") else {
            return Ok(());
        };
        let Some(why) = super::time_check::invalid(t.timestamp_millis(), now_ms) else {
            return Ok(());
        };
        let id = d.get("_id").map(ToString::to_string).unwrap_or_default();
        if !self.invalid_ids.insert(format!("{log} {id}")) {
            return Err(true);
        }
        let what = d.get_str("what").unwrap_or("?");
        let on = d
            .get_str("ns")
            .map(|ns| format!(" on {ns}"))
            .unwrap_or_default();
        self.invalid_notes.push(format!(
            "config.{log}: `time` {} of a {what} entry{on} is {why}: not used",
            super::time_check::date_text(t.timestamp_millis())
        ));
        if self.invalid_notes.len() > MAX_INVALID_NOTES {
            self.invalid_notes.remove(0);
        }
        Err(false)
    }

    /// New changelog and actionlog entries, oldest first; `now_ms` is the poll's clock and
    /// `origin_ms` the wall-clock time of its 0 (a recording's start; 0 for `watch`): an entry's
    /// `time` is checked against the wall clock, `now_ms + origin_ms`.
    pub async fn read(
        &mut self,
        client: &LiveClient,
        now_ms: u64,
        origin_ms: u64,
    ) -> Result<Vec<LogLine>, LiveError> {
        if self.last_change.is_none() {
            self.count_migrations(client).await?;
        }
        let first = self.last_change.is_none();
        let changes = tail(client, "changelog", doc! {}, self.last_change).await?;
        let mut out = Vec::new();
        for d in changes {
            let what = d.get_str("what").unwrap_or("?").to_string();
            let valid = self.time_ok("changelog", &d, now_ms + origin_ms);
            if valid == Err(true) {
                continue;
            }
            if valid.is_ok() {
                track(&mut self.last_change, &d);
                if what == "moveChunk.commit" || what == "moveChunk.from" {
                    self.keep_migration(&d);
                }
                super::change_text::note_outcome(&mut self.outcomes, &what, &d, origin_ms);
            }
            match what.as_str() {
                "moveChunk.commit" if !first => {
                    self.completed += 1;
                    if valid.is_ok() && self.committed.len() < MAX_COMMITTED {
                        self.committed.push((at_ms(&d), d.clone()));
                    }
                }
                "moveChunk.error" if !first => self.failed += 1,
                _ => {}
            }
            self.keep(LogCollection::Changelog, &d);
            let line = change_line(&what, &d, valid.is_ok());
            out.push(invalid_at(line, valid.is_err(), now_ms));
        }
        let rounds = tail(
            client,
            "actionlog",
            doc! {"what": "balancer.round"},
            self.last_action,
        )
        .await?;
        for d in rounds {
            let valid = self.time_ok("actionlog", &d, now_ms + origin_ms);
            if valid == Err(true) {
                continue;
            }
            self.keep(LogCollection::Actionlog, &d);
            let details = d.get_document("details").cloned().unwrap_or_default();
            self.round_error = round_error(&details);
            let line = round_line(&d, &details, self.round_error.as_deref());
            out.push(invalid_at(line, valid.is_err(), now_ms));
            if valid.is_err() {
                continue;
            }
            track(&mut self.last_action, &d);
            self.round_moved += super::data_sizes::number(&details, "chunksMoved");
            self.round_times_ms.push_back(at_ms(&d));
            if self.round_times_ms.len() > MAX_ROUND_TIMES {
                self.round_times_ms.pop_front();
            }
        }
        out.sort_by_key(|l| l.at_ms);
        Ok(out)
    }

    /// The migrations completed as far as the logs tell, and which log says it: the changelog's
    /// `moveChunk.commit` entries, or the actionlog rounds' `chunksMoved` when those say more
    /// (a changelog that lost the entries must not say "moved 0" under rounds that moved).
    /// 4.4–8.0 `db/s/balancer/balancer.cpp` logs `chunksMoved` in each `balancer.round` entry.
    pub fn moved(&self) -> (u64, crate::cluster::balancer::MovedFrom) {
        use crate::cluster::balancer::MovedFrom;
        if self.round_moved > self.completed {
            (self.round_moved, MovedFrom::Actionlog)
        } else {
            (self.completed, MovedFrom::Changelog)
        }
    }

    /// Migrations the changelog remembers, counted once at the first poll.
    async fn count_migrations(&mut self, client: &LiveClient) -> Result<(), LiveError> {
        let counts = client
            .drain(
                "config",
                doc! {"aggregate": "changelog", "pipeline": [
                    {"$match": {"what": {"$in": ["moveChunk.commit", "moveChunk.error"]}}},
                    {"$group": {"_id": "$what", "n": {"$sum": 1}}},
                ], "cursor": {}},
            )
            .await?;
        for c in counts {
            let n = super::data_sizes::number(&c, "n");
            match c.get_str("_id") {
                Ok("moveChunk.commit") => self.completed = n,
                Ok("moveChunk.error") => self.failed = n,
                _ => {}
            }
        }
        Ok(())
    }
}

/// Entries of `config.<coll>` matching `filter` newer than `since` (the newest `PAGE` the first
/// time), oldest first; a stable sort keeps the server's order among equal times.
async fn tail(
    client: &LiveClient,
    coll: &str,
    mut filter: Document,
    since: Option<DateTime>,
) -> Result<Vec<Document>, LiveError> {
    let sort = if let Some(t) = since {
        filter.insert("time", doc! {"$gt": t});
        doc! {"time": 1}
    } else {
        doc! {"time": -1}
    };
    let cmd = doc! {"find": coll, "filter": filter, "sort": sort, "limit": PAGE, "batchSize": PAGE};
    let mut docs = client.drain("config", cmd).await?;
    if since.is_none() {
        docs.sort_by_key(|d| d.get_datetime("time").ok().copied());
    }
    Ok(docs)
}

fn track(last: &mut Option<DateTime>, d: &Document) {
    if let Ok(t) = d.get_datetime("time") {
        *last = Some(last.map_or(*t, |l| l.max(*t)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 2026-12-03T03:00:00Z.
    const NOW: u64 = 1_796_266_800_000;

    fn entry(id: i32, t_ms: i64) -> Document {
        doc! {"_id": id, "what": "moveChunk.commit", "ns": "app.orders",
        "time": DateTime::from_millis(t_ms), "details": {"from": "rs0", "to": "rs1"}}
    }

    #[test]
    fn the_migration_entries_kept_for_a_fork_are_the_newest_two_thousand() {
        let mut tails = LogTails::default();
        for i in 0..2_500 {
            tails.keep_migration(&entry(i, NOW as i64));
        }
        let ids: Vec<i32> = (tails.migration_entries())
            .filter_map(|d| d.get_i32("_id").ok())
            .collect();
        assert_eq!(ids.len(), MAX_MIGRATION_ENTRIES);
        assert_eq!((ids[0], ids[ids.len() - 1]), (500, 2_499));
    }

    #[test]
    fn a_time_in_the_future_or_before_2009_is_flagged_once_and_not_used() {
        let mut tails = LogTails::default();
        assert_eq!(
            tails.time_ok("changelog", &entry(1, NOW as i64), NOW),
            Ok(())
        );
        let future = entry(2, NOW as i64 + 30 * 86_400_000);
        assert_eq!(tails.time_ok("changelog", &future, NOW), Err(false));
        assert_eq!(
            tails.time_ok("changelog", &future, NOW),
            Err(true),
            "a future entry the tail reads again is left out"
        );
        let old = entry(3, 0);
        assert_eq!(tails.time_ok("actionlog", &old, NOW), Err(false));
        let notes: Vec<String> = tails.notes().into_iter().map(|n| n.text).collect();
        assert_eq!(
            notes,
            [
                "config.changelog: `time` 2027-01-02T03:00:00Z of a moveChunk.commit entry on \
                 app.orders is after this poll's clock plus 1 day: not used",
                "config.actionlog: `time` 1970-01-01T00:00:00Z of a moveChunk.commit entry on \
                 app.orders is before 2009: not used",
            ]
        );
        assert!(
            (tails.notes().iter()).all(|n| n.feeds == crate::cluster::privileges::Feeds::Events),
            "the event log's pane says so"
        );
        // The line: shown when read, marked.
        let line = invalid_at(change_line("moveChunk.commit", &future, false), true, NOW);
        assert_eq!(line.at_ms, NOW);
        assert!(
            line.text.starts_with("(time invalid) moveChunk.commit"),
            "{}",
            line.text
        );
        let line = invalid_at(
            change_line("moveChunk.commit", &entry(1, 5), true),
            false,
            NOW,
        );
        assert_eq!(line.at_ms, 5);
        assert!(!line.text.contains("invalid"));
    }
}
