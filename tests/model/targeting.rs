#![allow(clippy::unwrap_used)]
//! Query targeting: which shards a `find` goes to. Worked examples (a resharded compound key,
//! hashed keys, compound hashed keys, type bracketing, dotted paths, `$or`, inclusivity, empty
//! bounds), and a property test against a brute force that routes every candidate value that
//! could match.

mod brackets;
mod hashed;
mod orders;
mod property;

use std::collections::BTreeSet;

use bson::{Bson, Document, doc};
use proptest::prelude::*;
use shardtop::model::targeting::{KeyRange, key_ranges};
use shardtop::model::{
    ChunkInfo, ChunkVersion, KeyPattern, KeyValue, RoutingTable, ShardIdx, ShardKey, TargetKind,
    Targeting, hash64, hashed_split_points, target,
};

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

fn pattern(doc: &Document) -> KeyPattern {
    KeyPattern::parse(doc).unwrap()
}

fn key(values: Vec<KeyValue>) -> ShardKey {
    ShardKey::from_values(values).unwrap()
}

/// A table from chunk lower bounds (the first must be the global min) and their shards.
fn table(pattern: &KeyPattern, chunks: Vec<(ShardKey, u32)>) -> RoutingTable {
    let chunks = chunks
        .into_iter()
        .enumerate()
        .map(|(i, (min, shard))| {
            let info = ChunkInfo::new(ShardIdx(shard), ChunkVersion::new(1, i as u32));
            (min, info)
        })
        .collect();
    RoutingTable::from_chunks(chunks, pattern.global_max()).unwrap()
}

fn shards(ids: &[u32]) -> Vec<ShardIdx> {
    ids.iter().copied().map(ShardIdx).collect()
}

/// The shards owning any chunk of the table, sorted.
fn all_owners(table: &RoutingTable) -> Vec<ShardIdx> {
    let set: BTreeSet<ShardIdx> = table.iter().map(|c| c.info.shard).collect();
    set.into_iter().collect()
}

fn owner(table: &RoutingTable, key: &ShardKey) -> ShardIdx {
    table.chunk(table.route(key)).info.shard
}

fn assert_scatter(pattern: &KeyPattern, table: &RoutingTable, filter: &Document) {
    let t = target(pattern, table, filter);
    assert_eq!(t.shards, all_owners(table), "{filter}");
    assert_eq!(t.chunks, table.len(), "{filter}");
    assert_eq!(t.kind, TargetKind::ShardMerge, "{filter}");
}

fn assert_single(t: &Targeting, shard: ShardIdx) {
    assert_eq!(t.shards, vec![shard]);
    assert_eq!(t.kind, TargetKind::SingleShard);
    assert!(t.is_single_shard());
    assert_eq!(t.kind.stage(), "SINGLE_SHARD");
}

fn date(millis: i64) -> Bson {
    Bson::DateTime(bson::DateTime::from_millis(millis))
}
