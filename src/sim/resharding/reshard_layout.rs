//! What a resharding is asked to produce and how its new chunks are laid out: `shardDistribution`
//! (7.2+: the shards, or the ranges each gets) and `zones` (the new key's zone ranges), validated
//! as the config server does, then the new chunks: the given ranges as they are, or quantiles of
//! the re-keyed documents (cut at zone bounds) dealt over the given shards — a zone's chunks over
//! that zone's shards.
// 8.0 `db/s/resharding/resharding_util.cpp` (`validateShardDistribution`,
// `checkForOverlappingZones`), `db/s/config/configsvr_reshard_collection_cmd.cpp` ("Must specify
// value for zones field"), `db/s/resharding/resharding_coordinator_service.cpp`
// (`getZonesFromExistingCollection` with `forceRedistribution`).
//
// Simplified: a range of an explicit `shardDistribution` becomes one chunk (MongoDB may split it
// further at sampled points).

use std::collections::BTreeMap;

use crate::cluster::error::MongoError;
use crate::cluster::resharding::{NewChunk, Provenance, Resharding, ShardKeyRange};
use crate::cluster::{Collection, ServerVersion};
use crate::model::zones::ZoneRange;
use crate::model::{KeyPattern, ShardIdx, ShardKey};
use crate::sim::engine::Simulator;

/// A resharding's request: `reshardCollection`'s fields, or what `moveCollection` and
/// `unshardCollection` ask for.
#[derive(Clone, Debug)]
pub struct ReshardRequest {
    pub key: KeyPattern,
    pub num_initial_chunks: Option<u32>,
    pub force_redistribution: bool,
    pub provenance: Provenance,
    pub distribution: Vec<ShardKeyRange>,
    /// `zones` (`None`: not given).
    pub zones: Option<Vec<ZoneRange>>,
}

impl ReshardRequest {
    pub fn new(key: KeyPattern) -> Self {
        Self {
            key,
            num_initial_chunks: None,
            force_redistribution: false,
            provenance: Provenance::ReshardCollection,
            distribution: Vec::new(),
            zones: None,
        }
    }
}

fn invalid(m: &str) -> MongoError {
    MongoError::invalid_options(m)
}

impl Simulator {
    /// `validateShardDistribution`.
    pub(in crate::sim) fn check_distribution(
        &self,
        c: usize,
        req: &ReshardRequest,
    ) -> Result<(), MongoError> {
        let dist = &req.distribution;
        if dist.is_empty() {
            return Ok(());
        }
        if self.cluster.version < ServerVersion::V7_2
            && req.provenance == Provenance::ReshardCollection
        {
            return Err(MongoError::unknown_field(
                "BSON field 'reshardCollection.shardDistribution' is an unknown field.",
            ));
        }
        let explicit = dist[0].range.is_some();
        if dist.iter().any(|d| d.range.is_some() != explicit) {
            return Err(invalid(
                "All ShardKeyRanges should have the same min/max pattern",
            ));
        }
        if !explicit {
            let mut shards: Vec<ShardIdx> = dist.iter().map(|d| d.shard).collect();
            shards.sort_unstable();
            shards.dedup();
            if shards.len() != dist.len() {
                return Err(invalid(
                    "Non-explicit shardDistribution should have unique shardIds",
                ));
            }
            return Ok(());
        }
        let mut ranges: Vec<(&ShardKey, &ShardKey, ShardIdx)> = dist
            .iter()
            .filter_map(|d| d.range.as_ref().map(|(a, b)| (a, b, d.shard)))
            .collect();
        ranges.sort_by(|a, b| a.0.cmp(b.0));
        if *ranges[0].0 != req.key.global_min() {
            return Err(invalid(
                "ShardKeyRange must start at global min for the new shard key",
            ));
        }
        if ranges.last().is_some_and(|r| *r.1 != req.key.global_max()) {
            return Err(invalid(
                "ShardKeyRange must end at global max for the new shard key",
            ));
        }
        if ranges.windows(2).any(|w| w[0].1 != w[1].0) {
            return Err(invalid("ShardKeyRanges must be continuous"));
        }
        let Some(zones) = &req.zones else {
            return Ok(());
        };
        for (min, max, shard) in ranges {
            for z in zones.iter().filter(|z| z.min < *max && *min < z.max) {
                if !self.cluster.shards[shard.index()]
                    .shard
                    .zones
                    .contains(&z.zone)
                {
                    return Err(invalid(&format!(
                        "Specified zones and shardDistribution are conflicting with the existing shard/zone, shard {}doesn't belong to zone {}",
                        self.cluster.shard_id(shard),
                        z.zone
                    )));
                }
            }
        }
        let _ = c;
        Ok(())
    }

    /// The zone ranges the new layout keeps: the request's; for `forceRedistribution` to the
    /// same key without `zones`, the collection's own; none for `moveCollection` and
    /// `unshardCollection`. A collection with zones resharded to a new key must say `zones`.
    pub(in crate::sim) fn zones_after_resharding(
        &self,
        c: usize,
        req: &ReshardRequest,
    ) -> Result<Option<Vec<ZoneRange>>, MongoError> {
        let coll = &self.cluster.collections[c];
        if let Some(zones) = &req.zones {
            if req.provenance == Provenance::UnshardCollection && !zones.is_empty() {
                return Err(invalid(
                    "Cannot specify zones when unsharding a collection.",
                ));
            }
            let mut sorted: Vec<&ZoneRange> = zones.iter().collect();
            sorted.sort_by(|a, b| a.min.cmp(&b.min));
            if sorted.windows(2).any(|w| w[0].max > w[1].min) {
                return Err(MongoError::bad_value("Zone ranges must not overlap"));
            }
            return Ok(Some(zones.clone()));
        }
        if req.provenance.ends_unsplittable() || coll.zones.is_empty() {
            return Ok(None);
        }
        if req.force_redistribution && req.key == coll.pattern {
            return Ok(Some(coll.zones.iter().cloned().collect()));
        }
        Err(MongoError::bad_value("Must specify value for zones field"))
    }

    /// The shards of each zone of `zones` (not removed, not draining).
    pub(in crate::sim) fn zone_members(
        &self,
        zones: &[ZoneRange],
    ) -> BTreeMap<String, Vec<ShardIdx>> {
        let mut out: BTreeMap<String, Vec<ShardIdx>> = BTreeMap::new();
        for z in zones {
            out.entry(z.zone.clone()).or_insert_with(|| {
                (0..self.cluster.shards.len())
                    .filter(|&s| {
                        let st = &self.cluster.shards[s];
                        !st.removed && !st.shard.draining && st.shard.zones.contains(&z.zone)
                    })
                    .map(|s| ShardIdx(s as u32))
                    .collect()
            });
        }
        out
    }
}

/// The new chunks of `coll` (its key index already rebuilt for the new key) for resharding `r`.
pub(in crate::sim) fn new_layout(
    coll: &Collection,
    r: &Resharding,
    recipients: &[ShardIdx],
    members: &BTreeMap<String, Vec<ShardIdx>>,
) -> Vec<NewChunk> {
    let explicit: Vec<(ShardKey, ShardKey, ShardIdx)> = r
        .distribution
        .iter()
        .filter_map(|d| d.range.clone().map(|(a, b)| (a, b, d.shard)))
        .collect();
    if !explicit.is_empty() {
        let mut out: Vec<NewChunk> = explicit
            .into_iter()
            .map(|(min, max, s)| {
                let stats = coll.keys.stats(&min, &max);
                (min, s, stats)
            })
            .collect();
        out.sort_by(|a, b| a.0.cmp(&b.0));
        return out;
    }
    let shards: Vec<ShardIdx> = if r.distribution.is_empty() {
        recipients.to_vec()
    } else {
        r.distribution.iter().map(|d| d.shard).collect()
    };
    let zones = r.zones.clone().unwrap_or_default();
    let mut mins = vec![r.key.global_min()];
    mins.extend(coll.keys.quantiles(r.num_initial_chunks as usize));
    for z in &zones {
        mins.push(z.min.clone());
        mins.push(z.max.clone());
    }
    mins.retain(|m| *m < r.key.global_max());
    mins.sort();
    mins.dedup();
    let mut dealt: BTreeMap<Option<&str>, usize> = BTreeMap::new();
    let mut layout = Vec::with_capacity(mins.len());
    for (i, min) in mins.iter().enumerate() {
        let max = mins
            .get(i + 1)
            .cloned()
            .unwrap_or_else(|| r.key.global_max());
        let zone = zones
            .iter()
            .find(|z| z.min <= *min && max <= z.max)
            .map(|z| z.zone.as_str());
        let pool = zone
            .and_then(|z| members.get(z))
            .filter(|m| !m.is_empty())
            .map_or(shards.as_slice(), Vec::as_slice);
        let k = dealt.entry(zone).or_default();
        let shard = pool
            .get(*k % pool.len().max(1))
            .copied()
            .unwrap_or(ShardIdx(0));
        *k += 1;
        layout.push((min.clone(), shard, coll.keys.stats(min, &max)));
    }
    layout
}

/// A bound in `key` (the new key of a resharding).
fn bound_in(key: &KeyPattern, v: &serde_json::Value, what: &str) -> Result<ShardKey, MongoError> {
    let doc = crate::sim::scenario::setup::document_of(v, what).map_err(MongoError::bad_value)?;
    key.bound_from_document(&doc).map_err(|e| {
        MongoError::invalid_options(format!(
            "ShardKeyRange {what} should follow shard key's keyPattern: {}",
            e.0
        ))
    })
}

/// `zones: [{zone, min, max}]` of a resharding.
pub fn zones_of(
    key: &KeyPattern,
    list: &[serde_json::Value],
) -> Result<Vec<ZoneRange>, MongoError> {
    list.iter()
        .map(|z| {
            let zone = z
                .get("zone")
                .and_then(serde_json::Value::as_str)
                .ok_or_else(|| MongoError::bad_value("each zone needs a zone name, min and max"))?;
            let at = |f: &str| {
                z.get(f)
                    .ok_or_else(|| MongoError::bad_value(format!("zone {zone}: missing {f}")))
            };
            Ok(ZoneRange {
                min: bound_in(key, at("min")?, "min")?,
                max: bound_in(key, at("max")?, "max")?,
                zone: zone.to_string(),
            })
        })
        .collect()
}

impl Simulator {
    /// `shardDistribution: [{shard, min?, max?}]` of a resharding.
    pub fn shard_distribution_of(
        &self,
        key: &KeyPattern,
        list: &[serde_json::Value],
    ) -> Result<Vec<ShardKeyRange>, MongoError> {
        if list.is_empty() {
            return Err(MongoError::invalid_options(
                "ShardDistribution should not be empty if provided",
            ));
        }
        list.iter()
            .map(|d| {
                let id = d
                    .get("shard")
                    .and_then(serde_json::Value::as_str)
                    .unwrap_or_default();
                let shard = self
                    .cluster
                    .shard_index(id)
                    .ok_or_else(|| MongoError::shard_not_found(format!("Shard {id} not found")))?;
                let range = match (d.get("min"), d.get("max")) {
                    (None, None) => None,
                    (Some(a), Some(b)) => {
                        Some((bound_in(key, a, "min")?, bound_in(key, b, "max")?))
                    }
                    _ => {
                        return Err(MongoError::invalid_options(
                            "ShardKeyRange should have a pair of min/max or none of them",
                        ));
                    }
                };
                Ok(ShardKeyRange { shard, range })
            })
            .collect()
    }
}
