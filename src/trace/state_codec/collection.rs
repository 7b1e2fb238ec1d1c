//! Keyframe collections read back: chunks, recent-writes window, zones, orphaned ranges and the
//! rest of a collection's state.

use serde_json::Value;

use super::shard_of;
use crate::cluster::defragmentation::DefragmentationPhase;
use crate::cluster::orphans::{RangeDeletion, RangeDeletions};
use crate::cluster::resharding::Resharding;
use crate::cluster::window::WriteWindow;
use crate::cluster::{Cluster, Collection, Index};
use crate::model::{ChunkInfo, ChunkStats, ChunkVersion, RoutingTable, ShardIdx, ShardKey};
use crate::trace::json::{Res, array_at, bool_at, key_at, key_of, pattern_at, str_at, u64_at};

/// The fields of a keyframe's chunk.
pub(in crate::trace) struct ChunkFields {
    pub shard: ShardIdx,
    pub major: u64,
    pub minor: u64,
    pub stats: ChunkStats,
    pub jumbo: bool,
    pub since: u64,
    pub written: u64,
}

impl ChunkFields {
    pub fn info(&self) -> ChunkInfo {
        let mut info = ChunkInfo::new(
            self.shard,
            ChunkVersion::new(self.major as u32, self.minor as u32),
        );
        info.stats = self.stats;
        info.jumbo = self.jumbo;
        info.since = self.since;
        info.bytes_written = self.written;
        info
    }
}

/// A collection's chunks and recent-writes window, when already read (by the fast path).
pub(in crate::trace) struct Heavy {
    pub chunks: Vec<(ShardKey, ChunkInfo)>,
    pub window: WriteWindow,
}

fn chunks_of(cluster: &Cluster, v: &Value, p: &str) -> Res<Vec<(ShardKey, ChunkInfo)>> {
    let mut chunks = Vec::new();
    for (i, ch) in array_at(v, "chunks", p)?.iter().enumerate() {
        let cp = format!("{p}chunks[{i}].");
        let shard = shard_of(cluster, str_at(ch, "shard", &cp)?, &format!("{cp}shard"))?;
        let ver = array_at(ch, "v", &cp)?;
        let part = |j: usize| {
            ver.get(j)
                .and_then(Value::as_u64)
                .ok_or_else(|| format!("field `{cp}v`: expected [major, minor]"))
        };
        let fields = ChunkFields {
            shard,
            major: part(0)?,
            minor: part(1)?,
            stats: ChunkStats::new(
                u64_at(ch, "docs", &cp)?,
                u64_at(ch, "bytes", &cp)?,
                u64_at(ch, "writes", &cp)?,
            ),
            jumbo: bool_at(ch, "jumbo", &cp)?,
            since: u64_at(ch, "since", &cp)?,
            written: ch.get("written").and_then(Value::as_u64).unwrap_or(0),
        };
        chunks.push((key_at(ch, "min", &cp)?, fields.info()));
    }
    Ok(chunks)
}

/// A keyframe's collection; `heavy` holds its chunks and window if they are read already.
pub(in crate::trace) fn collection_of(
    cluster: &Cluster,
    v: &Value,
    p: &str,
    heavy: Option<Heavy>,
) -> Res<Collection> {
    let ns = str_at(v, "ns", p)?;
    let pattern = pattern_at(v, "key", p)?;
    let (chunks, window) = match heavy {
        Some(h) => (h.chunks, Some(h.window)),
        None => (chunks_of(cluster, v, p)?, None),
    };
    crate::trace::keyframe_sanity::chunks(&chunks, &pattern, p)?;
    let table = RoutingTable::from_chunks(chunks, pattern.global_max())
        .map_err(|e| format!("field `{p}chunks`: {e}"))?;
    let mut coll = Collection::new(ns, pattern, table);
    coll.incarnation = u64_at(v, "incarnation", p)? as u32;
    coll.routed_writes = array_at(v, "routedWrites", p)?
        .iter()
        .map(|n| n.as_u64().unwrap_or(0))
        .collect();
    coll.indexes = array_at(v, "indexes", p)?
        .iter()
        .enumerate()
        .map(|(i, ix)| {
            let ip = format!("{p}indexes[{i}].");
            Ok(Index {
                key: pattern_at(ix, "key", &ip)?,
                unique: bool_at(ix, "unique", &ip)?,
            })
        })
        .collect::<Res<_>>()?;
    for (i, z) in array_at(v, "zones", p)?.iter().enumerate() {
        let zp = format!("{p}zones[{i}].");
        coll.zones
            .add(
                key_at(z, "min", &zp)?,
                key_at(z, "max", &zp)?,
                str_at(z, "zone", &zp)?,
            )
            .map_err(|e| format!("field `{zp}`: {e}"))?;
    }
    coll.range_deletions = range_deletions_of(cluster, v, p)?;
    coll.defragmentation = defragmentation_of(v, p)?;
    coll.placement = placement_of(v, p)?;
    coll.timeseries = v
        .get("timeseries")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    if let Some(b) = v.get("balancing") {
        coll.balancing.max_chunk_size_bytes = b.get("maxChunkSizeBytes").and_then(Value::as_u64);
        coll.balancing.auto_merge = b.get("enableAutoMerge").and_then(Value::as_bool);
        coll.balancing.no_balance = b.get("noBalance").and_then(Value::as_bool).unwrap_or(false);
    }
    coll.window = match window {
        Some(w) => w,
        None => window_of(v, p)?,
    };
    coll.resharding = resharding_of(v, p)?;
    super::observed::decode_collection(cluster, v, p, &mut coll)?;
    Ok(coll)
}

/// The recent-writes window. A tick without `atMs` (traces older than the field kept the last
/// 100 ticks that had writes, however old) is left out: when its writes happened is unknown.
fn window_of(v: &Value, p: &str) -> Res<WriteWindow> {
    let mut window = WriteWindow::new();
    for (i, t) in array_at(v, "window", p)?.iter().enumerate() {
        let tp = format!("{p}window[{i}].");
        let keys = array_at(t, "keys", &tp)?
            .iter()
            .enumerate()
            .map(|(j, pair)| {
                let kp = format!("{tp}keys[{j}]");
                let key = pair
                    .get(0)
                    .ok_or_else(|| format!("field `{kp}`: expected [key, count]"))?;
                let n = pair
                    .get(1)
                    .and_then(Value::as_u64)
                    .ok_or_else(|| format!("field `{kp}`: expected [key, count]"))?;
                Ok((key_of(key, &kp)?, n))
            })
            .collect::<Res<Vec<_>>>()?;
        let shards = array_at(t, "shards", &tp)?
            .iter()
            .map(|n| n.as_u64().unwrap_or(0))
            .collect();
        if let Some(at) = t.get("atMs").and_then(Value::as_u64) {
            window.restore(at, keys, shards);
        }
    }
    Ok(window)
}

/// The orphaned ranges of a keyframe's collection (none in traces older than the field).
fn range_deletions_of(cluster: &Cluster, v: &Value, p: &str) -> Res<RangeDeletions> {
    let Some(list) = v.get("rangeDeletions") else {
        return Ok(RangeDeletions::default());
    };
    let list = list
        .as_array()
        .ok_or_else(|| format!("field `{p}rangeDeletions`: expected an array"))?;
    list.iter()
        .enumerate()
        .map(|(i, r)| {
            let rp = format!("{p}rangeDeletions[{i}].");
            Ok(RangeDeletion {
                shard: shard_of(cluster, str_at(r, "shard", &rp)?, &format!("{rp}shard"))?,
                min: key_at(r, "min", &rp)?,
                max: key_at(r, "max", &rp)?,
                docs: u64_at(r, "docs", &rp)?,
                bytes: u64_at(r, "bytes", &rp)?,
                due_ms: u64_at(r, "dueMs", &rp)?,
            })
        })
        .collect()
}

/// A keyframe collection's `defragmentationPhase` (absent or null: none).
fn defragmentation_of(v: &Value, p: &str) -> Res<Option<DefragmentationPhase>> {
    let Some(name) = v.get("defragmentationPhase").and_then(Value::as_str) else {
        return Ok(None);
    };
    DefragmentationPhase::parse(name)
        .map(Some)
        .ok_or_else(|| format!("field `{p}defragmentationPhase`: unknown phase \"{name}\""))
}

/// A keyframe collection's `placement` (absent: sharded).
fn placement_of(v: &Value, p: &str) -> Res<crate::cluster::Placement> {
    let Some(name) = v.get("placement").and_then(Value::as_str) else {
        return Ok(crate::cluster::Placement::Sharded);
    };
    crate::cluster::Placement::parse(name)
        .ok_or_else(|| format!("field `{p}placement`: unknown placement \"{name}\""))
}

/// A keyframe collection's `resharding` (null: none).
fn resharding_of(v: &Value, p: &str) -> Res<Option<Resharding>> {
    Ok(match v.get("resharding") {
        None | Some(Value::Null) => None,
        Some(r) => {
            let rp = format!("{p}resharding.");
            let mut out = Resharding::new(
                pattern_at(r, "key", &rp)?,
                u64_at(r, "numInitialChunks", &rp)? as u32,
                u64_at(r, "startedMs", &rp)?,
                u64_at(r, "readyMs", &rp)?,
            );
            if let Some(name) = r.get("provenance").and_then(Value::as_str) {
                out.provenance =
                    crate::cluster::resharding::Provenance::parse(name).ok_or_else(|| {
                        format!("field `{rp}provenance`: unknown provenance \"{name}\"")
                    })?;
            }
            Some(out)
        }
    })
}
