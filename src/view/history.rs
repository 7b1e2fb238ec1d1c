//! The history view's frame: per shard, data, chunks and write share of one collection per
//! interval (columns, newest at the right) from the source's ring of samples, and the progress
//! of drains and reshardings with an estimate of their end from the observed rate.

use crate::cluster::Cluster;
use crate::cluster::history::History;
use crate::cluster::history::{clone_done, shard_holds};
use crate::model::ShardIdx;
use crate::units::human_bytes;

/// What the history view asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HistoryRequest {
    pub cols: usize,
    /// Virtual seconds per column (the time zoom).
    pub secs_per_col: u64,
}

/// One shard's series; `None` for the columns before its first sample.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ShardHistory {
    pub id: String,
    /// The shard's index (as strip cells name shards).
    pub index: usize,
    pub draining: bool,
    /// Bytes and chunks at each column's last sample.
    pub bytes: Vec<Option<u64>>,
    pub chunks: Vec<Option<u64>>,
    /// The shard's share of the collection's writes in each column (`None`: no writes).
    pub shares: Vec<Option<f64>>,
}

/// A drain or a resharding under way.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Progress {
    pub what: String,
    /// The share done, 0 to 1.
    pub done: f64,
    /// What is left, the rate and the estimated end, in words.
    pub detail: String,
    /// The share done at each column's last sample (`None`: no sample).
    pub trend: Vec<Option<f64>>,
}

/// One frame of the history view.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HistoryView {
    pub from_ms: u64,
    pub to_ms: u64,
    pub now_ms: u64,
    pub secs_per_col: u64,
    /// The column of the source's time (later columns are the future, empty).
    pub now_col: usize,
    pub shards: Vec<ShardHistory>,
    pub progress: Vec<Progress>,
}

/// How far back a rate is measured.
const RATE_WINDOW_MS: u64 = 60_000;

/// The frame for `ns` ending at the cluster's time.
pub fn build(
    history: &History,
    cluster: &Cluster,
    ns: &str,
    req: &HistoryRequest,
) -> Option<HistoryView> {
    cluster.collection(ns)?;
    let cols = req.cols.max(1);
    let now_ms = cluster.now_ms;
    let span_ms = req.secs_per_col.max(1) * 1000 * cols as u64;
    let to_ms = (now_ms + 1).max(span_ms);
    let from_ms = to_ms - span_ms;
    let times = history.times();
    // Each column's samples, as a range of sample indexes: a frame costs columns × shards, not
    // samples × shards.
    let spans: Vec<std::ops::Range<usize>> = (0..cols as u64)
        .map(|c| {
            let at = |c: u64| from_ms + (u128::from(c) * u128::from(span_ms) / cols as u128) as u64;
            times.partition_point(|&t| t < at(c))..times.partition_point(|&t| t < at(c + 1))
        })
        .collect();
    let last: Vec<Option<usize>> = spans.iter().map(|r| r.clone().last()).collect();
    let index_of: std::collections::HashMap<&str, usize> = cluster
        .shards
        .iter()
        .enumerate()
        .map(|(i, s)| (s.shard.id.as_str(), i))
        .collect();
    let slots: Vec<(&str, usize, usize)> = history
        .shards(ns)
        .filter_map(|(id, slot)| index_of.get(id).map(|&index| (id, slot, index)))
        .collect();
    let mut shards: Vec<ShardHistory> = slots
        .iter()
        .map(|&(id, _, index)| ShardHistory {
            id: id.to_string(),
            index,
            draining: cluster.shards[index].shard.draining,
            bytes: vec![None; cols],
            chunks: vec![None; cols],
            shares: vec![None; cols],
        })
        .collect();
    // Per column, the last sample's values, and the writes between the last samples of this
    // column and the one before: a frame reads two samples a column.
    for (col, span) in spans.iter().enumerate() {
        let Some(last) = span.clone().last() else {
            continue;
        };
        let writes: Vec<u32> = slots
            .iter()
            .map(|&(_, slot, _)| history.writes_between(span.clone(), slot))
            .collect();
        let total: u64 = writes.iter().map(|&w| u64::from(w)).sum();
        for ((row, &(_, slot, _)), &w) in shards.iter_mut().zip(&slots).zip(&writes) {
            let [kib, chunks, _] = history.value(last, slot);
            row.bytes[col] = Some(u64::from(kib) * 1024);
            row.chunks[col] = Some(u64::from(chunks));
            row.shares[col] = (total > 0).then(|| f64::from(w) / total as f64);
        }
    }
    let mut progress = drains(history, cluster, &last);
    progress.extend(resharding(history, cluster, ns, &last));
    Some(HistoryView {
        from_ms,
        to_ms,
        now_ms,
        secs_per_col: req.secs_per_col,
        now_col: ((u128::from(now_ms - from_ms) * cols as u128 / u128::from(span_ms)) as usize)
            .min(cols - 1),
        shards,
        progress,
    })
}

/// The share done of every drain and of `ns`'s resharding under way (the history's numbers, or
/// a live resharding's copied bytes, else documents, of the total its recipients report); `None`
/// when a live resharding has not reported what it copies.
pub fn under_way(history: &History, cluster: &Cluster, ns: &str) -> Vec<Option<f64>> {
    let mut out: Vec<Option<f64>> = drains(history, cluster, &[])
        .iter()
        .map(|p| Some(p.done))
        .collect();
    out.extend(resharding(history, cluster, ns, &[]).map(|p| Some(p.done)));
    let live = cluster
        .collection(ns)
        .filter(|c| c.resharding.is_none())
        .and_then(|c| c.resharding_progress.as_ref());
    if let Some(r) = live {
        out.push(r.bytes().or_else(|| r.documents()).map(|(done, total)| {
            if total == 0 {
                1.0
            } else {
                (done as f64 / total as f64).min(1.0)
            }
        }));
    }
    out
}

/// Every draining shard: its share drained since the drain was first seen, what is left, and
/// the end at the rate of the last minute.
fn drains(history: &History, cluster: &Cluster, last: &[Option<usize>]) -> Vec<Progress> {
    let times = history.times();
    cluster
        .shards
        .iter()
        .enumerate()
        .filter(|(_, s)| s.shard.draining && !s.removed)
        .map(|(i, s)| {
            let (chunks, bytes) = shard_holds(cluster, ShardIdx(i as u32));
            let start = history.drain(&s.shard.id);
            let since = start.map_or(cluster.now_ms, |d| d.since_ms);
            let at_start = start.map_or(chunks, |d| d.chunks).max(chunks);
            let done_with = |left: u64| {
                if at_start == 0 {
                    1.0
                } else {
                    1.0 - left.min(at_start) as f64 / at_start as f64
                }
            };
            let trend = last
                .iter()
                .map(|i| {
                    i.filter(|&i| times.get(i).is_some_and(|&t| t >= since))
                        .map(|i| done_with(chunks_at(history, cluster, &s.shard.id, i)))
                })
                .collect();
            let from = cluster.now_ms.saturating_sub(RATE_WINDOW_MS).max(since);
            let then = times.partition_point(|&t| t < from);
            let rate = times.get(then).and_then(|&t| {
                let before = chunks_at(history, cluster, &s.shard.id, then);
                let secs = cluster.now_ms.saturating_sub(t) as f64 / 1000.0;
                (secs > 0.0).then(|| before.saturating_sub(chunks) as f64 / secs)
            });
            Progress {
                what: format!("draining {}", s.shard.id),
                done: done_with(chunks),
                detail: drain_detail(chunks, bytes, rate),
                trend,
            }
        })
        .collect()
}

/// The chunks shard `id` held over every collection at sample `i`.
fn chunks_at(history: &History, cluster: &Cluster, id: &str, i: usize) -> u64 {
    cluster
        .collections
        .iter()
        .flat_map(|c| history.shards(&c.ns))
        .filter(|(s, _)| *s == id)
        .map(|(_, slot)| u64::from(history.value(i, slot)[1]))
        .sum()
}

fn drain_detail(chunks: u64, bytes: u64, rate: Option<f64>) -> String {
    let s = if chunks == 1 { "" } else { "s" };
    let left = format!("{chunks} chunk{s} ({}) left", human_bytes(bytes));
    match rate {
        _ if chunks == 0 => "no chunk left: removeShard can complete".to_string(),
        Some(r) if r > 0.0 => format!("{left} · {:.1} chunks/min over the last minute", r * 60.0),
        _ => format!("{left} · none moved in the last minute"),
    }
}

/// The resharding of `ns`, if one runs: the clone's share done and the time to the critical
/// section.
fn resharding(
    history: &History,
    cluster: &Cluster,
    ns: &str,
    last: &[Option<usize>],
) -> Option<Progress> {
    let c = cluster.collection(ns)?;
    let r = c.resharding.as_ref()?;
    let done = clone_done(r, cluster.now_ms);
    let left_ms = r.ready_ms.saturating_sub(cluster.now_ms);
    let series = history.resharding(ns);
    let times = history.times();
    let trend = last
        .iter()
        .map(|i| {
            let t = times.get((*i)?)?;
            let s = series?;
            let at = s.partition_point(|(at, _)| at <= t).checked_sub(1)?;
            s.get(at).map(|(_, d)| f64::from(*d))
        })
        .collect();
    let detail = match &r.critical_section {
        Some(_) => "in the critical section: writes wait for the commit".to_string(),
        None if left_ms == 0 => "cloned: the critical section is next".to_string(),
        None => format!(
            "cloning (as the simulator models it, at an even pace) · about {} to the critical section",
            duration_text(left_ms as f64 / 1000.0)
        ),
    };
    Some(Progress {
        what: format!("{} {ns}", r.provenance.as_str()),
        done,
        detail,
        trend,
    })
}

/// Seconds as `45 s`, `12 min`, `3.5 h`.
pub fn duration_text(secs: f64) -> String {
    if secs < 90.0 {
        format!("{secs:.0} s")
    } else if secs < 5400.0 {
        format!("{:.0} min", secs / 60.0)
    } else {
        format!("{:.1} h", secs / 3600.0)
    }
}
