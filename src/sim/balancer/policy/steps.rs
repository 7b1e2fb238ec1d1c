//! One step of `_singleZoneBalance`: which donor gives to which receiver inside one zone (or
//! "no zone"), by chunk counts before 6.0 and by data size from 6.0, or why nothing moves.

use super::Bucket;
use crate::cluster::ServerVersion;
use crate::model::ShardIdx;
use crate::units::human_bytes;

/// One threshold rule of a step, as it decided: whether it let the move through, the number it
/// looked at and the limit it compared it with. The policy decides by `pass`; `explain` reports
/// the same check for every shard.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::sim) struct Check {
    pub pass: bool,
    pub value: u64,
    pub limit: u64,
}

/// A donor must hold more than the ideal (chunks before 6.0, data from 7.0).
pub(in crate::sim) fn donor_above_ideal(value: u64, ideal: u64) -> Check {
    Check {
        pass: value > ideal,
        value,
        limit: ideal,
    }
}

/// A recipient must hold less than the ideal (chunks before 6.0, data from 8.0).
pub(in crate::sim) fn recipient_below_ideal(value: u64, ideal: u64) -> Check {
    Check {
        pass: value < ideal,
        value,
        limit: ideal,
    }
}

/// From 6.0: the donor's data exceeds the recipient's by at least 3 × chunk size.
pub(in crate::sim) fn gap_over_threshold(gap: u64, chunk_size: u64) -> Check {
    let limit = 3 * chunk_size;
    Check {
        pass: gap >= limit,
        value: gap,
        limit,
    }
}

/// Before 6.0: `idealNumberOfChunksPerShardForTag` = round(the zone's chunks ÷ its shards).
pub(in crate::sim) fn ideal_chunks(bucket: &Bucket) -> u64 {
    let shards = bucket.members.iter().filter(|m| **m).count().max(1);
    (bucket.total_chunks as f32 / shards as f32).round() as u64
}

/// The shard not in a migration with the most of `load` among `eligible` (lowest id on ties: the
/// first in `shardStats` order, as `_getMostOverloadedShard` keeps the first maximum).
fn donor(
    bucket: &Bucket,
    busy: &[bool],
    eligible: impl Fn(usize) -> bool,
    load: impl Fn(ShardIdx) -> u64,
) -> Result<ShardIdx, String> {
    (0..bucket.members.len())
        .filter(|&s| eligible(s) && !busy[s])
        .map(|s| ShardIdx(s as u32))
        .max_by_key(|s| (load(*s), std::cmp::Reverse(*s)))
        .ok_or_else(|| "every shard is in a migration".to_string())
}

/// Before 6.0: ideal = round(the zone's chunks ÷ the zone's shards, draining ones included; for
/// "no zone", every chunk ÷ every shard). The donor — any shard not in a migration with the most
/// chunks of the zone — must hold more than the ideal; the receiver — the suitable shard (of the
/// zone, not draining, not in a migration) with the fewest chunks of the collection overall —
/// fewer than the ideal.
// 4.4.6 `db/s/balancer/balancer_policy.cpp`: `balance()` step 3 (`idealNumberOfChunksPerShardForTag`
// = `roundf`, `totalNumberOfShardsWithTag` = `shardStats.size()` for no zone), `_singleZoneBalance`,
// `_getLeastLoadedReceiverShard` (`numberOfChunksInShard`).
pub(super) fn chunk_count_step(
    bucket: &Bucket,
    busy: &[bool],
    receivers: &[ShardIdx],
    all_chunks: impl Fn(ShardIdx) -> u64,
) -> Result<(ShardIdx, ShardIdx), String> {
    let count = |s: ShardIdx| bucket.chunks[s.index()];
    let ideal = ideal_chunks(bucket);
    let from = donor(
        bucket,
        busy,
        |s| bucket.members[s] || bucket.chunks[s] > 0,
        count,
    )?;
    if !donor_above_ideal(count(from), ideal).pass {
        return Err(format!(
            "balanced (at most {ideal} chunks per shard, the ideal)"
        ));
    }
    let to = receivers
        .iter()
        .copied()
        .filter(|s| !busy[s.index()] && *s != from)
        .min_by_key(|s| (all_chunks(*s), *s))
        .ok_or("the shards that could receive are busy migrating")?;
    if !recipient_below_ideal(count(to), ideal).pass {
        return Err(format!(
            "balanced (the receiver already holds the ideal {ideal} chunks)"
        ));
    }
    Ok((from, to))
}

/// From 6.0: the donor is the shard of the zone not in a migration with the most of the
/// collection's data (all of it, whatever the zone), the receiver the suitable one with the least;
/// they must differ by 3 × chunk size, and the donor must hold a chunk of the zone. From 7.0 the
/// donor must hold more than the ideal (the zone's shards' data ÷ their number), from 8.0 the
/// receiver less.
// 6.0, 7.0-era and 8.0.10 `db/s/balancer/balancer_policy.cpp`, `_singleZoneBalanceBasedOnDataSize`
// (`idealDataSizePerShardForZone`; 6.0 has the 3 × chunk size check only).
pub(super) fn data_size_step(
    bucket: &Bucket,
    busy: &[bool],
    receivers: &[ShardIdx],
    (chunk_size, ideal): (u64, u64),
    version: ServerVersion,
    name: impl Fn(ShardIdx) -> String,
) -> Result<(ShardIdx, ShardIdx), String> {
    let size = |s: ShardIdx| bucket.bytes[s.index()];
    let from = donor(bucket, busy, |s| bucket.members[s], size)?;
    let to = receivers
        .iter()
        .copied()
        .filter(|s| !busy[s.index()] && *s != from)
        .min_by_key(|s| (size(*s), *s))
        .ok_or("every other shard is in a migration")?;
    if version.donor_must_exceed_average() && !donor_above_ideal(size(from), ideal).pass {
        return Err(format!(
            "balanced (no shard holds more than the ideal {})",
            human_bytes(ideal)
        ));
    }
    if version.receiver_must_be_below_ideal() && !recipient_below_ideal(size(to), ideal).pass {
        return Err(format!(
            "balanced (no shard that may receive holds less than the ideal {})",
            human_bytes(ideal)
        ));
    }
    let gap = gap_over_threshold(size(from).saturating_sub(size(to)), chunk_size);
    if !gap.pass {
        return Err(format!(
            "balanced (largest gap {} < 3 × chunk size = {})",
            human_bytes(gap.value),
            human_bytes(gap.limit)
        ));
    }
    if bucket.chunks[from.index()] == 0 {
        return Err(format!(
            "{} holds the most data but no chunk to move here",
            name(from)
        ));
    }
    Ok((from, to))
}

/// `idealDataSizePerShardForZone`: the zone's shards' data ÷ their number (draining ones included).
pub(in crate::sim) fn ideal_data_size(bucket: &Bucket) -> u64 {
    let (total, shards) = (0..bucket.members.len())
        .filter(|&s| bucket.members[s])
        .fold((0u64, 0u64), |(t, n), s| (t + bucket.bytes[s], n + 1));
    total / shards.max(1)
}
