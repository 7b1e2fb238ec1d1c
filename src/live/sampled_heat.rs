//! Heat from sampled queries (`--heat sampled`): where query sampling is already enabled on the
//! cluster (`configureQueryAnalyzer`, 7.0+ — shardtop never enables it), each poll lists the
//! samples newer than the last it saw with `$listSampledQueries` (clusterMonitor), targets each
//! sample's filter on the routing table (hashing hashed fields) and counts it on every shard it
//! targets and on every chunk when it targets at most `MAX_CHUNKS` of them (a scatter query says
//! nothing about which chunk is hot). Reads and updates/deletes are sampled; inserts are not, so
//! an insert-only workload shows no heat here. The first poll only finds where the samples end.

use std::collections::HashMap;

use bson::{Bson, DateTime, Document, doc};

use super::client::LiveClient;
use super::heat_counts::{HeatCounts, shard_ids};
use crate::cluster::Cluster;
use crate::cluster::Collection;
use crate::model::ShardKey;
use crate::model::targeting::{key_ranges, target_spans};

/// Samples read per collection and poll; more wait for the next poll.
const PAGE: i64 = 50_000;
/// A sample targeting more chunks than this counts on shards only.
const MAX_CHUNKS: usize = 100;
/// A sample spanning more chunks than this counts on every shard holding chunks of the
/// collection (not looked up chunk by chunk).
const SCAN_LIMIT: usize = 10_000;

#[derive(Default)]
struct Tail {
    last: Option<DateTime>,
    counts: HeatCounts,
}

/// The sampled-query tails of the watched collections.
#[derive(Default)]
pub struct SampledHeat {
    tails: HashMap<String, Tail>,
}

/// Whether the cluster holds sampled queries (the `auto` heat choice): one sample is enough.
pub async fn available(client: &LiveClient) -> bool {
    let cmd = doc! {"aggregate": 1, "pipeline": [
        {"$listSampledQueries": {}}, {"$limit": 1},
    ], "cursor": {}};
    client
        .drain("admin", cmd)
        .await
        .is_ok_and(|d| !d.is_empty())
}

/// The filter a sample's command ran with: reads' `cmd.filter`, an update's or delete's
/// statement `q`, findAndModify's `query` (the write shapes are unverified).
fn filter_of(sample: &Document) -> Document {
    let Ok(cmd) = sample.get_document("cmd") else {
        return Document::new();
    };
    let statement = |key: &str| {
        cmd.get_array(key)
            .ok()
            .and_then(|a| a.first())
            .and_then(Bson::as_document)
            .and_then(|s| s.get_document("q").ok())
            .cloned()
    };
    cmd.get_document("filter")
        .ok()
        .cloned()
        .or_else(|| statement("updates"))
        .or_else(|| statement("deletes"))
        .or_else(|| cmd.get_document("query").ok().cloned())
        .unwrap_or_default()
}

impl SampledHeat {
    /// Each collection's counts by chunk since the last take.
    pub fn take_counted(&mut self) -> Vec<(String, Vec<(crate::model::ShardKey, u64)>)> {
        self.tails
            .iter_mut()
            .map(|(ns, t)| (ns.clone(), t.counts.take()))
            .collect()
    }

    /// Reads the new samples of every collection and gives `state` its windows and counts.
    pub async fn observe(&mut self, client: &LiveClient, state: &mut Cluster) {
        let shard_ids = shard_ids(state);
        let at_ms = state.now_ms;
        for c in &mut state.collections {
            let tail = self.tails.entry(c.ns.clone()).or_default();
            let baseline = tail.last.is_none();
            let samples = read(client, &c.ns, tail.last).await;
            let mut by_chunk: HashMap<usize, (ShardKey, u64)> = HashMap::new();
            let mut by_shard = vec![0u64; shard_ids.len()];
            for s in &samples {
                if let Ok(t) = s.get_datetime("expireAt") {
                    tail.last = Some(tail.last.map_or(*t, |l| l.max(*t)));
                }
                if !baseline {
                    count(c, &filter_of(s), &mut by_chunk, &mut by_shard);
                }
            }
            if baseline && tail.last.is_none() {
                // Nothing sampled yet: every sample from now on is new.
                tail.last = Some(DateTime::from_millis(0));
            }
            tail.counts
                .record((c, at_ms), &shard_ids, by_chunk, by_shard);
        }
    }
}

/// Samples of `ns` newer than `last`; the first time (no `last`), only the newest one, to know
/// where the samples end.
async fn read(client: &LiveClient, ns: &str, last: Option<DateTime>) -> Vec<Document> {
    let pipeline = match last {
        Some(t) => vec![
            doc! {"$listSampledQueries": {"namespace": ns}},
            doc! {"$match": {"expireAt": {"$gt": t}}},
            doc! {"$limit": PAGE},
        ],
        None => vec![
            doc! {"$listSampledQueries": {"namespace": ns}},
            doc! {"$group": {"_id": Bson::Null, "expireAt": {"$max": "$expireAt"}}},
        ],
    };
    let cmd = doc! {"aggregate": 1, "pipeline": pipeline, "cursor": {}};
    client.drain("admin", cmd).await.unwrap_or_default()
}

fn count(
    c: &Collection,
    filter: &Document,
    by_chunk: &mut HashMap<usize, (ShardKey, u64)>,
    by_shard: &mut [u64],
) {
    let spans = target_spans(&c.table, &key_ranges(&c.pattern, filter));
    let spanned: usize = spans.iter().map(|&(a, b)| b - a + 1).sum();
    if spanned > SCAN_LIMIT {
        for (s, n) in by_shard.iter_mut().enumerate() {
            if c.table
                .shard_totals(crate::model::ShardIdx(s as u32))
                .chunks
                > 0
            {
                *n += 1;
            }
        }
        return;
    }
    let mut chunks: Vec<usize> = spans.iter().flat_map(|&(a, b)| a..=b).collect();
    chunks.sort_unstable();
    chunks.dedup();
    let mut shards: Vec<usize> = chunks
        .iter()
        .map(|&k| c.table.chunk(k).info.shard.index())
        .collect();
    shards.sort_unstable();
    shards.dedup();
    for s in shards {
        if let Some(n) = by_shard.get_mut(s) {
            *n += 1;
        }
    }
    if chunks.len() <= MAX_CHUNKS {
        for k in chunks {
            by_chunk
                .entry(k)
                .or_insert_with(|| (c.table.chunk(k).min.clone(), 0))
                .1 += 1;
        }
    }
}
