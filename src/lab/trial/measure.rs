//! A finished candidate run measured into its report: where the final chunks send each
//! operation of the traffic, each shard's share of the new inserts, the chunks that can never be
//! split, the unique indexes the key allows, and the verdict. Imports the report's types, not
//! the other way round.

use crate::analyze::characteristics::KeyCharacteristics;
use crate::analyze::distribution::{self, Dispatch, ReplacementRule, target_split_ranges};
use crate::analyze::operation::Operation;
use crate::analyze::ranges;
use crate::lab::report::verdict;
use crate::lab::report::{CandidateReport, ChunkEntry, Growth, QueryTargeting, ShardKeyUpdates};
use crate::model::KeyPattern;
use crate::model::targeting::target;

use super::run::CandidateRun;

/// Measures a finished run.
pub fn measure(run: CandidateRun, traffic: &[Operation], unique: &[KeyPattern]) -> CandidateReport {
    let (characteristics, run) = run.finish();
    let coll = run.collection();
    let chunk_size = run.sim.cluster.chunk_size_of(0);
    let version = run.sim.cluster.version;
    let rule = ReplacementRule::of_release(version.major, version.minor);
    // The data cut at the release line's default chunk size, as `splitVector` cuts it.
    let default_chunk_size = version.default_chunk_size_bytes();
    let default_splits = match coll.table.len() {
        0 => Vec::new(),
        _ => coll.keys.split_points(
            coll.table.chunk(0).min,
            coll.table.global_max(),
            default_chunk_size,
        ),
    };
    let queries = traffic
        .iter()
        .map(|op| {
            // A replacement is routed by the same filter analyzeShardKey counts it by.
            let replaced = distribution::replacement_filter(&run.key, op, rule);
            let t = target(
                &run.key,
                &coll.table,
                replaced.as_ref().unwrap_or(&op.filter),
            );
            let filter = replaced.as_ref().unwrap_or(&op.filter);
            QueryTargeting {
                command: op.command.as_str(),
                filter: op.filter.clone(),
                weight: op.weight,
                kind: t.kind,
                shards: t.shards.len(),
                chunks: t.chunks,
                dispatch: distribution::classify(&run.key, op, rule).0,
                default_size_chunks: target_split_ranges(&run.key, filter, &default_splits)
                    .ranges
                    .len(),
                updates_shard_key: distribution::updates_shard_key(&run.key, op),
            }
        })
        .collect::<Vec<_>>();
    let shard_key_updates = shard_key_updates(&queries, traffic);
    let by_range = run
        .key_sample
        .split_points()
        .map(|s| ranges::by_range(&run.key, traffic, &s, rule));
    let ins = &run.inserts;
    let share = |n: u64| round4(n as f64 / ins.total.max(1) as f64);
    let shares: Vec<(String, f64)> = ins
        .per_shard
        .iter()
        .enumerate()
        .map(|(i, &n)| (run.sim.cluster.shards[i].shard.id.clone(), share(n)))
        .collect();
    let max_shard_share = shares.iter().map(|s| s.1).fold(0.0, f64::max);
    let growing = keeps_new_values(&characteristics);
    let bytes = characteristics.avg_doc_size_bytes * characteristics.num_docs;
    let chunk_map = chunk_map(&run, chunk_size);
    let mut report = CandidateReport {
        // One chunk a value at most: a chunk cannot be split inside one value, and the chunk
        // below the smallest value (from MinKey) holds none.
        max_chunks: (!growing).then_some(characteristics.num_distinct_values),
        jumbo: chunk_map.iter().filter(|c| c.jumbo).count() as u64,
        dated: run.dated,
        indivisible_values: coll.keys.values_over(chunk_size),
        needed_chunks: bytes.div_ceil(chunk_size.max(1)),
        growth: growth(&characteristics, chunk_size),
        distribution: distribution::distribution(&run.key, traffic, rule),
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
        by_range,
        default_chunk_size,
        default_size_chunks: default_splits.len() + 1,
        shard_key_updates,
        chunk_map,
        key: run.key.clone(),
        characteristics,
        verdict: String::new(),
    };
    report.verdict = verdict::verdict(&report, run.sim.cluster.shards.len());
    report
}

/// The traffic's updates that change the key, and those the server would refuse as written:
/// without an equality on the whole key, or `multi` (the manual's "Change a Document's Shard Key
/// Value", from 4.2; `src/mongo/db/exec/update_stage.cpp`,
/// `UpdateStage::checkUpdateChangesShardKeyFields`: outside a transaction or retryable write a
/// shard refuses one with `IllegalOperation` "Must run update to shard key field in a
/// multi-statement transaction or with retryWrites: true.", unless the feature flag
/// `updateDocumentShardKeyUsingTransactionApi` runs it in an internal transaction).
fn shard_key_updates(queries: &[QueryTargeting], traffic: &[Operation]) -> ShardKeyUpdates {
    let mut u = ShardKeyUpdates::default();
    for (q, op) in queries.iter().zip(traffic) {
        if !q.updates_shard_key {
            continue;
        }
        u.operations += 1;
        u.weight += op.weight;
        if q.dispatch != Dispatch::SingleShard {
            u.without_full_key += 1;
        }
        if op.multi {
            u.multi += 1;
        }
    }
    u
}

/// The final chunks, bounds as documents with the key's field names.
fn chunk_map(run: &CandidateRun, chunk_size: u64) -> Vec<ChunkEntry> {
    let coll = run.collection();
    let n = coll.table.len();
    (0..n)
        .map(|i| {
            let c = coll.table.chunk(i);
            ChunkEntry {
                min: run.key.bound_to_document(c.min),
                max: run.key.bound_to_document(c.max),
                shard: run
                    .sim
                    .cluster
                    .shards
                    .get(c.info.shard.index())
                    .map_or_else(String::new, |s| s.shard.id.clone()),
                bytes: c.info.stats.bytes,
                docs: c.info.stats.docs,
                jumbo: is_jumbo(coll, i, chunk_size),
            }
        })
        .collect()
}

/// Chunks larger than the chunk size whose documents all have one key value (or flagged jumbo):
/// the count of [`is_jumbo`], the predicate the chunk map's `jumbo` flags come from.
pub fn jumbo_chunks(coll: &crate::cluster::Collection, chunk_size: u64) -> u64 {
    (0..coll.table.len())
        .filter(|&i| is_jumbo(coll, i, chunk_size))
        .count() as u64
}

/// Whether chunk `i` is jumbo: flagged by the simulated balancer (a split it could not make),
/// or over the chunk size with a single key value (no split point exists; MongoDB's
/// `splitVector` finds none, 8.0 `src/mongo/db/s/split_vector.cpp`). The report's jumbo count,
/// the TUI's and the chunk map's flags all read this one predicate.
pub fn is_jumbo(coll: &crate::cluster::Collection, i: usize, chunk_size: u64) -> bool {
    let n = coll.table.len();
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
}

/// Whether new values keep arriving: a twentieth or more of the documents of the last tenth
/// brought a value not seen before. A key gaining a value every twenty documents grows its
/// number of values with the data, so no ceiling computed today holds (docs/lab.md).
pub fn keeps_new_values(ch: &KeyCharacteristics) -> bool {
    ch.num_docs > 0 && ch.late_new_values * 20 >= ch.last_tenth
}

/// When the most common value's documents pass the chunk size, at the pace it took documents
/// in the last tenth: `(chunk size − its bytes) / (its share of the last tenth × average size)`.
pub fn growth(ch: &KeyCharacteristics, chunk_size: u64) -> Growth {
    let Some((_, frequency)) = ch.most_common_values.first() else {
        return Growth::Unknown("no documents");
    };
    if ch.is_unique {
        return Growth::Never;
    }
    let avg = ch.avg_doc_size_bytes.max(1);
    let bytes = frequency * avg;
    if bytes > chunk_size {
        return Growth::Over;
    }
    if ch.last_tenth == 0 {
        return Growth::Unknown("fewer than 10 documents");
    }
    if ch.most_common_recent == 0 {
        return Growth::Unknown("the most common value took none of the last tenth's documents");
    }
    let room = u128::from(chunk_size - bytes) * u128::from(ch.last_tenth);
    let pace = u128::from(ch.most_common_recent) * u128::from(avg);
    Growth::After(u64::try_from(room.div_ceil(pace)).unwrap_or(u64::MAX))
}

fn round4(x: f64) -> f64 {
    (x * 1e4).round() / 1e4
}
