//! `BalancerPolicy::balance` for one collection, in MongoDB's order: chunks outside their zone's
//! shards first (zone violations), then imbalance inside each zone, then imbalance over all
//! shards for the chunks of no zone. Imbalance is measured in chunk counts before 6.0 and in data
//! size from 6.0; every shard takes part in at most one migration.

use crate::cluster::event::MigrationReason;
use crate::cluster::version::BalancingMetric;
use crate::model::{ShardIdx, ShardKey};
use crate::sim::engine::Simulator;

mod drain;
pub(super) mod steps;

/// A migration the policy chose.
#[derive(Clone, Debug)]
pub(in crate::sim) struct Candidate {
    pub coll: usize,
    pub chunk: usize,
    pub end: Option<ShardKey>,
    pub to: ShardIdx,
    pub reason: MigrationReason,
}

/// Per-shard statistics of a zone, or of "no zone" (the chunks of no zone).
pub(in crate::sim) struct Bucket {
    label: String,
    /// Shards that may hold the bucket's chunks.
    pub members: Vec<bool>,
    /// Chunks of the bucket's own zone per shard (no zone: the chunks in no zone).
    pub chunks: Vec<u64>,
    /// The chunks the ideal count divides: the zone's, and for "no zone" every chunk of the
    /// collection (4.4.6 `balancer_policy.cpp`, `totalNumberOfChunksWithTag`).
    pub total_chunks: u64,
    /// The whole collection's data on each shard, whatever the zone (6.0+ data-size policy:
    /// 8.0.10 `balancer_policy.cpp`, `collDataSizeInfo.shardToDataSizeMap`).
    pub bytes: Vec<u64>,
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
            total_chunks: 0,
            bytes: vec![0; n],
            first_movable: vec![None; n],
            movable_on_demand: false,
            has_jumbo: vec![false; n],
        }
    }
}

impl Simulator {
    pub(super) fn carries(&self, s: usize, zone: &str) -> bool {
        self.cluster.shards[s].shard.zones.contains(zone)
    }

    /// The candidates for collection `c`, updating `busy`; reasons for not doing more go to `why_not`.
    pub(in crate::sim) fn select(
        &self,
        c: usize,
        busy: &mut [bool],
        out: &mut Vec<Candidate>,
        why_not: &mut Vec<String>,
    ) {
        if self.cluster.collections[c].placement != crate::cluster::Placement::Sharded {
            // 8.0: an unsharded collection (tracked or not) is never balanced or drained; a
            // draining shard lists it in `collectionsToMove`.
            return;
        }
        if self.cluster.collections[c].balancing.no_balance {
            // 7.0/8.0 `db/s/balancer/balancer_chunk_selection_policy{_impl}.cpp` skip a
            // collection whose `getAllowBalance()` is false (`noBalance`); recalled, not re-read.
            why_not.push(format!(
                "{}: balancing is disabled for this collection (noBalance)",
                self.cluster.collections[c].ns
            ));
            return;
        }
        if self.cluster.collections[c].balancing.migrations_blocked {
            // 8.0 `db/s/balancer/balancer_chunk_selection_policy_impl.cpp`: a collection with
            // `permitMigrations: false` is not balanced ("Not balancing explicitly disabled
            // collection").
            why_not.push(format!(
                "{}: migrations are not allowed (setAllowMigrations false)",
                self.cluster.collections[c].ns
            ));
            return;
        }
        if let Some(phase) = self.cluster.collections[c].defragmentation {
            // 8.0 `db/s/balancer/balancer_policy_utils` `canBalanceCollection`: not while
            // `getDefragmentCollection()`.
            why_not.push(format!(
                "{}: being defragmented ({}), the balancer does not balance it",
                self.cluster.collections[c].ns,
                phase.as_str()
            ));
            return;
        }
        if self.cluster.collections[c].resharding.is_some() {
            why_not.push(format!(
                "{}: being resharded, its chunks do not move",
                self.cluster.collections[c].ns
            ));
            return;
        }
        self.drain(c, busy, out, why_not);
        let buckets = self.buckets(c, |chunk, zone, movable| {
            self.zone_violation(c, chunk, zone, movable, busy, out, why_not);
        });
        for bucket in &buckets {
            self.balance_bucket(c, bucket, busy, out, why_not);
        }
    }

    /// The buckets of collection `c`: one per zone (in name order), then "no zone" last.
    /// `violation(chunk, zone, movable)` is called, in key order, for each chunk on a shard
    /// outside its zone.
    pub(super) fn buckets(
        &self,
        c: usize,
        mut violation: impl FnMut(usize, &str, bool),
    ) -> Vec<Bucket> {
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
                let bucket = match zone {
                    Some(name) => {
                        let Some(which) = zone_names.iter().position(|x| x == name) else {
                            continue;
                        };
                        if !self.carries(owner, name) {
                            violation(chunk.index, name, movable);
                        }
                        &mut buckets[which]
                    }
                    None => &mut rest,
                };
                bucket.chunks[owner] += 1;
                if chunk.info.jumbo {
                    bucket.has_jumbo[owner] = true;
                } else if movable && bucket.first_movable[owner].is_none() {
                    bucket.first_movable[owner] = Some(chunk.index);
                }
            }
        }
        buckets.push(rest);
        let bytes: Vec<u64> = (0..n)
            .map(|s| coll.table.shard_totals(ShardIdx(s as u32)).stats.bytes)
            .collect();
        let last = buckets.len() - 1;
        for (k, bucket) in buckets.iter_mut().enumerate() {
            bucket.bytes.clone_from(&bytes);
            bucket.total_chunks = if k == last {
                coll.table.len() as u64
            } else {
                bucket.chunks.iter().sum()
            };
        }
        buckets
    }

    /// Shard `s`'s first chunk in key order that can move (not jumbo, not migrating): from the
    /// table's first chunk of the shard, onwards over the shard's chunks.
    fn first_movable_on(&self, c: usize, s: ShardIdx) -> Option<usize> {
        let coll = &self.cluster.collections[c];
        let in_flight = self.cluster.balancer.migrating_in(&coll.ns);
        let mut k = coll.table.first_on(s)?;
        loop {
            let ch = coll.table.chunk(k);
            let migrating = in_flight && self.cluster.balancer.migrating(&coll.ns, ch.min);
            if !(ch.info.jumbo || migrating) {
                return Some(k);
            }
            k = coll.table.next_on(s, k + 1)?;
        }
    }

    /// A shard that can receive chunks: not removed, not draining.
    pub(super) fn receives(&self, s: usize) -> bool {
        let state = &self.cluster.shards[s];
        !state.removed && !state.shard.draining
    }

    /// A chunk on a shard outside its zone moves to the least loaded shard of the zone (from 7.0,
    /// a chunk-size range from its lower bound).
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
        let load = |s: usize| match self.cluster.balancing_metric() {
            BalancingMetric::ChunkCount => coll.table.shard_totals(ShardIdx(s as u32)).chunks,
            BalancingMetric::DataSize => coll.table.shard_totals(ShardIdx(s as u32)).stats.bytes,
        };
        if let Some(to) = in_zone
            .into_iter()
            .filter(|&s| !busy[s])
            .min_by_key(|&s| (load(s), s))
        {
            // 7.0-era and 8.0.10 `db/s/balancer/balancer_policy.cpp`: a chunk-size range from 7.0.
            let end = if self.cluster.version.moves_chunk_size_ranges_everywhere() {
                let ch = coll.table.chunk(chunk);
                self.other_bound_above(c, from, (ch.min, ch.max))
            } else {
                None
            };
            busy[from.index()] = true;
            busy[to] = true;
            out.push(Candidate {
                coll: c,
                chunk,
                end,
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
        let ideal = steps::ideal_data_size(bucket);
        loop {
            let step = match self.cluster.balancing_metric() {
                BalancingMetric::ChunkCount => {
                    let all_chunks = |s: ShardIdx| coll.table.shard_totals(s).chunks;
                    steps::chunk_count_step(bucket, busy, &receivers, all_chunks)
                }
                BalancingMetric::DataSize => steps::data_size_step(
                    bucket,
                    busy,
                    &receivers,
                    (self.cluster.chunk_size_of(c), ideal),
                    self.cluster.version,
                    |s| self.cluster.shard_id(s).to_string(),
                ),
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
                    "only jumbo chunks left to move"
                } else {
                    "no chunk that can move now"
                };
                why_not.push(format!(
                    "{label}: {} has {reason}",
                    self.cluster.shard_id(from)
                ));
                return;
            };
            let end = match self.cluster.balancing_metric() {
                BalancingMetric::ChunkCount => None,
                BalancingMetric::DataSize => {
                    // 6.0+ `migration_source_manager.cpp` (`computeOtherBound`) and
                    // `auto_split_vector.cpp`: the donor cuts the range with limit 1.
                    let ch = coll.table.chunk(chunk);
                    self.other_bound_above(c, from, (ch.min, ch.max))
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
}

/// Without zones every chunk is in the one bucket: its counts, bytes and jumbo flags are the
/// table's per-shard totals, and a donor's first movable chunk is looked for only when the
/// policy moves one (a balanced million-chunk collection is not scanned).
fn fill_unzoned(coll: &crate::cluster::Collection, rest: &mut Bucket) {
    for s in 0..rest.chunks.len() {
        let t = coll.table.shard_totals(ShardIdx(s as u32));
        rest.chunks[s] = t.chunks;
        rest.has_jumbo[s] = t.jumbo > 0;
    }
    rest.movable_on_demand = true;
}
