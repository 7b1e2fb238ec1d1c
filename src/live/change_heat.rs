//! Write heat from change streams (`--heat changestream`, opt-in): one `$changeStream` cursor per
//! sharded collection, drained at each poll with short `getMore`s; each event's `documentKey`
//! is mapped to its chunk (hashing hashed fields) and counted, so the views and the summary get
//! the same recent-writes window and per-shard counts the simulator keeps. Under load at most
//! `MAX_EVENTS` events are read per collection and poll (the rest wait for the next poll).

use std::collections::HashMap;

use bson::{Document, doc};

use super::client::LiveClient;
use super::heat_counts::{HeatCounts, shard_ids};
use crate::cluster::Cluster;
use crate::model::ShardKey;

const MAX_EVENTS: usize = 50_000;

struct Stream {
    cursor: i64,
    counts: HeatCounts,
}

/// The change streams of the watched collections.
#[derive(Default)]
pub struct ChangeHeat {
    streams: HashMap<String, Stream>,
}

fn batch(reply: &Document, key: &str) -> (Vec<Document>, i64) {
    let Ok(cursor) = reply.get_document("cursor") else {
        return (Vec::new(), 0);
    };
    let docs = cursor
        .get_array(key)
        .map(|a| a.iter().filter_map(|d| d.as_document().cloned()).collect())
        .unwrap_or_default();
    (docs, cursor.get_i64("id").unwrap_or(0))
}

impl ChangeHeat {
    /// Each collection's counts by chunk since the last take.
    pub fn take_counted(&mut self) -> Vec<(String, Vec<(ShardKey, u64)>)> {
        self.streams
            .iter_mut()
            .map(|(ns, s)| (ns.clone(), s.counts.take()))
            .collect()
    }

    /// Opens streams for new collections and reads what happened since the last poll; then
    /// gives `state` its windows and counts.
    pub async fn observe(&mut self, client: &LiveClient, state: &mut Cluster) {
        let names = state.namespaces();
        let mut events: HashMap<String, Vec<Document>> = HashMap::new();
        for ns in names {
            let (db, coll) = ns.split_once('.').unwrap_or((ns.as_str(), ""));
            if !self.streams.contains_key(&ns) {
                let cmd =
                    doc! {"aggregate": coll, "pipeline": [{"$changeStream": {}}], "cursor": {}};
                if let Ok(reply) = client.command(db, cmd).await {
                    let (first, id) = batch(&reply, "firstBatch");
                    events.entry(ns.clone()).or_default().extend(first);
                    self.streams.insert(
                        ns.clone(),
                        Stream {
                            cursor: id,
                            counts: HeatCounts::default(),
                        },
                    );
                }
                continue;
            }
            let Some(s) = self.streams.get(&ns) else {
                continue;
            };
            let id = s.cursor;
            let seen = events.entry(ns.clone()).or_default();
            while id != 0 && seen.len() < MAX_EVENTS {
                let cmd =
                    doc! {"getMore": id, "collection": coll, "batchSize": 10_000, "maxTimeMS": 10};
                let Ok(reply) = client.command(db, cmd).await else {
                    break;
                };
                let (more, _) = batch(&reply, "nextBatch");
                if more.is_empty() {
                    break;
                }
                seen.extend(more);
            }
        }
        self.apply(state, &events);
    }

    fn apply(&mut self, state: &mut Cluster, events: &HashMap<String, Vec<Document>>) {
        let shard_ids = shard_ids(state);
        let at_ms = state.now_ms;
        for c in &mut state.collections {
            let Some(stream) = self.streams.get_mut(&c.ns) else {
                continue;
            };
            let mut by_chunk: HashMap<usize, (ShardKey, u64)> = HashMap::new();
            let mut by_shard = vec![0u64; shard_ids.len()];
            for e in events.get(&c.ns).map(Vec::as_slice).unwrap_or_default() {
                let Ok(dk) = e.get_document("documentKey") else {
                    continue;
                };
                let Ok(key) = c.pattern.extract(dk) else {
                    continue;
                };
                let chunk = c.table.route(&key);
                let shard = c.table.chunk(chunk).info.shard.index();
                by_chunk.entry(chunk).or_insert((key, 0)).1 += 1;
                if let Some(n) = by_shard.get_mut(shard) {
                    *n += 1;
                }
            }
            stream
                .counts
                .record((c, at_ms), &shard_ids, by_chunk, by_shard);
        }
    }
}
