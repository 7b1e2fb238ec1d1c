//! What no cluster can be, refused in a keyframe naming the field: a shard or a collection listed
//! twice, a collection whose chunks do not start at MinKey (a collection's routing table covers its
//! whole key space, MinKey to MaxKey: the chunk map of the server's `src/mongo/s/chunk_manager.cpp`),
//! and counts past what a real cluster or an exact JSON number holds, which would overflow when the
//! panes and summaries add them up.
//!
//! A trace stores each chunk's lower bound only (its upper bound is the next chunk's lower bound,
//! the last one's MaxKey), so chunks are contiguous by construction; bounds out of order (an
//! overlap) are refused here, with the key's field names. Owns these checks; builds on `cluster` and `model` only.

use std::collections::HashMap;

use crate::cluster::{Cluster, ShardState};
use crate::model::{ChunkInfo, KeyPattern, ShardKey};

/// The largest count (documents, bytes, writes) a keyframe may hold for one collection: 2^53,
/// the largest integer a JSON number holds exactly, 9 PB of data — beyond any real collection.
pub const MAX_COUNT: u64 = 1 << 53;

/// A collection's chunks (`p` is the collection's path, `keyframe.collections[i].`).
pub fn chunks(
    chunks: &[(ShardKey, ChunkInfo)],
    pattern: &KeyPattern,
    p: &str,
) -> Result<(), String> {
    let named = |k: &ShardKey| crate::model::shell_text::document(&pattern.bound_to_document(k));
    if let Some((first, _)) = chunks.first()
        && *first != pattern.global_min()
    {
        return Err(format!(
            "field `{p}chunks[0].min`: the first chunk starts at {}, not at MinKey ({}): a \
             collection's chunks cover its whole key space",
            named(first),
            named(&pattern.global_min())
        ));
    }
    for (j, pair) in chunks.windows(2).enumerate() {
        if pair[0].0 >= pair[1].0 {
            return Err(format!(
                "field `{p}chunks[{}].min`: {} is not above the chunk before it ({}, \
                 `chunks[{j}].min`): chunks overlap or are out of order",
                j + 1,
                named(&pair[1].0),
                named(&pair[0].0)
            ));
        }
    }
    let mut sums = [0u64; 3];
    for (j, (_, info)) in chunks.iter().enumerate() {
        let s = info.stats;
        for (k, (name, n)) in [("docs", s.docs), ("bytes", s.bytes), ("writes", s.writes)]
            .into_iter()
            .enumerate()
        {
            match sums[k].checked_add(n).filter(|t| *t <= MAX_COUNT) {
                Some(t) => sums[k] = t,
                None if n > MAX_COUNT => {
                    return Err(format!(
                        "field `{p}chunks[{j}].{name}`: {n} is more than 2^53 ({MAX_COUNT}), \
                         more than any collection holds"
                    ));
                }
                None => {
                    return Err(format!(
                        "field `{p}chunks[{j}].{name}`: the collection's {name} add up to more \
                         than 2^53 ({MAX_COUNT}) here, more than any collection holds"
                    ));
                }
            }
        }
    }
    Ok(())
}

/// The shards: each listed once.
pub fn shards(shards: &[ShardState]) -> Result<(), String> {
    let mut seen = HashMap::new();
    for (i, s) in shards.iter().enumerate() {
        if let Some(j) = seen.insert(s.shard.id.as_str(), i) {
            return Err(format!(
                "field `keyframe.shards[{i}].id`: shard \"{}\" is listed twice (also \
                 keyframe.shards[{j}])",
                s.shard.id
            ));
        }
    }
    Ok(())
}

/// The collections, in the keyframe's order: each listed once, and the counts of all of them
/// together within what the summaries add up (2^63).
pub fn collections(cluster: &Cluster) -> Result<(), String> {
    let mut seen = HashMap::new();
    let mut total = [0u64; 3];
    for (i, c) in cluster.collections.iter().enumerate() {
        if let Some(j) = seen.insert(c.ns.as_str(), i) {
            return Err(format!(
                "field `keyframe.collections[{i}].ns`: collection \"{}\" is listed twice (also \
                 keyframe.collections[{j}])",
                c.ns
            ));
        }
        for ch in c.table.iter() {
            let s = ch.info.stats;
            for (k, n) in [s.docs, s.bytes, s.writes].into_iter().enumerate() {
                total[k] = total[k]
                    .checked_add(n)
                    .filter(|t| i64::try_from(*t).is_ok())
                    .ok_or_else(|| {
                        format!(
                            "field `keyframe.collections[{i}].chunks`: the counts of all \
                             collections add up to more than 2^63, more than any cluster holds"
                        )
                    })?;
            }
        }
    }
    Ok(())
}
