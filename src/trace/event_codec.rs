//! Events as trace lines: `{"t": 12.3, "what": "moveChunk.commit", …}`. Bounds are shard-key
//! documents in canonical Extended JSON; shards are named by id.

use std::io::{self, Write};

use serde_json::{Value, json};

use super::json::{key_json, pattern_json, seconds, stats_json};
use crate::cluster::Cluster;
use crate::cluster::defragmentation::DefragmentationPhase;
use crate::cluster::event::MigrationRange;
use crate::cluster::{Event, EventKind, MongoError};
use crate::model::{KeyPattern, ShardIdx, ShardKey};

mod decode;
pub(crate) use decode::error_of;
pub use decode::{decode, document_at, pattern_of, reason_of};

/// Names and patterns needed to write events: the state they were emitted from.
pub struct Names<'a> {
    pub state: &'a Cluster,
}

impl Names<'_> {
    fn shard(&self, s: ShardIdx) -> Value {
        Value::String(self.state.shard_id(s).to_string())
    }

    fn key(&self, ns: &str, k: &ShardKey) -> Value {
        key_json(self.state.collection(ns).map(|c| &c.pattern), k)
    }

    fn keys(&self, ns: &str, ks: &[ShardKey]) -> Value {
        Value::Array(ks.iter().map(|k| self.key(ns, k)).collect())
    }
}

pub(crate) fn error_json(e: &MongoError) -> Value {
    json!({"code": e.code, "codeName": e.code_name, "errmsg": e.message})
}

/// The trace line of an event.
pub fn encode(e: &Event, names: &Names<'_>) -> Value {
    with_time(e, body(&e.kind, names))
}

/// An event's body with its time and its name, the fields in order.
fn with_time(e: &Event, mut v: Value) -> Value {
    if let Value::Object(map) = &mut v {
        map.insert("t".into(), seconds(e.at_ms));
        map.insert("what".into(), Value::String(e.kind.what().into()));
        map.sort_keys();
    }
    v
}

/// Writes the trace line of an event (without its newline) to `w`: byte for byte `encode`'s
/// serialized, but a collection's initial layout (a million entries when it is sharded with a
/// million initial chunks) is turned into JSON one entry at a time as it is written.
pub fn write(e: &Event, names: &Names<'_>, w: &mut dyn Write) -> io::Result<()> {
    let EventKind::CollectionSharded {
        ns,
        key,
        chunks,
        layout,
    } = &e.kind
    else {
        return serde_json::to_writer(w, &encode(e, names)).map_err(io::Error::other);
    };
    let line = with_time(
        e,
        json!({"ns": ns, "key": pattern_json(key), "chunks": chunks, "layout": Value::Null}),
    );
    let entries = Layout {
        n: names,
        key,
        entries: layout,
    };
    let line = super::state_codec::streamed::Replaced {
        v: &line,
        at: "layout",
        with: &entries,
    };
    serde_json::to_writer(w, &line).map_err(io::Error::other)
}

/// One entry of a sharded collection's initial layout.
fn layout_json(n: &Names<'_>, key: &KeyPattern, min: &ShardKey, s: ShardIdx) -> Value {
    json!({"min": key_json(Some(key), min), "shard": n.shard(s)})
}

/// A collection's initial layout, serialized entry by entry.
struct Layout<'a> {
    n: &'a Names<'a>,
    key: &'a KeyPattern,
    entries: &'a [(ShardKey, ShardIdx)],
}

impl serde::Serialize for Layout<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let mut seq = s.serialize_seq(Some(self.entries.len()))?;
        for (min, shard) in self.entries {
            seq.serialize_element(&layout_json(self.n, self.key, min, *shard))?;
        }
        seq.end()
    }
}

#[allow(clippy::too_many_lines)] // one arm per event kind
fn body(kind: &EventKind, n: &Names<'_>) -> Value {
    match kind {
        EventKind::ShardAdded { id, .. } => json!({"id": id}),
        EventKind::CollectionSharded {
            ns,
            key,
            chunks,
            layout,
        } => json!({
            "ns": ns, "key": pattern_json(key), "chunks": chunks,
            "layout": layout.iter().map(|(min, s)| layout_json(n, key, min, *s)).collect::<Vec<_>>(),
        }),
        EventKind::Split {
            ns,
            min,
            max,
            points,
            shard,
            pieces,
            cause,
        } => json!({
            "ns": ns, "min": n.key(ns, min), "max": n.key(ns, max), "points": n.keys(ns, points),
            "shard": n.shard(*shard), "pieces": pieces.iter().map(|p| stats_json(*p)).collect::<Vec<_>>(),
            "cause": format!("{cause:?}").to_lowercase(),
        }),
        EventKind::SplitFailed {
            ns,
            min,
            max,
            shard,
            error,
        } => json!({
            "ns": ns, "min": n.key(ns, min), "max": n.key(ns, max), "shard": n.shard(*shard), "error": error_json(error),
        }),
        EventKind::Merge {
            ns,
            min,
            max,
            shard,
            chunks,
            auto,
        } => {
            let mut v = json!({
                "ns": ns, "min": n.key(ns, min), "max": n.key(ns, max), "shard": n.shard(*shard), "chunks": chunks,
            });
            if *auto {
                v["autoMerger"] = json!(true);
            }
            v
        }
        EventKind::MigrationStarted {
            range,
            reason,
            bytes,
        } => with_range(n, range, json!({"reason": reason.as_str(), "bytes": bytes})),
        EventKind::MigrationCommitted {
            range,
            moved,
            millis,
        } => with_range(
            n,
            range,
            json!({"moved": stats_json(*moved), "millis": millis}),
        ),
        EventKind::MigrationFailed { range, error } => {
            with_range(n, range, json!({"error": error_json(error)}))
        }
        EventKind::JumboMarked {
            ns,
            min,
            max,
            shard,
        }
        | EventKind::JumboCleared {
            ns,
            min,
            max,
            shard,
        } => json!({
            "ns": ns, "min": n.key(ns, min), "max": n.key(ns, max), "shard": n.shard(*shard),
        }),
        EventKind::RangeDeleted {
            ns,
            min,
            max,
            shard,
            docs,
            bytes,
        } => json!({
            "ns": ns, "min": n.key(ns, min), "max": n.key(ns, max), "shard": n.shard(*shard),
            "docs": docs, "bytes": bytes,
        }),
        EventKind::BalancerRound {
            round,
            candidates,
            moved,
            failed,
            millis,
            why_not,
        } => json!({
            "round": round, "candidates": candidates, "moved": moved, "failed": failed, "millis": millis, "whyNot": why_not,
        }),
        EventKind::BalancerRoundStarted {
            round,
            candidates,
            why_not,
        } => json!({"round": round, "candidates": candidates, "whyNot": why_not}),
        EventKind::BalancerIdle { why_not } => json!({"whyNot": why_not}),
        EventKind::BalancerSet { enabled }
        | EventKind::AutoMergerSet { enabled }
        | EventKind::AttemptToBalanceJumboChunksSet { enabled } => {
            json!({"enabled": enabled})
        }
        EventKind::ChunkSizeSet { bytes } => json!({"bytes": bytes}),
        EventKind::DefragmentationPhaseSet { ns, phase } => {
            json!({"ns": ns, "phase": phase.map(DefragmentationPhase::as_str)})
        }
        EventKind::CollectionBalancingSet {
            ns,
            max_chunk_size_bytes,
            auto_merge,
            no_balance,
            migrations_blocked,
        } => {
            let mut v = json!({"ns": ns, "maxChunkSizeBytes": max_chunk_size_bytes, "enableAutoMerge": auto_merge});
            if *no_balance {
                v["noBalance"] = json!(true);
            }
            if *migrations_blocked {
                v["permitMigrations"] = json!(false);
            }
            v
        }
        EventKind::IndexCreated { ns, key, unique } => {
            json!({"ns": ns, "key": pattern_json(key), "unique": unique})
        }
        EventKind::KeyRefined { ns, key } | EventKind::IndexDropped { ns, key } => {
            json!({"ns": ns, "key": pattern_json(key)})
        }
        EventKind::CollectionDropped { ns } => json!({ "ns": ns }),
        EventKind::PrimaryMoved { db, from, to } => {
            json!({"db": db, "from": n.shard(*from), "to": n.shard(*to)})
        }
        EventKind::ShardDraining { shard }
        | EventKind::ShardRemoved { shard }
        | EventKind::ShardDrainingStopped { shard } => {
            json!({"shard": n.shard(*shard)})
        }
        EventKind::ShardZoneSet { shard, zone, .. } => {
            json!({"shard": n.shard(*shard), "zone": zone})
        }
        EventKind::ZoneRangeSet { ns, min, max, zone } => json!({
            "ns": ns, "min": n.key(ns, min), "max": n.key(ns, max), "zone": zone,
        }),
        EventKind::PendingZoneRangeSet { ns, min, max, zone } => json!({
            "ns": ns, "pending": true, "zone": zone,
            "min": bson::Bson::Document((**min).clone()).into_canonical_extjson(),
            "max": bson::Bson::Document((**max).clone()).into_canonical_extjson(),
        }),
        EventKind::ShardKeyUpdated {
            ns,
            from,
            to,
            bytes,
        } => json!({"ns": ns, "oldKey": n.key(ns, from), "newKey": n.key(ns, to), "bytes": bytes}),
        EventKind::DocumentDeleted { ns, key, bytes } => {
            json!({"ns": ns, "key": n.key(ns, key), "bytes": bytes})
        }
        EventKind::ReshardingStarted {
            ns,
            key,
            docs,
            bytes,
            clone_ms,
            num_initial_chunks,
            provenance,
        } => json!({
            "ns": ns, "key": pattern_json(key), "docs": docs, "bytes": bytes, "cloneMillis": clone_ms,
            "numInitialChunks": num_initial_chunks, "provenance": provenance.as_str(),
        }),
        EventKind::ReshardingCommitted {
            ns,
            key,
            layout,
            zones,
            unsplittable,
            millis,
            critical_section_ms,
            blocked_writes,
        } => json!({
            "ns": ns, "key": pattern_json(key), "millis": millis,
            "criticalSectionMillis": critical_section_ms, "blockedWrites": blocked_writes,
            "unsplittable": unsplittable,
            "zones": zones.iter().map(|z| json!({
                "min": key_json(Some(key), &z.min), "max": key_json(Some(key), &z.max), "zone": z.zone,
            })).collect::<Vec<_>>(),
            "layout": layout.iter().map(|(min, s, stats)| json!({
                "min": key_json(Some(key), min), "shard": n.shard(*s), "docs": stats.docs, "bytes": stats.bytes,
            })).collect::<Vec<_>>(),
        }),
        EventKind::ReshardingAborted { ns, key, error } => json!({
            "ns": ns, "key": pattern_json(key), "error": error_json(error),
        }),
        EventKind::ActionFailed {
            path,
            command,
            error,
        } => json!({
            "path": path, "command": command, "error": error_json(error),
        }),
        EventKind::Writes { ns, chunks } => json!({
            "ns": ns,
            "chunks": chunks.iter().map(|c| json!({
                "min": n.key(ns, &c.min), "docs": c.stats.docs, "bytes": c.stats.bytes, "writes": c.stats.writes,
                "key": n.key(ns, &c.sample),
            })).collect::<Vec<_>>(),
        }),
    }
}

/// A migration event's line: its own fields plus the shared `id, ns, min, max, from, to`.
fn with_range(n: &Names<'_>, r: &MigrationRange, mut own: Value) -> Value {
    if let Value::Object(map) = &mut own {
        map.insert("id".into(), json!(r.id));
        map.insert("ns".into(), json!(r.ns));
        map.insert("min".into(), n.key(&r.ns, &r.min));
        map.insert("max".into(), n.key(&r.ns, &r.max));
        map.insert("from".into(), n.shard(r.from));
        map.insert("to".into(), n.shard(r.to));
    }
    own
}
