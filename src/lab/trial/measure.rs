//! A finished candidate run measured into its report: where the final chunks send each
//! operation of the traffic, each shard's share of the new inserts, the chunks that can never be
//! split, the unique indexes the key allows, and the verdict. Imports the report's types, not
//! the other way round.

use crate::analyze::distribution;
use crate::analyze::operation::Operation;
use crate::lab::report::verdict;
use crate::lab::report::{CandidateReport, QueryTargeting};
use crate::model::KeyPattern;
use crate::model::targeting::target;

use super::run::CandidateRun;

/// Measures a finished run.
pub fn measure(run: CandidateRun, traffic: &[Operation], unique: &[KeyPattern]) -> CandidateReport {
    let (characteristics, run) = run.finish();
    let coll = run.collection();
    let chunk_size = run.sim.cluster.chunk_size_of(0);
    let queries = traffic
        .iter()
        .map(|op| {
            let t = target(&run.key, &coll.table, &op.filter);
            QueryTargeting {
                command: op.command.as_str(),
                filter: op.filter.clone(),
                weight: op.weight,
                kind: t.kind,
                shards: t.shards.len(),
            }
        })
        .collect();
    let ins = &run.inserts;
    let share = |n: u64| round4(n as f64 / ins.total.max(1) as f64);
    let shares: Vec<(String, f64)> = ins
        .per_shard
        .iter()
        .enumerate()
        .map(|(i, &n)| (run.sim.cluster.shards[i].shard.id.clone(), share(n)))
        .collect();
    let max_shard_share = shares.iter().map(|s| s.1).fold(0.0, f64::max);
    let growing = characteristics.late_new_values * 20 >= characteristics.num_docs / 10;
    let bytes = characteristics.avg_doc_size_bytes * characteristics.num_docs;
    let mut report = CandidateReport {
        max_chunks: (!growing).then_some(characteristics.num_distinct_values + 1),
        jumbo: jumbo_chunks(coll, chunk_size),
        indivisible_values: coll.keys.values_over(chunk_size),
        needed_chunks: bytes.div_ceil(chunk_size.max(1)),
        distribution: distribution::distribution(&run.key, traffic),
        shares,
        max_shard_share,
        hottest_chunk_share: share(ins.hottest),
        new_inserts: ins.total,
        migrations: ins.migrations,
        chunks: coll.table.len(),
        queries,
        unique_indexes: unique
            .iter()
            .map(|u| {
                (
                    u.clone(),
                    crate::sim::ops::is_field_name_prefix(&run.key, u),
                )
            })
            .collect(),
        ranges_on_hashed_field: distribution::ranges_on_hashed_field(&run.key, traffic),
        refused: run.refused,
        first_refusal: run.first_refusal.clone(),
        zones: run.zones.clone(),
        key: run.key.clone(),
        characteristics,
        verdict: String::new(),
    };
    report.verdict = verdict::verdict(&report, run.sim.cluster.shards.len());
    report
}

/// Chunks larger than the chunk size whose documents all have one key value (or flagged jumbo).
pub fn jumbo_chunks(coll: &crate::cluster::Collection, chunk_size: u64) -> u64 {
    let n = coll.table.len();
    (0..n)
        .filter(|&i| {
            let chunk = coll.table.chunk(i);
            if chunk.info.jumbo {
                return true;
            }
            if chunk.info.stats.bytes <= chunk_size {
                return false;
            }
            let max = if i + 1 < n {
                coll.table.chunk(i + 1).min.clone()
            } else {
                coll.table.global_max().clone()
            };
            let first = coll.keys.first_in(chunk.min, &max);
            first.is_some() && first == coll.keys.last_in(chunk.min, &max)
        })
        .count() as u64
}

fn round4(x: f64) -> f64 {
    (x * 1e4).round() / 1e4
}
