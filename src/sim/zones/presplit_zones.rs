//! `shardCollection` with `presplitHashedZones: true` (4.4+; reference §3.9): the initial chunks
//! of an empty collection whose key has a hashed field, laid out from the zone ranges defined
//! before it was sharded (MongoDB's PresplitHashedZonesSplitPolicy).
//!
//! - A hashed-prefix key needs exactly one zone range, covering `[MinKey, MaxKey)`.
//! - Otherwise every range's lower bound gives concrete values for the fields before the hashed
//!   field and MinKey from the hashed field on.
//! - Each range is cut at evenly spaced hashed values so that every shard of its zone gets
//!   `ceil(numInitialChunks / shards carrying any zone / zones on that shard)` contiguous chunks;
//!   `numInitialChunks` defaults to 2 × the shards carrying any zone. From 7.2 every shard of the
//!   zone gets exactly one chunk (8.0.10 `db/s/config/initial_split_policy.cpp`,
//!   `PresplitHashedZonesSplitPolicy::buildSplitInfoForTag`: `chunkDistribution.push_back({shard,
//!   1})`). Holes between ranges get one chunk each, round-robin across all shards (as
//!   SingleChunkPerTag), from 8.0 in the order of the shards' fixed-seed shuffle. From 9.0 the
//!   zones' chunks go to their shards in `config.shards` order and only the holes follow the
//!   shuffle of the shards not draining (master's `initial_split_policy.cpp`).
//!
//! The refusals are InvalidOptions as in MongoDB; their wording is ours.

use std::collections::{BTreeMap, BTreeSet};

use crate::cluster::error::MongoError;
use crate::cluster::{ServerVersion, ShardState};
use crate::model::{
    KeyPattern, KeyValue, RoutingTable, ShardIdx, ShardKey, ZoneRange, ZoneRanges,
    hashed_split_points,
};

fn live(shards: &[ShardState]) -> Vec<ShardIdx> {
    (0..shards.len())
        .filter(|&s| !shards[s].removed && !shards[s].shard.draining)
        .map(|s| ShardIdx(s as u32))
        .collect()
}

fn check_bounds(pattern: &KeyPattern, hashed: usize, zones: &ZoneRanges) -> Result<(), MongoError> {
    if hashed == 0 {
        let whole = zones.len() == 1
            && zones
                .iter()
                .all(|r| r.min == pattern.global_min() && r.max == pattern.global_max());
        if !whole {
            return Err(MongoError::invalid_options(
                "presplitHashedZones with a hashed-prefix shard key needs exactly one zone range, covering [MinKey, MaxKey)",
            ));
        }
        return Ok(());
    }
    for r in zones.iter() {
        let values: Vec<&KeyValue> = r.min.values().collect();
        let prefix_ok = values[..hashed]
            .iter()
            .all(|v| !matches!(v, KeyValue::MinKey | KeyValue::MaxKey));
        let rest_ok = values[hashed..].iter().all(|v| **v == KeyValue::MinKey);
        if !prefix_ok || !rest_ok {
            return Err(MongoError::invalid_options(format!(
                "presplitHashedZones: the lower bound of zone {}'s range must give the fields before the hashed field and MinKey from the hashed field on",
                r.zone
            )));
        }
    }
    Ok(())
}

/// The chunk lower bounds inside one zone range: its min, then the hashed split points with the
/// range's prefix (and MinKey for the fields after the hashed one), kept below the range's max.
fn range_mins(r: &ZoneRange, hashed: usize, pieces: u32) -> Vec<ShardKey> {
    let prefix: Vec<KeyValue> = r.min.values().take(hashed).cloned().collect();
    let width = r.min.values().count();
    let mut mins = vec![r.min.clone()];
    for p in hashed_split_points(pieces) {
        let mut values = prefix.clone();
        values.push(KeyValue::Int64(p));
        values.extend(std::iter::repeat_n(KeyValue::MinKey, width - hashed - 1));
        if let Some(k) = ShardKey::from_values(values)
            && k > r.min
            && k < r.max
        {
            mins.push(k);
        }
    }
    mins
}

/// The initial routing table; `zones` are the collection's ranges (from the pending ones).
pub fn presplit_hashed_zones(
    pattern: &KeyPattern,
    zones: &ZoneRanges,
    shards: &[ShardState],
    num_initial_chunks: Option<u32>,
    version: ServerVersion,
) -> Result<RoutingTable, MongoError> {
    let hashed = pattern.hashed_field().ok_or_else(|| {
        MongoError::invalid_options(
            "presplitHashedZones is only supported for a shard key with a hashed field",
        )
    })?;
    if zones.is_empty() {
        return Err(MongoError::invalid_options(
            "presplitHashedZones needs zone ranges defined for the namespace before shardCollection (updateZoneKeyRange)",
        ));
    }
    check_bounds(pattern, hashed, zones)?;
    let mut all = live(shards);
    if version >= ServerVersion::V9_0 {
        // master `db/s/config/initial_split_policy.cpp`: the zones' shards come from
        // `config.shards` in its order (`buildTagsToShardIdsMap`, draining ones included), only
        // the holes from the shuffled shards not draining (`createFirstChunks`).
        all = (0..shards.len())
            .filter(|&s| !shards[s].removed)
            .map(|s| ShardIdx(s as u32))
            .collect();
    } else if version >= ServerVersion::V8_0 {
        crate::sim::std_shuffle::shuffle(&mut all);
    }
    let holes = if version >= ServerVersion::V9_0 {
        crate::sim::zones::zones_initial::hole_shards(shards, version)
    } else {
        all.clone()
    };
    let one_per_shard = version >= ServerVersion::V7_2;
    let used: BTreeSet<&str> = zones.iter().map(|r| r.zone.as_str()).collect();
    let zones_on: BTreeMap<ShardIdx, usize> = all
        .iter()
        .map(|&s| {
            let carried = &shards[s.index()].shard.zones;
            (s, used.iter().filter(|z| carried.contains(**z)).count())
        })
        .filter(|&(_, n)| n > 0)
        .collect();
    let with_zones = zones_on.len().max(1) as u32;
    let n = num_initial_chunks.unwrap_or(2 * with_zones).max(1);
    let mut layout: Vec<(ShardKey, ShardIdx)> = Vec::new();
    let mut next_hole = 0usize;
    let mut at = pattern.global_min();
    for r in zones.iter() {
        if r.min > at {
            layout.push((at.clone(), holes[next_hole % holes.len().max(1)]));
            next_hole += 1;
        }
        let members: Vec<(ShardIdx, u32)> = all
            .iter()
            .filter(|s| shards[s.index()].shard.zones.contains(&r.zone))
            .map(|s| {
                let on = zones_on.get(s).copied().unwrap_or(1).max(1) as u32;
                let k = if one_per_shard {
                    1
                } else {
                    n.div_ceil(with_zones).div_ceil(on).max(1)
                };
                (*s, k)
            })
            .collect();
        if members.is_empty() {
            return Err(MongoError::zone_not_found(format!(
                "zone {} has no shard",
                r.zone
            )));
        }
        let pieces: u32 = members.iter().map(|(_, k)| k).sum();
        let owners = members
            .iter()
            .flat_map(|&(s, k)| std::iter::repeat_n(s, k as usize));
        layout.extend(range_mins(r, hashed, pieces).into_iter().zip(owners));
        at = r.max.clone();
    }
    if at < pattern.global_max() {
        layout.push((at, holes[next_hole % holes.len().max(1)]));
    }
    crate::sim::zones::zones_initial::initial_table(pattern, layout)
}
