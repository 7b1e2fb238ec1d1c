//! `autoSplitVector` with limit 1 against the examples of issue 50, derived from
//! `db/s/auto_split_vector.cpp`: 1,000-byte documents and a 1 MiB chunk make `maxDocsPerChunk`
//! 1,048 (1,048,576 ÷ 1,000).

use super::{Direction, LocalCollection, auto_split_vector};
use crate::cluster::key_index::KeyCount;
use crate::model::ShardKey;
use crate::model::value::KeyValue;

const DOC: u64 = 1_000;
const MIB: u64 = 1 << 20;

fn key(i: i64) -> ShardKey {
    ShardKey::single(KeyValue::Int64(i))
}

/// Keys 1..=n, one 1,000-byte document each.
fn distinct(n: i64) -> Vec<(ShardKey, KeyCount)> {
    (1..=n)
        .map(|i| {
            (
                key(i),
                KeyCount {
                    docs: 1,
                    bytes: DOC,
                },
            )
        })
        .collect()
}

fn local(entries: &[(ShardKey, KeyCount)]) -> LocalCollection {
    LocalCollection {
        docs: entries.iter().map(|(_, c)| c.docs).sum(),
        bytes: entries.iter().map(|(_, c)| c.bytes).sum(),
    }
}

fn forward(n: i64) -> Vec<ShardKey> {
    let entries = distinct(n);
    auto_split_vector(&entries, local(&entries), MIB, 1, Direction::Forward)
}

#[test]
fn a_chunk_of_1200_documents_moves_whole() {
    // Split at key 1,048; 152 left, under 80 %: re-spreading would make chunks of 600, below
    // `maxDocsPerChunk - maxDocsPerNewChunk` (448) → the point is dropped.
    assert!(forward(1_200).is_empty());
}

#[test]
fn a_chunk_of_1500_documents_is_cut_at_750() {
    // 452 left after key 1,048: re-spread over two chunks of 750.
    assert_eq!(forward(1_500), vec![key(750)]);
}

#[test]
fn a_chunk_of_5000_documents_moves_1047() {
    // Two points found (1,048 and 2,096): the count restarts at 0, so the last is dropped and
    // [1, 1048) — 1,047 documents — moves.
    assert_eq!(forward(5_000), vec![key(1_048)]);
}

#[test]
fn up_to_about_4_thirds_of_a_chunk_moves_whole() {
    // 1,048 + 1,048 / 3 ≈ 1,397: the last size that keeps the leftover.
    assert!(forward(1_396).is_empty());
    assert!(!forward(1_400).is_empty());
}

#[test]
fn a_leftover_of_80_percent_is_kept_as_its_own_chunk() {
    // 1,048 + 839 (≥ 838.4) left: the first point stays.
    assert_eq!(forward(1_047 + 1 + 839), vec![key(1_048)]);
}

#[test]
fn nothing_when_the_donor_holds_less_than_a_chunk() {
    let entries = distinct(1_200);
    let small = LocalCollection {
        docs: 1_000,
        bytes: MIB - 1,
    };
    assert!(auto_split_vector(&entries, small, MIB, 1, Direction::Forward).is_empty());
}

#[test]
fn one_value_is_never_split() {
    let entries = vec![(
        key(7),
        KeyCount {
            docs: 5_000,
            bytes: 5_000 * DOC,
        },
    )];
    assert!(auto_split_vector(&entries, local(&entries), MIB, 1, Direction::Forward).is_empty());
}

#[test]
fn a_frequent_value_is_not_cut_inside() {
    // 2,000 documents of key 1, then keys 2..=3000: the count passes 1,048 inside key 1, which is
    // the first key (never a point); key 2 is the first point.
    let mut entries = vec![(
        key(1),
        KeyCount {
            docs: 2_000,
            bytes: 2_000 * DOC,
        },
    )];
    entries.extend((2..=3_000).map(|i| {
        (
            key(i),
            KeyCount {
                docs: 1,
                bytes: DOC,
            },
        )
    }));
    let split = auto_split_vector(&entries, local(&entries), MIB, 1, Direction::Forward);
    assert_eq!(split, vec![key(2)]);
}

#[test]
fn backwards_from_max_the_bound_is_below() {
    // The backwards scan counts from key 5,000 down: the 1,048th document is key 3,953, and the
    // range [3953, 5001) holds 1,048 documents.
    let entries = distinct(5_000);
    let split = auto_split_vector(&entries, local(&entries), MIB, 1, Direction::Backward);
    assert_eq!(split, vec![key(3_953)]);
    // 1,500 documents: re-spread, 750 from the top.
    let entries = distinct(1_500);
    let split = auto_split_vector(&entries, local(&entries), MIB, 1, Direction::Backward);
    assert_eq!(split, vec![key(751)]);
}
