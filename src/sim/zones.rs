//! Zone commands — `addShardToZone`, `removeShardFromZone`, `updateZoneKeyRange` (and
//! `removeRangeFromZone`) — with MongoDB's refusals, and the balancer's split of chunks that
//! straddle a zone boundary.
//!
//! The zones group: also the initial layout of a zoned collection (`zones_initial`) and
//! `presplitHashedZones` (`presplit_zones`). Builds on the engine, `cluster` and `model`; may not
//! touch the terminal, I/O or the wall clock.

pub mod presplit_zones;
pub mod zones_initial;

use super::engine::Simulator;
use crate::cluster::error::MongoError;
use crate::cluster::event::{EventKind, SplitCause};
use crate::cluster::zones::zone_bound;
use crate::model::{KeyValue, ShardKey, ZoneError};

impl Simulator {
    /// `addShardToZone`.
    pub fn add_shard_to_zone(&mut self, shard: &str, zone: &str) -> Result<(), MongoError> {
        let s = self
            .cluster
            .shard_index(shard)
            .ok_or_else(|| MongoError::shard_not_found(format!("Shard {shard} not found")))?;
        if self.cluster.shards[s.index()]
            .shard
            .zones
            .insert(zone.to_string())
        {
            self.emit(EventKind::ShardZoneSet {
                shard: s,
                zone: zone.to_string(),
                member: true,
            });
        }
        Ok(())
    }

    /// Whether `config.tags` holds a range of `zone` (a sharded collection's, or one defined
    /// before its collection is sharded).
    pub(in crate::sim) fn zone_has_ranges(&self, zone: &str) -> bool {
        self.cluster
            .collections
            .iter()
            .any(|c| c.zones.iter().any(|r| r.zone == zone))
            || self.cluster.pending_zones.iter().any(|r| r.zone == zone)
    }

    /// `removeShardFromZone`: refused (ZoneStillInUse) for the zone's last shard while a range
    /// still uses the zone.
    pub fn remove_shard_from_zone(&mut self, shard: &str, zone: &str) -> Result<(), MongoError> {
        let s = self
            .cluster
            .shard_index(shard)
            .ok_or_else(|| MongoError::shard_not_found(format!("Shard {shard} not found")))?;
        let others = self
            .cluster
            .shards
            .iter()
            .enumerate()
            .any(|(i, x)| i != s.index() && x.shard.zones.contains(zone));
        if !others
            && self.zone_has_ranges(zone)
            && self.cluster.shards[s.index()].shard.zones.contains(zone)
        {
            // `db/s/config/sharding_catalog_manager_zone_operations.cpp` (`removeShardFromZone`).
            return Err(MongoError::zone_still_in_use(
                "cannot remove a shard from zone if a chunk range is associated with it",
            ));
        }
        if self.cluster.shards[s.index()].shard.zones.remove(zone) {
            self.emit(EventKind::ShardZoneSet {
                shard: s,
                zone: zone.to_string(),
                member: false,
            });
        }
        Ok(())
    }

    /// `updateZoneKeyRange`: assigns `[min, max)` to `zone`, or removes the range with exactly these
    /// bounds when `zone` is `None` (`removeRangeFromZone`). Bounds may give a prefix of the shard
    /// key; the missing fields are MinKey.
    pub fn update_zone_key_range(
        &mut self,
        ns: &str,
        min: &bson::Document,
        max: &bson::Document,
        zone: Option<&str>,
    ) -> Result<(), MongoError> {
        let Some(c) = self.cluster.collection_index(ns) else {
            return self.update_pending_zone_range(ns, min, max, zone);
        };
        let pattern = &self.cluster.collections[c].pattern;
        let (min, max) = (zone_bound(pattern, min)?, zone_bound(pattern, max)?);
        if let Some(z) = zone {
            self.require_zone(z)?;
        }
        let coll = &mut self.cluster.collections[c];
        match zone {
            Some(z) => {
                // 8.0 `db/s/balancer/balancer_policy.cpp` (`ZoneInfo::addRangeToZone`): the same
                // range for the same zone again is ok; an overlap is RangeOverlapConflict.
                if coll
                    .zones
                    .iter()
                    .any(|r| r.min == min && r.max == max && r.zone == z)
                {
                    return Ok(());
                }
                let pattern = coll.pattern.clone();
                coll.zones
                    .add(min.clone(), max.clone(), z)
                    .map_err(|e| match e {
                        ZoneError::Overlap { existing } => MongoError::range_overlap(format!(
                            "Zone range: {} is overlapping with existing: {}",
                            zone_range_text(&pattern, &min, &max, z),
                            zone_range_text(&pattern, &existing.min, &existing.max, &existing.zone)
                        )),
                        _ => MongoError::bad_value(e.to_string()),
                    })?;
            }
            None => {
                // 8.0 `db/s/config/sharding_catalog_manager_zone_operations.cpp`
                // (`removeKeyRangeFromZone`): deleting config.tags by exact bounds; no match is
                // no change, and ok.
                if coll.zones.remove(&min, &max).is_err() {
                    return Ok(());
                }
            }
        }
        let ns = ns.to_string();
        self.emit(EventKind::ZoneRangeSet {
            ns,
            min,
            max,
            zone: zone.map(String::from),
        });
        Ok(())
    }

    /// The firehose job: the range of `zone` ending at MaxKey now starts at the first ObjectId of
    /// the current virtual second (the shard key's first field must hold ObjectIds).
    pub fn move_zone_lower_bound_to_now(&mut self, ns: &str, zone: &str) -> Result<(), MongoError> {
        let c = self.coll(ns)?;
        let coll = &self.cluster.collections[c];
        let global_max = coll.table.global_max().clone();
        let Some(range) = coll
            .zones
            .iter()
            .find(|r| r.zone == zone && r.max == global_max)
            .cloned()
        else {
            return Err(MongoError::zone_not_found(format!(
                "{ns} has no range of zone {zone} ending at MaxKey"
            )));
        };
        let secs = (super::scenario::keygen::EPOCH_SECONDS + self.cluster.now_ms / 1000) as u32;
        let mut oid = [0u8; 12];
        oid[..4].copy_from_slice(&secs.to_be_bytes());
        let mut values = vec![KeyValue::ObjectId(oid)];
        values.extend(std::iter::repeat_n(
            KeyValue::MinKey,
            coll.pattern.len() - 1,
        ));
        let new_min = ShardKey::from_values(values)
            .ok_or_else(|| MongoError::bad_value("empty shard key"))?;
        if new_min <= range.min {
            return Ok(());
        }
        let pattern = coll.pattern.clone();
        let (old_min, max) = (
            pattern.bound_to_document(&range.min),
            pattern.bound_to_document(&range.max),
        );
        self.update_zone_key_range(ns, &old_min, &max, None)?;
        self.update_zone_key_range(ns, &pattern.bound_to_document(&new_min), &max, Some(zone))
    }

    /// Whether the balancer's first step would split a chunk of collection `c` (one not being
    /// migrated straddles a zone boundary): `selectChunksToSplit` is not empty.
    pub(super) fn zone_split_pending(&self, c: usize) -> bool {
        let coll = &self.cluster.collections[c];
        !coll.zones.is_empty()
            && coll.table.iter().any(|ch| {
                !self.cluster.balancer.migrating(&coll.ns, ch.min)
                    && !coll.zones.boundaries_inside(ch.min, ch.max).is_empty()
            })
    }

    /// The balancer's first step: split every chunk that straddles a zone boundary.
    pub(super) fn split_at_zone_boundaries(&mut self) {
        for c in 0..self.cluster.collections.len() {
            if self.cluster.collections[c].zones.is_empty() {
                continue;
            }
            let straddling: Vec<(ShardKey, Vec<ShardKey>)> = {
                let coll = &self.cluster.collections[c];
                coll.table
                    .iter()
                    .filter(|ch| !self.cluster.balancer.migrating(&coll.ns, ch.min))
                    .filter_map(|ch| {
                        let points = coll.zones.boundaries_inside(ch.min, ch.max);
                        (!points.is_empty()).then(|| (ch.min.clone(), points))
                    })
                    .collect()
            };
            for (min, points) in straddling {
                if let Some(i) = self.cluster.collections[c].table.find_by_min(&min) {
                    let _ = self.split_chunk(c, i, points, SplitCause::Zone);
                }
            }
        }
    }
}

impl Simulator {
    /// A zone exists while a shard carries it (`config.shards` tags); otherwise ZoneNotFound.
    pub(super) fn require_zone(&self, zone: &str) -> Result<(), MongoError> {
        if self
            .cluster
            .shards
            .iter()
            .any(|s| s.shard.zones.contains(zone))
        {
            Ok(())
        } else {
            Err(MongoError::zone_not_found(format!(
                "zone {zone} does not exist: add a shard to it first (addShardToZone)"
            )))
        }
    }
}

/// `ZoneRange::toString` (`balancer_policy.cpp`): `{ x: 0 } -->> { x: 10 }  on  zone`.
fn zone_range_text(
    pattern: &crate::model::KeyPattern,
    min: &ShardKey,
    max: &ShardKey,
    zone: &str,
) -> String {
    use crate::model::shell_text::document;
    format!(
        "{} -->> {}  on  {zone}",
        document(&pattern.bound_to_document(min)),
        document(&pattern.bound_to_document(max))
    )
}
