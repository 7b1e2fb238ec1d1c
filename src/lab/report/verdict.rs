//! One line per candidate in the words of seed 003's table ("Comparing candidate keys for
//! orders"): where the inserts go, which queries stay on one shard, how far the key divides.

use super::CandidateReport;
use crate::analyze::characteristics::Monotonicity;
use crate::model::targeting::TargetKind;

/// The share of inserts from which a shard takes "all inserts".
const ALL_ON_ONE: f64 = 0.9;
/// How far above an even share the busiest shard may be for the writes to be even.
const EVEN_SLACK: f64 = 1.2;

/// `writes: …; queries: …; divisibility: …`.
pub fn verdict(r: &CandidateReport, shards: usize) -> String {
    format!(
        "writes: {}; queries: {}; divisibility: {}",
        writes(r, shards),
        queries(r, shards),
        divisibility(r)
    )
}

/// Whether the key has too few values for the chunks the data needs.
pub fn low_cardinality(r: &CandidateReport) -> bool {
    r.max_chunks.is_some() && r.characteristics.num_distinct_values < r.needed_chunks
}

/// The write distribution cell.
pub fn writes(r: &CandidateReport, shards: usize) -> String {
    if r.new_inserts == 0 {
        return "no new inserts".into();
    }
    if r.max_shard_share >= ALL_ON_ONE {
        let why = if r.characteristics.monotonicity == Monotonicity::Monotonic {
            " (monotonic)"
        } else {
            ""
        };
        return format!("all inserts to one shard{why}");
    }
    if low_cardinality(r) {
        return format!("{} hot spots", r.characteristics.num_distinct_values);
    }
    if r.max_shard_share <= EVEN_SLACK / shards.max(1) as f64 {
        if r.key.hashed_field().is_some() {
            return "even".into();
        }
        return format!("spread across {} values", r.key.fields()[0].path);
    }
    format!(
        "uneven: {:.0}% of inserts to one shard",
        r.max_shard_share * 100.0
    )
}

/// One query's cell: `one shard`, `broadcast` (every shard), or `N shards`.
pub fn targeting(kind: TargetKind, asked: usize, shards: usize) -> String {
    match kind {
        TargetKind::SingleShard => "one shard".into(),
        TargetKind::ShardMerge if asked >= shards => "broadcast".into(),
        TargetKind::ShardMerge => format!("{asked} shards"),
    }
}

fn queries(r: &CandidateReport, shards: usize) -> String {
    let total = r.queries.len();
    if total == 0 {
        return "no traffic".into();
    }
    let single = r
        .queries
        .iter()
        .filter(|q| q.kind == TargetKind::SingleShard)
        .count();
    let broadcast = r
        .queries
        .iter()
        .filter(|q| q.kind == TargetKind::ShardMerge && q.shards >= shards)
        .count();
    match (single, broadcast) {
        (s, _) if s == total => "every query on one shard".into(),
        (_, b) if b == total => "every query broadcast".into(),
        (s, b) => {
            let mut parts = vec![format!("{s} of {total} on one shard")];
            if b > 0 {
                parts.push(format!("{b} broadcast"));
            }
            let other = total - s - b;
            if other > 0 {
                parts.push(format!("{other} to some shards"));
            }
            parts.join(", ")
        }
    }
}

/// The divisibility cell.
pub fn divisibility(r: &CandidateReport) -> String {
    let mut text = if low_cardinality(r) {
        format!("{} chunks max", r.characteristics.num_distinct_values)
    } else {
        "fine".to_string()
    };
    if r.jumbo > 0 {
        text.push_str(&format!(", {} jumbo", r.jumbo));
    }
    if r.ranges_on_hashed_field
        && let Some(h) = r.key.hashed_field()
    {
        text.push_str(&format!(
            ", but no range targeting on {}",
            r.key.fields()[h].path
        ));
    }
    text
}
