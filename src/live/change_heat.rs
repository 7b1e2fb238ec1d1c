//! Write heat from change streams (`--heat changestream`, opt-in): one `$changeStream` cursor per
//! sharded collection, drained at each poll with short `getMore`s; each event's `documentKey`
//! is mapped to its chunk (hashing hashed fields) and counted, so the views and the summary get
//! the same recent-writes window and per-shard counts the simulator keeps. Each poll reads at
//! most [`Bounds::CHANGE_EVENTS_PER_POLL`] of a collection's stream (events, bytes, `getMore`s)
//! and keeps only each event's `documentKey`; past a bound the rest wait in the stream for the
//! next poll, and a note names the read.

use std::collections::HashMap;

use bson::{Document, doc};

use super::bounds::{Bounds, Tally, read_name};
use super::client::LiveClient;
use super::heat_counts::{HeatCounts, shard_ids};
use crate::cluster::Cluster;
use crate::model::ShardKey;

struct Stream {
    cursor: i64,
    counts: HeatCounts,
}

/// The change streams of the watched collections.
#[derive(Default)]
pub struct ChangeHeat {
    streams: HashMap<String, Stream>,
}

/// The `documentKey`s of a batch's events, counted against `tally`; the note once past it (the
/// whole batch is counted all the same: the stream has moved past it, so no more is asked for).
fn keys_of(events: Vec<Document>, tally: &mut Tally, seen: &mut Vec<Document>) -> Option<String> {
    let mut past = None;
    for e in events {
        let bytes = bson::to_vec(&e).map_or(0, |v| v.len());
        if let Err(err) = tally.document(bytes) {
            past.get_or_insert(err.message);
        }
        if let Ok(dk) = e.get_document("documentKey") {
            seen.push(dk.clone());
        }
    }
    past
}

/// Whether a change stream can be opened on `ns`: never on the `admin`, `config` or `local`
/// databases nor on a `system.` collection ("$changeStream may not be opened on the internal
/// … database", InvalidNamespace: `src/mongo/db/pipeline/document_source_change_stream.cpp`).
pub fn streamable(ns: &str) -> bool {
    let (db, coll) = ns.split_once('.').unwrap_or((ns, ""));
    !matches!(db, "admin" | "config" | "local") && !coll.starts_with("system.")
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

/// A bound's message as a note: the heat of the rest comes at the next poll.
fn later(past: &str) -> String {
    format!(
        "heat from change streams: {past}; the events past it stay in the stream for the next poll"
    )
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
    /// gives `state` its windows and counts. Returns a note per stream read up to its bound.
    pub async fn observe(&mut self, client: &LiveClient, state: &mut Cluster) -> Vec<String> {
        let names = state.namespaces();
        let mut notes = Vec::new();
        let mut events: HashMap<String, Vec<Document>> = HashMap::new();
        for ns in names.into_iter().filter(|ns| streamable(ns)) {
            let (db, coll) = ns.split_once('.').unwrap_or((ns.as_str(), ""));
            if !self.streams.contains_key(&ns) {
                let cmd =
                    doc! {"aggregate": coll, "pipeline": [{"$changeStream": {}}], "cursor": {}};
                let name = read_name(db, &cmd);
                if let Ok(reply) = client.command(db, cmd).await {
                    let (first, id) = batch(&reply, "firstBatch");
                    let mut tally = Tally::held(name, Bounds::CHANGE_EVENTS_PER_POLL);
                    let seen = events.entry(ns.clone()).or_default();
                    notes.extend(keys_of(first, &mut tally, seen).map(|n| later(&n)));
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
            if id == 0 {
                continue;
            }
            let mut tally = None;
            loop {
                let cmd =
                    doc! {"getMore": id, "collection": coll, "batchSize": 10_000, "maxTimeMS": 10};
                let tally = tally.get_or_insert_with(|| {
                    Tally::held(read_name(db, &cmd), Bounds::CHANGE_EVENTS_PER_POLL)
                });
                if let Err(past) = tally.get_more() {
                    notes.push(later(&past.message));
                    break;
                }
                let Ok(reply) = client.command(db, cmd).await else {
                    break;
                };
                let (more, _) = batch(&reply, "nextBatch");
                if more.is_empty() {
                    break;
                }
                if let Some(note) = keys_of(more, tally, seen) {
                    notes.push(later(&note));
                    break;
                }
            }
        }
        self.apply(state, &events);
        notes
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
            for dk in events.get(&c.ns).map(Vec::as_slice).unwrap_or_default() {
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
