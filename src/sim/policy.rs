//! `BalancerPolicy::balance` for one collection, in MongoDB's order: chunks outside their zone's
//! shards first (zone violations), then imbalance inside each zone, then imbalance over all
//! shards for the chunks of no zone. Imbalance is measured in chunk counts before 6.0 and in data
//! size from 6.0; every shard takes part in at most one migration.

use super::engine::Simulator;
use crate::cluster::event::MigrationReason;
use crate::cluster::version::BalancingMetric;
use crate::model::{ShardIdx, ShardKey};
use crate::units::human_bytes;

/// A migration the policy chose.
#[derive(Clone, Debug)]
pub(super) struct Candidate {
    pub coll: usize,
    pub chunk: usize,
    pub end: Option<ShardKey>,
    pub to: ShardIdx,
    pub reason: MigrationReason,
}

/// Per-shard statistics of a zone (or of "no zone", which counts every chunk and data of the
/// collection but moves only chunks of no zone).
struct Bucket {
    label: String,
    /// Shards that may hold the bucket's chunks.
    members: Vec<bool>,
    chunks: Vec<u64>,
    bytes: Vec<u64>,
    first_movable: Vec<Option<usize>>,
    /// `first_movable` was not filled: a donor's is looked for when it is needed.
    movable_on_demand: bool,
    has_jumbo: Vec<bool>,
}

impl Bucket {
    fn new(label: String, members: Vec<bool>) -> Self {
        let n = members.len();
        Self {
            label,
            members,
            chunks: vec![0; n],
            bytes: vec![0; n],
            first_movable: vec![None; n],
            movable_on_demand: false,
            has_jumbo: vec![false; n],
        }
    }
}

impl Simulator {
    fn carries(&self, s: usize, zone: &str) -> bool {
        self.cluster.shards[s].shard.zones.contains(zone)
    }

    /// The candidates for collection `c`, updating `busy`; reasons for not doing more go to `why_not`.
    pub(super) fn select(
        &self,
        c: usize,
        busy: &mut [bool],
        out: &mut Vec<Candidate>,
        why_not: &mut Vec<String>,
    ) {
        if self.cluster.collections[c].resharding.is_some() {
            why_not.push(format!(
                "{}: being resharded, its chunks do not move",
                self.cluster.collections[c].ns
            ));
            return;
        }
        self.drain(c, busy, out, why_not);
        let coll = &self.cluster.collections[c];
        let n = self.cluster.shards.len();
        let mut zone_names: Vec<String> = coll.zones.iter().map(|r| r.zone.clone()).collect();
        zone_names.sort();
        zone_names.dedup();
        let mut buckets: Vec<Bucket> = zone_names
            .iter()
            .map(|z| {
                Bucket::new(
                    format!("zone {z}"),
                    (0..n).map(|s| self.carries(s, z)).collect(),
                )
            })
            .collect();
        let mut rest = Bucket::new(
            String::new(),
            (0..n).map(|s| !self.cluster.shards[s].removed).collect(),
        );
        if coll.zones.is_empty() {
            fill_unzoned(coll, &mut rest);
        } else {
            // Checked once, not per chunk.
            let in_flight = self.cluster.balancer.migrating_in(&coll.ns);
            for chunk in coll.table.iter() {
                let owner = chunk.info.shard.index();
                let zone = coll.zones.zone_of_chunk(chunk.min, chunk.max);
                let movable = !(chunk.info.jumbo
                    || in_flight && self.cluster.balancer.migrating(&coll.ns, chunk.min));
                rest.chunks[owner] += 1;
                rest.bytes[owner] += chunk.info.stats.bytes;
                let bucket = match zone {
                    Some(name) => {
                        let Some(which) = zone_names.iter().position(|x| x == name) else {
                            continue;
                        };
                        if !self.carries(owner, name) {
                            self.zone_violation(c, chunk.index, name, movable, busy, out, why_not);
                        }
                        &mut buckets[which]
                    }
                    None => &mut rest,
                };
                if zone.is_some() {
                    bucket.chunks[owner] += 1;
                    bucket.bytes[owner] += chunk.info.stats.bytes;
                }
                if chunk.info.jumbo {
                    bucket.has_jumbo[owner] = true;
                } else if movable && bucket.first_movable[owner].is_none() {
                    bucket.first_movable[owner] = Some(chunk.index);
                }
            }
        }
        buckets.push(rest);
        for bucket in &buckets {
            self.balance_bucket(c, bucket, busy, out, why_not);
        }
    }

    /// The first chunk of `shard` in key order that can move (not jumbo, not migrating).
    fn first_movable_on(&self, c: usize, shard: ShardIdx) -> Option<usize> {
        let coll = &self.cluster.collections[c];
        let in_flight = self.cluster.balancer.migrating_in(&coll.ns);
        coll.table
            .iter()
            .find(|ch| {
                ch.info.shard == shard
                    && !ch.info.jumbo
                    && !(in_flight && self.cluster.balancer.migrating(&coll.ns, ch.min))
            })
            .map(|ch| ch.index)
    }

    /// A shard that can receive chunks: not removed, not draining.
    fn receives(&self, s: usize) -> bool {
        let state = &self.cluster.shards[s];
        !state.removed && !state.shard.draining
    }

    /// Draining shards first: each moves its first movable chunk to the least loaded shard that
    /// may hold it (of the chunk's zone, if it has one). Jumbo chunks are skipped.
    fn drain(
        &self,
        c: usize,
        busy: &mut [bool],
        out: &mut Vec<Candidate>,
        why_not: &mut Vec<String>,
    ) {
        let coll = &self.cluster.collections[c];
        for s in (0..self.cluster.shards.len()).filter(|&s| self.cluster.shards[s].shard.draining) {
            let mine = || coll.table.iter().filter(|ch| ch.info.shard.index() == s);
            if busy[s] || mine().next().is_none() {
                continue;
            }
            let Some(chunk) = mine()
                .find(|ch| !ch.info.jumbo && !self.cluster.balancer.migrating(&coll.ns, ch.min))
            else {
                if mine().any(|ch| ch.info.jumbo) {
                    why_not.push(format!(
                        "{}: {} is draining but only jumbo chunks are left on it: move them with forceJumbo",
                        coll.ns,
                        self.cluster.shard_id(ShardIdx(s as u32))
                    ));
                }
                continue;
            };
            let zone = coll.zones.zone_of_chunk(chunk.min, chunk.max);
            let to = (0..self.cluster.shards.len())
                .filter(|&r| {
                    self.receives(r) && !busy[r] && zone.is_none_or(|z| self.carries(r, z))
                })
                .min_by_key(|&r| (coll.table.shard_totals(ShardIdx(r as u32)).stats.bytes, r));
            if let Some(to) = to {
                busy[s] = true;
                busy[to] = true;
                out.push(Candidate {
                    coll: c,
                    chunk: chunk.index,
                    end: None,
                    to: ShardIdx(to as u32),
                    reason: MigrationReason::Drain,
                });
            }
        }
    }

    /// A chunk on a shard outside its zone moves to the least loaded shard of the zone.
    #[allow(clippy::too_many_arguments)]
    fn zone_violation(
        &self,
        c: usize,
        chunk: usize,
        zone: &str,
        movable: bool,
        busy: &mut [bool],
        out: &mut Vec<Candidate>,
        why_not: &mut Vec<String>,
    ) {
        let coll = &self.cluster.collections[c];
        let from = coll.table.chunk(chunk).info.shard;
        let in_zone: Vec<usize> = (0..self.cluster.shards.len())
            .filter(|&s| self.carries(s, zone) && !self.cluster.shards[s].shard.draining)
            .collect();
        if in_zone.is_empty() {
            let why = format!(
                "{}: zone {zone} has no shard, so its chunks stay where they are",
                coll.ns
            );
            if !why_not.contains(&why) {
                why_not.push(why);
            }
            return;
        }
        if !movable || busy[from.index()] {
            return;
        }
        let load = |s: usize| match self.cluster.version.balancing_metric() {
            BalancingMetric::ChunkCount => coll.table.shard_totals(ShardIdx(s as u32)).chunks,
            BalancingMetric::DataSize => coll.table.shard_totals(ShardIdx(s as u32)).stats.bytes,
        };
        if let Some(to) = in_zone
            .into_iter()
            .filter(|&s| !busy[s])
            .min_by_key(|&s| (load(s), s))
        {
            busy[from.index()] = true;
            busy[to] = true;
            out.push(Candidate {
                coll: c,
                chunk,
                end: None,
                to: ShardIdx(to as u32),
                reason: MigrationReason::ZoneViolation,
            });
        }
    }

    fn balance_bucket(
        &self,
        c: usize,
        bucket: &Bucket,
        busy: &mut [bool],
        out: &mut Vec<Candidate>,
        why_not: &mut Vec<String>,
    ) {
        let coll = &self.cluster.collections[c];
        let receivers: Vec<ShardIdx> = (0..self.cluster.shards.len())
            .filter(|&s| bucket.members[s] && self.receives(s))
            .map(|s| ShardIdx(s as u32))
            .collect();
        let label = if bucket.label.is_empty() {
            coll.ns.clone()
        } else {
            format!("{} {}", coll.ns, bucket.label)
        };
        if receivers.is_empty() {
            return;
        }
        loop {
            let step = match self.cluster.version.balancing_metric() {
                BalancingMetric::ChunkCount => chunk_count_step(bucket, busy, &receivers),
                BalancingMetric::DataSize => self.data_size_step(c, bucket, busy, &receivers),
            };
            let (from, to) = match step {
                Ok(pair) => pair,
                Err(reason) => {
                    why_not.push(format!("{label}: {reason}"));
                    return;
                }
            };
            let first = if bucket.movable_on_demand {
                self.first_movable_on(c, from)
            } else {
                bucket.first_movable[from.index()]
            };
            let Some(chunk) = first else {
                let reason = if bucket.has_jumbo[from.index()] {
                    "only jumbo chunks are left to move"
                } else {
                    "no chunk can move now"
                };
                why_not.push(format!(
                    "{label}: {} has {reason}",
                    self.cluster.shard_id(from)
                ));
                return;
            };
            let end = match self.cluster.version.balancing_metric() {
                BalancingMetric::ChunkCount => None,
                BalancingMetric::DataSize => {
                    let ch = coll.table.chunk(chunk);
                    coll.keys
                        .range_end(ch.min, ch.max, self.cluster.chunk_size_of(c))
                }
            };
            busy[from.index()] = true;
            busy[to.index()] = true;
            out.push(Candidate {
                coll: c,
                chunk,
                end,
                to,
                reason: MigrationReason::ChunksImbalance,
            });
        }
    }

    /// From 6.0: move from the member with the most data to the one with the least when they
    /// differ by at least 3 × chunk size (7.0+: and the donor holds more than the average).
    fn data_size_step(
        &self,
        c: usize,
        bucket: &Bucket,
        busy: &[bool],
        receivers: &[ShardIdx],
    ) -> Result<(ShardIdx, ShardIdx), String> {
        let size = |s: ShardIdx| bucket.bytes[s.index()];
        let threshold = 3 * self.cluster.chunk_size_of(c);
        let from = donor(bucket, busy, size)?;
        let to = receivers
            .iter()
            .copied()
            .filter(|s| !busy[s.index()] && *s != from)
            .min_by_key(|s| (size(*s), *s))
            .ok_or("every other shard is in a migration")?;
        let total: u64 = receivers.iter().map(|s| size(*s)).sum();
        let average = total / receivers.len() as u64;
        if self.cluster.version.donor_must_exceed_average() && size(from) <= average {
            return Err("balanced (no shard holds more than the average)".into());
        }
        let gap = size(from).saturating_sub(size(to));
        if gap < threshold {
            return Err(format!(
                "balanced (largest gap {} < 3 × chunk size = {})",
                human_bytes(gap),
                human_bytes(threshold)
            ));
        }
        Ok((from, to))
    }
}

/// The member not in a migration with the most of `load` (lowest id on ties).
fn donor(
    bucket: &Bucket,
    busy: &[bool],
    load: impl Fn(ShardIdx) -> u64,
) -> Result<ShardIdx, String> {
    (0..bucket.members.len())
        .filter(|&s| bucket.members[s] || bucket.chunks[s] > 0)
        .map(|s| ShardIdx(s as u32))
        .filter(|s| !busy[s.index()])
        .max_by_key(|s| (load(*s), std::cmp::Reverse(*s)))
        .ok_or_else(|| "every shard is in a migration".to_string())
}

/// Before 6.0: ideal = round(chunks / shards); move from the member with the most chunks when it
/// is above the ideal (threshold 1) to the least loaded member below it.
fn chunk_count_step(
    bucket: &Bucket,
    busy: &[bool],
    receivers: &[ShardIdx],
) -> Result<(ShardIdx, ShardIdx), String> {
    let count = |s: ShardIdx| bucket.chunks[s.index()];
    let total: u64 = bucket.chunks.iter().sum();
    let ideal = (total as f64 / receivers.len() as f64).round() as u64;
    let from = donor(bucket, busy, count)?;
    if count(from) <= ideal {
        return Err(format!(
            "balanced (at most {ideal} chunks per shard, the ideal)"
        ));
    }
    let to = receivers
        .iter()
        .copied()
        .filter(|s| !busy[s.index()] && *s != from && count(*s) < ideal)
        .min_by_key(|s| (count(*s), *s))
        .ok_or("the shards below the ideal are busy migrating")?;
    Ok((from, to))
}

/// Without zones every chunk is in the one bucket: its counts, bytes and jumbo flags are the
/// table's per-shard totals, and a donor's first movable chunk is looked for only when the
/// policy moves one (a balanced million-chunk collection is not scanned).
fn fill_unzoned(coll: &crate::cluster::Collection, rest: &mut Bucket) {
    for s in 0..rest.chunks.len() {
        let t = coll.table.shard_totals(ShardIdx(s as u32));
        rest.chunks[s] = t.chunks;
        rest.bytes[s] = t.stats.bytes;
        rest.has_jumbo[s] = t.jumbo > 0;
    }
    rest.movable_on_demand = true;
}
