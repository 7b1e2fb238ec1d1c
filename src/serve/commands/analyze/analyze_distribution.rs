//! `analyzeShardKey`'s `readDistribution` and `writeDistribution`: every sampled query of the
//! collection (`query_analyzer`) classified under the candidate key against a synthetic routing
//! table of 100 ranges cut at split points drawn from the documents, as
//! `calculateReadWriteDistributionMetrics` does (8.0 `db/s/analyze_shard_key_cmd_util.cpp`,
//! `db/s/analyze_shard_key_read_write_distribution.cpp`,
//! `db/s/document_source_analyze_shard_key_read_write_distribution.cpp`).
//!
//! - Split points (`SamplingBasedSplitPolicy`, 8.0 `db/s/config/initial_split_policy.cpp`):
//!   1,000 documents (`analyzeShardKeyNumRanges` 100 × `analyzeShardKeyNumSamplesPerRange` 10)
//!   sorted by the key's raw values, every 10th taken, until 99 distinct ones; fewer is the
//!   server's error 4952606. MongoDB draws the 1,000 with `$sample`; `serve` by a pseudo-random
//!   choice of a fixed seed (all of them in a collection of at most 1,000).
//! - A query whose filter pins the whole key is single-shard; one over MinKey to MaxKey is
//!   scatter-gather; any other is multi-shard. A non-upsert replacement is targeted by its
//!   replacement's key by the release line's rule (`analyze::distribution::replacement_filter`). Each range a query targets counts it in
//!   `numReadsByRange` / `numWritesByRange`. A write that is not single-shard is a single or multi
//!   write without the shard key.
//! - Shard-key updates are read from the update itself (`analyze::distribution`), where MongoDB reads
//!   the sampled diffs of the updated documents.
//! - Without samples a side reports its `sampleSize` of zeros only, as the server does.

use bson::{Bson, Document, doc};

use crate::analyze::distribution::{
    Dispatch, ReplacementRule, Targeted, percentage, replacement_filter, target_split_ranges,
    updates_shard_key,
};
use crate::analyze::operation::{Command, Operation};
use crate::analyze::sampled;
use crate::cluster::MongoError;
use crate::model::{KeyPattern, ShardKey};
use crate::serve::commands::analyze::documents::{array_field, sample};
use crate::serve::state::State;

use crate::analyze::ranges::{self, NUM_RANGES};

/// The read and the write distribution of `ns`'s sampled queries under `key`.
pub fn read_write(
    state: &State,
    ns: &str,
    key: &KeyPattern,
) -> Result<(Document, Document), MongoError> {
    let splits = split_points(state, ns, key)?;
    let mut reads = Tally::new();
    let mut writes = Tally::new();
    let v = state.sim.cluster.version;
    let rule = ReplacementRule::of_release(v.major, v.minor);
    for sample in crate::serve::catalog::sampled_queries::samples_of(state, ns) {
        for op in sampled::operations(sample, 0) {
            if op.command.is_read() {
                reads.per_command[read_slot(op.command)] += 1;
                reads.count(&target_split_ranges(key, &op.filter, &splits));
            } else {
                writes.per_command[write_slot(op.command)] += 1;
                writes.count_write(key, &splits, &op, rule);
            }
        }
    }
    Ok((reads.read_doc(), writes.write_doc()))
}

fn read_slot(command: Command) -> usize {
    match command {
        Command::Find => 0,
        Command::Aggregate => 1,
        Command::Count => 2,
        _ => 3,
    }
}

fn write_slot(command: Command) -> usize {
    match command {
        Command::Update => 0,
        Command::Delete => 1,
        _ => 2,
    }
}

/// The split points: the ranges are `[MinKey, s0)`, `[s0, s1)`, …, `[s98, MaxKey)` (the rule is
/// `analyze::ranges`', shared with the lab).
fn split_points(state: &State, ns: &str, key: &KeyPattern) -> Result<Vec<ShardKey>, MongoError> {
    let docs: Vec<&Document> = state.store.iter(ns).map(|(_, s)| &s.doc).collect();
    let raw = ranges::raw_pattern(key);
    let mut sampled = Vec::new();
    for d in sample(&docs, ranges::SAMPLE_SIZE) {
        match (raw.extract(d), key.extract(d)) {
            (Ok(r), Ok(k)) => sampled.push((r, k)),
            (Err(e), _) | (_, Err(e)) => {
                return Err(array_field(key, &e.0));
            }
        }
    }
    ranges::split_points(sampled).map_err(|made| MongoError {
        code: 4_952_606,
        code_name: "Location4952606",
        message: ranges::too_few_ranges(made),
    })
}

/// The counts of one side.
struct Tally {
    /// Reads: find, aggregate, count, distinct; writes: update, delete, findAndModify.
    per_command: [u64; 4],
    single: u64,
    multi: u64,
    scatter: u64,
    by_range: Vec<u64>,
    shard_key_updates: u64,
    single_without_key: u64,
    multi_without_key: u64,
}

impl Tally {
    fn new() -> Self {
        Self {
            per_command: [0; 4],
            single: 0,
            multi: 0,
            scatter: 0,
            by_range: vec![0; NUM_RANGES],
            shard_key_updates: 0,
            single_without_key: 0,
            multi_without_key: 0,
        }
    }

    fn total(&self) -> u64 {
        self.per_command.iter().sum()
    }

    fn count(&mut self, t: &Targeted) {
        for &r in &t.ranges {
            if let Some(n) = self.by_range.get_mut(r) {
                *n += 1;
            }
        }
        match t.dispatch {
            Dispatch::SingleShard => self.single += 1,
            Dispatch::Variable => self.multi += 1,
            Dispatch::ScatterGather => self.scatter += 1,
        }
    }

    /// `WriteDistributionMetricsCalculator::_addUpdateQuery` and its siblings.
    fn count_write(
        &mut self,
        key: &KeyPattern,
        splits: &[ShardKey],
        w: &Operation,
        rule: ReplacementRule,
    ) {
        // The replacement rule of the release line, shared with the lab.
        let filter = replacement_filter(key, w, rule);
        let t = target_split_ranges(key, filter.as_ref().unwrap_or(&w.filter), splits);
        self.count(&t);
        if t.dispatch != Dispatch::SingleShard {
            if w.multi {
                self.multi_without_key += 1;
            } else {
                self.single_without_key += 1;
            }
        }
        if updates_shard_key(key, w) {
            self.shard_key_updates += 1;
        }
    }

    fn percentages(&self, d: &mut Document, side: &str) {
        let total = self.total();
        d.insert(
            format!("percentageOfSingleShard{side}"),
            percentage(self.single, total),
        );
        d.insert(
            format!("percentageOfMultiShard{side}"),
            percentage(self.multi, total),
        );
        d.insert(
            format!("percentageOfScatterGather{side}"),
            percentage(self.scatter, total),
        );
        let by_range: Vec<Bson> = self.by_range.iter().map(|n| long(*n)).collect();
        d.insert(format!("num{side}ByRange"), by_range);
    }

    fn read_doc(&self) -> Document {
        let [find, aggregate, count, distinct] = self.per_command.map(long);
        let mut d = doc! { "sampleSize": {
            "total": long(self.total()), "find": find, "aggregate": aggregate, "count": count,
            "distinct": distinct,
        } };
        if self.total() > 0 {
            self.percentages(&mut d, "Reads");
        }
        d
    }

    fn write_doc(&self) -> Document {
        let [update, delete, find_and_modify, _] = self.per_command.map(long);
        let total = self.total();
        let mut d = doc! { "sampleSize": {
            "total": long(total), "update": update, "delete": delete,
            "findAndModify": find_and_modify,
        } };
        if total > 0 {
            self.percentages(&mut d, "Writes");
            d.insert(
                "percentageOfShardKeyUpdates",
                percentage(self.shard_key_updates, total),
            );
            d.insert(
                "percentageOfSingleWritesWithoutShardKey",
                percentage(self.single_without_key, total),
            );
            d.insert(
                "percentageOfMultiWritesWithoutShardKey",
                percentage(self.multi_without_key, total),
            );
        }
        d
    }
}

fn long(n: u64) -> Bson {
    Bson::Int64(i64::try_from(n).unwrap_or(i64::MAX))
}
