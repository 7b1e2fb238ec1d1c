//! The tails of `config.changelog` (splits, merges, migrations with their outcome) and
//! `config.actionlog` (balancer rounds: candidates, chunks moved, time, errors) read at each poll:
//! new entries since the last poll as log lines, and the migration totals the changelog
//! remembers (it is capped, so older migrations are forgotten). Reads only, through the client.

use crate::model::{ShardIdx, ShardKey};
use bson::{DateTime, Document, doc};

use super::client::{LiveClient, LiveError};
use crate::trace::LogCollection;
use crate::view::{LogKind, LogLine};

/// Entries read per poll and log; more wait for the next poll.
const PAGE: i64 = 100;

/// What the poller remembers of both logs between polls.
#[derive(Debug, Default)]
pub struct LogTails {
    last_change: Option<DateTime>,
    last_action: Option<DateTime>,
    pub completed: u64,
    pub failed: u64,
    /// The newest balancer round's error (`errmsg`), if it failed.
    pub round_error: Option<String>,
    /// Migrations committed since the last take (`moveChunk.commit` entries): when, and the
    /// entry (its `ns` and `details` name the range and the donor).
    pub committed: Vec<(u64, Document)>,
    /// Every entry read since the last take, for a recording (`None`: not recording).
    recorded: Option<Vec<(LogCollection, Document)>>,
    /// When the balancer rounds read were logged (ms since the epoch), the newest
    /// `MAX_ROUND_TIMES`: the evidence of the balancing window's time zone.
    pub round_times_ms: std::collections::VecDeque<u64>,
}

/// Round times kept as evidence of the balancing window's time zone.
const MAX_ROUND_TIMES: usize = 1_000;

/// Committed migrations kept between two takes, at most.
const MAX_COMMITTED: usize = 10_000;

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

    fn keep(&mut self, log: LogCollection, d: &Document) {
        if let Some(r) = self.recorded.as_mut() {
            r.push((log, d.clone()));
        }
    }

    /// New changelog and actionlog entries, oldest first.
    pub async fn read(&mut self, client: &LiveClient) -> Result<Vec<LogLine>, LiveError> {
        if self.last_change.is_none() {
            self.count_migrations(client).await?;
        }
        let first = self.last_change.is_none();
        let changes = tail(client, "changelog", doc! {}, self.last_change).await?;
        let mut out = Vec::new();
        for d in changes {
            let what = d.get_str("what").unwrap_or("?").to_string();
            track(&mut self.last_change, &d);
            match what.as_str() {
                "moveChunk.commit" if !first => {
                    self.completed += 1;
                    if self.committed.len() < MAX_COMMITTED {
                        self.committed.push((at_ms(&d), d.clone()));
                    }
                }
                "moveChunk.error" if !first => self.failed += 1,
                _ => {}
            }
            self.keep(LogCollection::Changelog, &d);
            out.push(change_line(&what, &d));
        }
        let rounds = tail(
            client,
            "actionlog",
            doc! {"what": "balancer.round"},
            self.last_action,
        )
        .await?;
        for d in rounds {
            track(&mut self.last_action, &d);
            self.keep(LogCollection::Actionlog, &d);
            self.round_times_ms.push_back(at_ms(&d));
            if self.round_times_ms.len() > MAX_ROUND_TIMES {
                self.round_times_ms.pop_front();
            }
            let details = d.get_document("details").cloned().unwrap_or_default();
            self.round_error = round_error(&details);
            out.push(round_line(&d, &details, self.round_error.as_deref()));
        }
        out.sort_by_key(|l| l.at_ms);
        Ok(out)
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

fn at_ms(d: &Document) -> u64 {
    d.get_datetime("time")
        .map_or(0, |t| t.timestamp_millis().max(0) as u64)
}

/// The log line of an entry of either log, as the live view shows it (a replay of a recording
/// shows the recorded entries through this).
pub fn line_of(log: LogCollection, d: &Document) -> LogLine {
    match log {
        LogCollection::Changelog => change_line(d.get_str("what").unwrap_or("?"), d),
        LogCollection::Actionlog => {
            let details = d.get_document("details").cloned().unwrap_or_default();
            round_line(d, &details, round_error(&details).as_deref())
        }
    }
}

fn change_line(what: &str, d: &Document) -> LogLine {
    let ns = d.get_str("ns").unwrap_or_default();
    let details = d.get_document("details").map_or_else(
        |_| String::new(),
        |det| super::change_text::details(what, ns, det),
    );
    LogLine {
        at_ms: at_ms(d),
        kind: kind_of(what),
        text: crate::units::cut_at_words(&format!("{what:<20} {ns} {details}"), 200),
    }
}

/// A failed round's error: `errmsg`, or the error flag in either spelling (`errorOccured` before
/// 5.0, `errorOccurred` after).
fn round_error(details: &Document) -> Option<String> {
    if let Ok(msg) = details.get_str("errmsg") {
        return Some(msg.to_string());
    }
    let flagged = ["errorOccurred", "errorOccured"]
        .iter()
        .any(|k| details.get_bool(k) == Ok(true));
    flagged.then(|| "the round reported an error".to_string())
}

fn round_line(d: &Document, details: &Document, error: Option<&str>) -> LogLine {
    let n = |k: &str| super::data_sizes::number(details, k);
    let mut text = format!(
        "{:<20} {} candidates, {} moved, {} ms",
        "balancer.round",
        n("candidateChunks"),
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
    }
}

fn kind_of(what: &str) -> LogKind {
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
