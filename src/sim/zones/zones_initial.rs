//! Zones defined before `shardCollection` (4.0+): `updateZoneKeyRange` on a namespace that is not
//! sharded yet stores the range as given (like `config.tags`), and `shardCollection` of the empty
//! collection takes them and lays out its initial chunks by MongoDB's SingleChunkPerTag policy:
//! one chunk per zone range on a shard of that zone (round-robin among the zone's shards, in
//! `config.shards` order), and one chunk per hole between ranges, round-robin across all shards
//! (from 9.0 across the shards not draining, in their fixed-seed shuffled order).
//!
//! Simplified: pending ranges of one namespace are checked for order (min < max, the same fields)
//! but not for overlap until `shardCollection` adds them. `presplitHashedZones` is in
//! `presplit_zones`.

use bson::Document;

use crate::cluster::ServerVersion;
use crate::cluster::error::MongoError;
use crate::cluster::event::EventKind;
use crate::cluster::zones::{PendingZoneRange, values};
use crate::model::{
    ChunkInfo, ChunkVersion, KeyPattern, RoutingTable, ShardIdx, ShardKey, ZoneRanges,
};
use crate::sim::engine::Simulator;

/// SingleChunkPerTag: the initial chunks of an empty collection with zones.
pub fn single_chunk_per_tag(
    pattern: &KeyPattern,
    zones: &ZoneRanges,
    shards: &[crate::cluster::ShardState],
    version: ServerVersion,
) -> Result<RoutingTable, MongoError> {
    let all: Vec<ShardIdx> = (0..shards.len())
        .filter(|&s| !shards[s].removed)
        .map(|s| ShardIdx(s as u32))
        .collect();
    let holes = hole_shards(shards, version);
    let mut next_hole = 0usize;
    let mut next_in_zone = std::collections::BTreeMap::<&str, usize>::new();
    let mut chunks: Vec<(ShardKey, ShardIdx)> = Vec::new();
    let mut at = pattern.global_min();
    for r in zones.iter() {
        if r.min > at {
            chunks.push((at.clone(), holes[next_hole % holes.len().max(1)]));
            next_hole += 1;
        }
        let members: Vec<ShardIdx> = all
            .iter()
            .copied()
            .filter(|s| shards[s.index()].shard.zones.contains(&r.zone))
            .collect();
        let k = next_in_zone.entry(r.zone.as_str()).or_insert(0);
        let shard = members.get(*k % members.len().max(1)).copied();
        *k += 1;
        let shard = shard
            .ok_or_else(|| MongoError::zone_not_found(format!("zone {} has no shard", r.zone)))?;
        chunks.push((r.min.clone(), shard));
        at = r.max.clone();
    }
    if at < pattern.global_max() {
        chunks.push((at, holes[next_hole % holes.len().max(1)]));
    }
    initial_table(pattern, chunks)
}

/// The shards that take the chunks of the holes between zone ranges, in the order they are dealt:
/// before 9.0 every shard in `config.shards` order; from 9.0 the shards not draining, in the
/// order of the fixed-seed shuffle (as an empty hashed collection's chunks from 8.0). The zones'
/// own chunks keep `config.shards` order (`buildTagsToShardIdsMap`).
// master `db/s/config/initial_split_policy.cpp` (`AbstractTagsBasedSplitPolicy::createFirstChunks`:
// `_availableShardIds.value_or(getAllNonDrainingShardIdsShuffled(opCtx))`, `nextShardIdForHole`);
// 7.0-era copy: `getAllShardIdsSorted`. The release between is not pinned: 9.0 here, as issue 50
// reads it.
pub fn hole_shards(shards: &[crate::cluster::ShardState], version: ServerVersion) -> Vec<ShardIdx> {
    if version < ServerVersion::V9_0 {
        return (0..shards.len())
            .filter(|&s| !shards[s].removed)
            .map(|s| ShardIdx(s as u32))
            .collect();
    }
    let mut live: Vec<ShardIdx> = (0..shards.len())
        .filter(|&s| !shards[s].removed && !shards[s].shard.draining)
        .map(|s| ShardIdx(s as u32))
        .collect();
    crate::sim::std_shuffle::shuffle(&mut live);
    live
}

/// The routing table of initial chunks given by lower bound and shard, versions (1,0), (1,1), …
pub fn initial_table(
    pattern: &KeyPattern,
    layout: Vec<(ShardKey, ShardIdx)>,
) -> Result<RoutingTable, MongoError> {
    let chunks = layout
        .into_iter()
        .enumerate()
        .map(|(i, (min, s))| (min, ChunkInfo::new(s, ChunkVersion::new(1, i as u32))))
        .collect();
    RoutingTable::from_chunks(chunks, pattern.global_max())
        .map_err(|e| MongoError::invalid_options(e.to_string()))
}

impl Simulator {
    /// `updateZoneKeyRange` on a namespace that is not sharded: the range waits for
    /// `shardCollection` (`zone: None` removes the range with exactly these bounds).
    pub(in crate::sim) fn update_pending_zone_range(
        &mut self,
        ns: &str,
        min: &Document,
        max: &Document,
        zone: Option<&str>,
    ) -> Result<(), MongoError> {
        let same_fields = min.keys().eq(max.keys());
        if min.is_empty() || !same_fields || values(min) >= values(max) {
            return Err(MongoError::bad_value(format!(
                "the zone range's min {} must be below its max {}, on the same fields",
                crate::model::shell_text::document(min),
                crate::model::shell_text::document(max)
            )));
        }
        match zone {
            Some(z) => {
                self.require_zone(z)?;
                self.cluster.pending_zones.push(PendingZoneRange {
                    ns: ns.to_string(),
                    min: min.clone(),
                    max: max.clone(),
                    zone: z.to_string(),
                });
            }
            None => self
                .cluster
                .pending_zones
                .retain(|r| !(r.ns == ns && r.min == *min && r.max == *max)),
        }
        self.emit(EventKind::PendingZoneRangeSet {
            ns: ns.to_string(),
            min: Box::new(min.clone()),
            max: Box::new(max.clone()),
            zone: zone.map(String::from),
        });
        Ok(())
    }
}
