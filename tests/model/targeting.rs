#![allow(clippy::unwrap_used)]
//! Query targeting: which shards a `find` goes to. Worked examples (a resharded compound key,
//! hashed keys, compound hashed keys, type bracketing, dotted paths, `$or`, inclusivity, empty
//! bounds), and a property test against a brute force that routes every candidate value that
//! could match.

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

// ---------------------------------------------------------------------------------------------
// 1. shop.orders resharded to {customerId: 1, placedAt: 1}
// ---------------------------------------------------------------------------------------------

const CUSTOMER_STEP: i32 = 700;

/// Chunks at customerId 0, 700, … 19600 (placedAt MinKey), in blocks of four chunks per shard,
/// round robin over three shards; the MinKey chunk on shard 0.
fn orders() -> (KeyPattern, RoutingTable) {
    let p = pattern(&doc! {"customerId": 1, "placedAt": 1});
    let mut chunks = vec![(p.global_min(), 0)];
    for (n, c) in (0..20_000).step_by(CUSTOMER_STEP as usize).enumerate() {
        let shard = ((n / 4) % 3) as u32;
        chunks.push((key(vec![KeyValue::Int32(c), KeyValue::MinKey]), shard));
    }
    let t = table(&p, chunks);
    (p, t)
}

/// The shard of the chunk starting at customer `c` (a multiple of the step).
fn orders_shard(c: i32) -> ShardIdx {
    ShardIdx(((c / CUSTOMER_STEP / 4) % 3) as u32)
}

fn date(millis: i64) -> Bson {
    Bson::DateTime(bson::DateTime::from_millis(millis))
}

#[test]
fn orders_equality_on_the_prefix_is_one_shard() {
    let (p, t) = orders();
    let got = target(&p, &t, &doc! {"customerId": 4242});
    assert_single(&got, orders_shard(4200));
    assert_eq!(got.chunks, 1);
    let eq = target(&p, &t, &doc! {"customerId": {"$eq": 4242_i64}});
    assert_eq!(eq, got);
    let double = target(&p, &t, &doc! {"customerId": 4242.0});
    assert_eq!(double, got);
}

#[test]
fn orders_range_inside_one_chunk_is_one_shard() {
    let (p, t) = orders();
    let got = target(&p, &t, &doc! {"customerId": {"$gte": 100, "$lt": 150}});
    assert_single(&got, orders_shard(0));
    assert_eq!(got.chunks, 1);
}

#[test]
fn orders_equality_and_date_range_is_one_shard() {
    let (p, t) = orders();
    let filter = doc! {"customerId": 4242, "placedAt": {"$gte": date(1_700_000_000_000)}};
    let got = target(&p, &t, &filter);
    assert_single(&got, orders_shard(4200));
    assert_eq!(got.chunks, 1);
}

#[test]
fn orders_without_the_first_field_is_a_scatter() {
    let (p, t) = orders();
    assert_scatter(
        &p,
        &t,
        &doc! {"placedAt": {"$gte": date(1_700_000_000_000)}},
    );
    assert_scatter(&p, &t, &doc! {});
    let got = target(&p, &t, &doc! {});
    assert_eq!(got.shards, shards(&[0, 1, 2]));
    assert_eq!(got.kind.stage(), "SHARD_MERGE");
}

/// `src/mongo/s/chunk_manager.cpp` (`getShardIdsForRange`: `forEachOverlappingChunk(min, max,
/// isMaxInclusive = true)`) and `shard_key_pattern.cpp` (`flattenBounds` ignores inclusivity):
/// an exclusive upper bound at a chunk's min still reaches that chunk, as mongos targets it.
#[test]
fn chunk_manager_cpp_an_exclusive_upper_bound_at_a_chunk_min_reaches_it() {
    let (p, t) = orders();
    // [700, 1400) is flattened to [{700, MinKey}, {1400, MaxKey}]: it reaches the chunk starting
    // at 1400 too.
    let got = target(&p, &t, &doc! {"customerId": {"$gte": 700, "$lt": 1400}});
    assert_eq!(got.chunks, 2);
    let got = target(&p, &t, &doc! {"customerId": {"$gte": 700, "$lte": 1400}});
    assert_eq!(got.chunks, 2);
    // Numbers below 0 reach the chunk starting at 0 as well.
    let got = target(&p, &t, &doc! {"customerId": {"$lt": 0}});
    assert_eq!(got.chunks, 2);
    // Above 19600: the last chunk only (numbers stop at +Infinity; strings are not included).
    let got = target(&p, &t, &doc! {"customerId": {"$gt": 19_600}});
    assert_eq!(got.chunks, 1);
    assert_single(&got, orders_shard(19_600));
}

#[test]
fn orders_in_and_or_are_unions() {
    let (p, t) = orders();
    let got = target(&p, &t, &doc! {"customerId": {"$in": [10, 4242, 4243]}});
    assert_eq!(got.shards, shards(&[0, 1]));
    assert_eq!(got.chunks, 2);
    assert_eq!(got.kind, TargetKind::ShardMerge);
    let or = doc! {"$or": [{"customerId": 10}, {"customerId": 4242}]};
    assert_eq!(target(&p, &t, &or), got);
    // A branch without the first field makes the whole $or a scatter.
    assert_scatter(
        &p,
        &t,
        &doc! {"$or": [{"customerId": 10}, {"placedAt": date(0)}]},
    );
    // An $or inside an $and is distributed over the rest of the filter.
    let nested = doc! {
        "customerId": {"$lt": 5000},
        "$or": [{"customerId": 10}, {"customerId": 9000}, {"customerId": 4242}],
    };
    assert_eq!(target(&p, &t, &nested), got);
}

#[test]
fn orders_and_intersects() {
    let (p, t) = orders();
    let filter = doc! {"$and": [{"customerId": {"$gte": 100}}, {"customerId": {"$lt": 150}}]};
    let got = target(&p, &t, &filter);
    assert_single(&got, orders_shard(0));
    assert_eq!(got.chunks, 1);
    let filter = doc! {"$and": [{"customerId": {"$in": [1, 4242]}}, {"customerId": 4242}]};
    assert_single(&target(&p, &t, &filter), orders_shard(4200));
}

#[test]
fn orders_unsatisfiable_goes_to_the_first_chunk() {
    let (p, t) = orders();
    for filter in [
        doc! {"customerId": {"$gt": 5, "$lt": 3}},
        doc! {"customerId": {"$in": []}},
        doc! {"customerId": 1, "placedAt": {"$in": []}},
        doc! {"$and": [{"customerId": 1}, {"customerId": 2}]},
        doc! {"customerId": {"$gt": f64::NAN}},
    ] {
        let got = target(&p, &t, &filter);
        assert_eq!(got.chunks, 1, "{filter}");
        assert_single(&got, t.chunk(0).info.shard);
        assert!(key_ranges(&p, &filter).is_empty(), "{filter}");
    }
}

#[test]
fn orders_other_operators_do_not_constrain() {
    let (p, t) = orders();
    for filter in [
        doc! {"customerId": {"$ne": 5}},
        doc! {"customerId": {"$nin": [5]}},
        doc! {"customerId": {"$exists": true}},
        doc! {"customerId": {"$not": {"$gt": 5}}},
        doc! {"customerId": {"$regex": "^1"}},
        doc! {"customerId": Bson::RegularExpression(bson::Regex { pattern: "^1".into(), options: String::new() })},
        doc! {"customerId": {"$in": [5, Bson::RegularExpression(bson::Regex { pattern: "x".into(), options: String::new() })]}},
        doc! {"customerId": {"$elemMatch": {"$gt": 5}}},
        doc! {"$expr": {"$eq": ["$customerId", 5]}},
        doc! {"$nor": [{"customerId": 5}]},
        doc! {"$where": "true"},
    ] {
        assert_scatter(&p, &t, &filter);
    }
    // ...but they do not undo a constraint that is there.
    let got = target(&p, &t, &doc! {"customerId": {"$eq": 4242, "$ne": 5}});
    assert_single(&got, orders_shard(4200));
}

/// `src/mongo/s/shard_key_pattern.cpp` (`flattenBounds`): the intervals' start and end values
/// whatever their inclusivity; the first field with several intervals multiplies, the later ones
/// append the start of their first interval and the end of their last.
#[test]
fn shard_key_pattern_cpp_flatten_bounds_ignores_inclusivity_and_hulls_later_fields() {
    let p = pattern(&doc! {"a": 1, "b": 1});
    let k = |a: KeyValue, b: KeyValue| key(vec![a, b]);
    let whole = |min, max| KeyRange {
        min,
        min_inclusive: true,
        max,
        max_inclusive: true,
    };
    let got = key_ranges(&p, &doc! {"a": {"$gt": 5}});
    assert_eq!(
        got,
        vec![whole(
            k(KeyValue::Int32(5), KeyValue::MinKey),
            k(KeyValue::Double(f64::INFINITY), KeyValue::MaxKey)
        )]
    );
    let got = key_ranges(&p, &doc! {"a": {"$gte": 1, "$lt": 3}, "b": 5});
    assert_eq!(
        got,
        vec![whole(
            k(KeyValue::Int32(1), KeyValue::Int32(5)),
            k(KeyValue::Int32(3), KeyValue::Int32(5))
        )]
    );
    // The first `$in` multiplies; the second is hulled: 2 ranges, not 4 keys.
    let got = key_ranges(&p, &doc! {"a": {"$in": [1, 2]}, "b": {"$in": ["x", "y"]}});
    assert_eq!(
        got,
        vec![
            whole(
                k(KeyValue::Int32(1), KeyValue::string("x")),
                k(KeyValue::Int32(1), KeyValue::string("y"))
            ),
            whole(
                k(KeyValue::Int32(2), KeyValue::string("x")),
                k(KeyValue::Int32(2), KeyValue::string("y"))
            ),
        ]
    );
    // Points on every field: exact keys.
    let got = key_ranges(&p, &doc! {"a": 1, "b": "x"});
    assert_eq!(
        got,
        vec![whole(
            k(KeyValue::Int32(1), KeyValue::string("x")),
            k(KeyValue::Int32(1), KeyValue::string("x"))
        )]
    );
    // A point then a range on the last field.
    let got = key_ranges(&p, &doc! {"a": 1, "b": {"$lt": "m"}});
    assert_eq!(
        got,
        vec![whole(
            k(KeyValue::Int32(1), KeyValue::string("")),
            k(KeyValue::Int32(1), KeyValue::string("m"))
        )]
    );
}

// ---------------------------------------------------------------------------------------------
// 2. Hashed {username: "hashed"}, MongoDB's six initial chunks on three shards
// ---------------------------------------------------------------------------------------------

fn hashed_users() -> (KeyPattern, RoutingTable) {
    let p = pattern(&doc! {"username": "hashed"});
    let mut chunks = vec![(p.global_min(), 0)];
    for (i, point) in hashed_split_points(6).into_iter().enumerate() {
        chunks.push((
            ShardKey::single(KeyValue::Int64(point)),
            i.div_ceil(2) as u32,
        ));
    }
    let t = table(&p, chunks);
    (p, t)
}

fn hashed_owner(t: &RoutingTable, value: &KeyValue) -> ShardIdx {
    owner(t, &ShardKey::single(KeyValue::Int64(hash64(value))))
}

#[test]
fn hashed_initial_chunks_are_two_per_shard() {
    let (_, t) = hashed_users();
    assert_eq!(t.len(), 6);
    let per: Vec<u32> = t.iter().map(|c| c.info.shard.0).collect();
    assert_eq!(per, vec![0, 0, 1, 1, 2, 2]);
    let mins: Vec<ShardKey> = t.iter().skip(1).map(|c| c.min.clone()).collect();
    let expected: Vec<ShardKey> = [
        -6_148_914_691_236_517_204_i64,
        -3_074_457_345_618_258_602,
        0,
        3_074_457_345_618_258_602,
        6_148_914_691_236_517_204,
    ]
    .into_iter()
    .map(|v| ShardKey::single(KeyValue::Int64(v)))
    .collect();
    assert_eq!(mins, expected);
}

#[test]
fn hashed_equality_is_the_owner_of_the_hash() {
    let (p, t) = hashed_users();
    for name in ["alice", "bob", "carol", "dave", "erin", "frank", "grace"] {
        let got = target(&p, &t, &doc! {"username": name});
        assert_single(&got, hashed_owner(&t, &KeyValue::string(name)));
        assert_eq!(got.chunks, 1);
        assert_eq!(target(&p, &t, &doc! {"username": {"$eq": name}}), got);
    }
    // Null and missing hash null.
    let got = target(&p, &t, &doc! {"username": Bson::Null});
    assert_single(&got, hashed_owner(&t, &KeyValue::Null));
}

#[test]
fn hashed_in_is_the_union_of_owners() {
    let (p, t) = hashed_users();
    let names = ["alice", "bob", "carol", "dave", "erin", "frank", "grace"];
    for n in 1..=names.len() {
        let list: Vec<Bson> = names[..n]
            .iter()
            .map(|s| Bson::String((*s).into()))
            .collect();
        let got = target(&p, &t, &doc! {"username": {"$in": list}});
        let expected: BTreeSet<ShardIdx> = names[..n]
            .iter()
            .map(|s| hashed_owner(&t, &KeyValue::string(*s)))
            .collect();
        assert_eq!(got.shards, expected.into_iter().collect::<Vec<_>>());
        let chunks: BTreeSet<usize> = names[..n]
            .iter()
            .map(|s| {
                t.route(&ShardKey::single(KeyValue::Int64(hash64(
                    &KeyValue::string(*s),
                ))))
            })
            .collect();
        assert_eq!(got.chunks, chunks.len());
    }
}

#[test]
fn hashed_range_is_a_scatter() {
    let (p, t) = hashed_users();
    assert_scatter(&p, &t, &doc! {"username": {"$gte": "a", "$lt": "b"}});
    assert_scatter(&p, &t, &doc! {"username": {"$gt": 5}});
}

// ---------------------------------------------------------------------------------------------
// 3. Compound hashed {region: 1, userId: "hashed"}
// ---------------------------------------------------------------------------------------------

/// APAC and US chunks on shard 0; EU split four ways over shards 1 and 2.
fn regions() -> (KeyPattern, RoutingTable) {
    let p = pattern(&doc! {"region": 1, "userId": "hashed"});
    let k = |r: &str, h: KeyValue| key(vec![KeyValue::string(r), h]);
    let mut chunks = vec![(p.global_min(), 0), (k("APAC", KeyValue::MinKey), 0)];
    chunks.push((k("EU", KeyValue::MinKey), 1));
    for (i, point) in hashed_split_points(4).into_iter().enumerate() {
        chunks.push((
            k("EU", KeyValue::Int64(point)),
            if i % 2 == 0 { 2 } else { 1 },
        ));
    }
    chunks.push((k("US", KeyValue::MinKey), 0));
    let t = table(&p, chunks);
    (p, t)
}

#[test]
fn compound_hashed_prefix_equality_stays_in_the_region() {
    let (p, t) = regions();
    let got = target(&p, &t, &doc! {"region": "EU"});
    assert_eq!(got.chunks, 4);
    assert_eq!(got.shards, shards(&[1, 2]));
    let got = target(&p, &t, &doc! {"region": "US"});
    assert_eq!(got.chunks, 1);
    assert_single(&got, ShardIdx(0));
}

#[test]
fn compound_hashed_full_equality_is_one_chunk() {
    let (p, t) = regions();
    for user in 0..50 {
        let got = target(&p, &t, &doc! {"region": "EU", "userId": user});
        assert_eq!(got.chunks, 1);
        let k = p
            .key_of(vec![KeyValue::string("EU"), KeyValue::Int32(user)])
            .unwrap();
        assert_single(&got, owner(&t, &k));
    }
    // A range on the hashed field is no constraint: the whole region.
    let got = target(&p, &t, &doc! {"region": "EU", "userId": {"$gt": 7}});
    assert_eq!(got.chunks, 4);
}

// ---------------------------------------------------------------------------------------------
// 5. Type bracketing
// ---------------------------------------------------------------------------------------------

/// Numbers (and everything below strings) on shard 0, strings on shard 1, documents to ObjectIds
/// on shard 2, booleans and dates on shard 3, timestamps and beyond on shard 4.
fn typed() -> (KeyPattern, RoutingTable) {
    let p = pattern(&doc! {"k": 1});
    let single = ShardKey::single;
    let chunks = vec![
        (p.global_min(), 0),
        (single(KeyValue::string("")), 1),
        (single(KeyValue::Document(Box::default())), 2),
        (single(KeyValue::Bool(false)), 3),
        (
            single(KeyValue::Timestamp {
                time: 0,
                increment: 0,
            }),
            4,
        ),
    ];
    let t = table(&p, chunks);
    (p, t)
}

#[test]
fn ranges_stay_within_their_type() {
    let (p, t) = typed();
    // Strings run to the empty document, exclusive; mongos reads the end inclusive and so
    // reaches the chunk starting at `{}` (`chunk_manager.cpp`, isMaxInclusive).
    for filter in [doc! {"k": {"$gte": "a"}}, doc! {"k": {"$gt": "zzz"}}] {
        let got = target(&p, &t, &filter);
        assert_eq!(got.shards, shards(&[1, 2]), "{filter}");
        assert_eq!(got.chunks, 2, "{filter}");
    }
    let cases: Vec<(Document, u32)> = vec![
        (doc! {"k": {"$gt": 5}}, 0),
        (doc! {"k": {"$gte": -5.5}}, 0),
        (doc! {"k": {"$lt": 5_i64}}, 0),
        (doc! {"k": {"$lt": "m"}}, 1),
        (doc! {"k": {"$gt": {"a": 1}}}, 2),
        (
            doc! {"k": {"$lt": bson::oid::ObjectId::from_bytes([7; 12])}},
            2,
        ),
        (doc! {"k": {"$gt": date(0)}}, 3),
        (doc! {"k": {"$lte": date(0)}}, 3),
        (doc! {"k": {"$lt": true}}, 3),
        (
            doc! {"k": {"$gt": Bson::Timestamp(bson::Timestamp { time: 5, increment: 1 })}},
            4,
        ),
        (doc! {"k": {"$gte": Bson::Null}}, 0),
    ];
    for (filter, shard) in cases {
        let got = target(&p, &t, &filter);
        assert_eq!(got.shards, shards(&[shard]), "{filter}");
        assert_eq!(got.chunks, 1, "{filter}");
    }
    // A number range that spans into strings only when asked to: $gt 5 and $lt "b" is nothing.
    let got = target(&p, &t, &doc! {"k": {"$gt": 5, "$lt": "b"}});
    assert_single(&got, ShardIdx(0));
    assert!(key_ranges(&p, &doc! {"k": {"$gt": 5, "$lt": "b"}}).is_empty());
    // MinKey / MaxKey operands cover everything.
    assert_scatter(&p, &t, &doc! {"k": {"$gt": Bson::MinKey}});
    assert_scatter(&p, &t, &doc! {"k": {"$lte": Bson::MaxKey}});
}

#[test]
fn equality_types() {
    let (p, t) = typed();
    assert_single(&target(&p, &t, &doc! {"k": "abc"}), ShardIdx(1));
    assert_single(&target(&p, &t, &doc! {"k": {"x": 1}}), ShardIdx(2));
    assert_single(&target(&p, &t, &doc! {"k": Bson::Null}), ShardIdx(0));
    // An array: the array itself (after documents) and its first element.
    let got = target(&p, &t, &doc! {"k": ["s", 1]});
    assert_eq!(got.shards, shards(&[1, 2]));
    let got = target(&p, &t, &doc! {"k": {"$in": [[], 1]}});
    assert_eq!(got.shards, shards(&[0, 2])); // [] and undefined, and 1
}

// ---------------------------------------------------------------------------------------------
// Dotted paths
// ---------------------------------------------------------------------------------------------

#[test]
fn dotted_key_fields() {
    let p = pattern(&doc! {"user.id": 1});
    let single = |v| ShardKey::single(v);
    let t = table(
        &p,
        vec![
            (p.global_min(), 0),
            (single(KeyValue::Int32(0)), 1),
            (single(KeyValue::Int32(100)), 2),
            (single(KeyValue::string("")), 3),
        ],
    );
    assert_single(&target(&p, &t, &doc! {"user.id": 5}), ShardIdx(1));
    assert_single(
        &target(&p, &t, &doc! {"user.id": {"$gte": 100}}),
        ShardIdx(2),
    );
    // Equality on the parent document fixes the key field.
    assert_single(
        &target(&p, &t, &doc! {"user": {"id": 5, "name": "x"}}),
        ShardIdx(1),
    );
    assert_single(
        &target(&p, &t, &doc! {"user": {"$eq": {"id": 150}}}),
        ShardIdx(2),
    );
    let got = target(&p, &t, &doc! {"user": {"$in": [{"id": 5}, {"id": "z"}]}});
    assert_eq!(got.shards, shards(&[1, 3]));
    // A parent without the field, or not a document: the key is null.
    assert_single(&target(&p, &t, &doc! {"user": {"name": "x"}}), ShardIdx(0));
    assert_single(&target(&p, &t, &doc! {"user": 7}), ShardIdx(0));
    // Not constraining: ranges on the parent, arrays, paths below the key field, other paths.
    for filter in [
        doc! {"user": {"$gt": {"id": 5}}},
        doc! {"user": [{"id": 5}]},
        doc! {"user": {"id": [5]}},
        doc! {"user.id.x": 5},
        doc! {"user.name": "x"},
        doc! {"use": {"r": {"id": 5}}},
    ] {
        assert_scatter(&p, &t, &filter);
    }
}

// ---------------------------------------------------------------------------------------------
// Scale
// ---------------------------------------------------------------------------------------------

#[test]
fn scatter_over_many_chunks() {
    const N: i64 = 200_000;
    let p = pattern(&doc! {"k": 1});
    let mut chunks = vec![(p.global_min(), 0)];
    chunks.extend((0..N).map(|i| (ShardKey::single(KeyValue::Int64(i * 10)), (i % 5) as u32)));
    let t = table(&p, chunks);
    let got = target(&p, &t, &doc! {"other": 1});
    assert_eq!(got.chunks, t.len());
    assert_eq!(got.shards, shards(&[0, 1, 2, 3, 4]));
    // [1000, 1050] as mongos reads it: the chunk starting at 1050 too.
    let got = target(&p, &t, &doc! {"k": {"$gte": 1000, "$lt": 1050}});
    assert_eq!(got.chunks, 6);
    // A long $in stays exact: one point per value.
    let values: Vec<Bson> = (0..10_000).map(|i| Bson::Int64(i * 200)).collect();
    let got = target(&p, &t, &doc! {"k": {"$in": values}});
    assert_eq!(got.chunks, 10_000);
}

// ---------------------------------------------------------------------------------------------
// 4. Property: never miss a shard; exact for equality
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Eq,
    EqShort,
    In,
    Gt,
    Gte,
    Lt,
    Lte,
}

impl Op {
    fn is_equality(self) -> bool {
        matches!(self, Op::Eq | Op::EqShort | Op::In)
    }

    fn holds(self, v: i64, operands: &[i64]) -> bool {
        match self {
            Op::Eq | Op::EqShort => v == operands[0],
            Op::In => operands.contains(&v),
            Op::Gt => v > operands[0],
            Op::Gte => v >= operands[0],
            Op::Lt => v < operands[0],
            Op::Lte => v <= operands[0],
        }
    }

    fn name(self) -> &'static str {
        match self {
            Op::Eq | Op::EqShort => "$eq",
            Op::In => "$in",
            Op::Gt => "$gt",
            Op::Gte => "$gte",
            Op::Lt => "$lt",
            Op::Lte => "$lte",
        }
    }
}

#[derive(Clone, Debug)]
struct Clause {
    on_key: bool,
    op: Op,
    /// One operand except for `$in` (any number), with how each is written (0 int64, 1 int32,
    /// 2 double).
    operands: Vec<(i64, u8)>,
}

impl Clause {
    fn values(&self) -> Vec<i64> {
        self.operands.iter().map(|&(v, _)| v).collect()
    }

    fn to_document(&self) -> Document {
        let bson = |&(v, how): &(i64, u8)| match how {
            1 if i32::try_from(v).is_ok() => Bson::Int32(v as i32),
            2 if v.unsigned_abs() < 1 << 40 => Bson::Double(v as f64),
            _ => Bson::Int64(v),
        };
        let field = if self.on_key { "k" } else { "other" };
        let value = match self.op {
            Op::EqShort => bson(&self.operands[0]),
            Op::In => doc! {"$in": self.operands.iter().map(bson).collect::<Vec<_>>()}.into(),
            op => {
                let mut ops = Document::new();
                ops.insert(op.name(), bson(&self.operands[0]));
                ops.into()
            }
        };
        let mut out = Document::new();
        out.insert(field, value);
        out
    }
}

/// A disjunction of conjunctions of clauses.
#[derive(Clone, Debug)]
struct Filter {
    branches: Vec<Vec<Clause>>,
}

impl Filter {
    fn to_document(&self) -> Document {
        let conj = |clauses: &Vec<Clause>| -> Document {
            match &clauses[..] {
                [only] => only.to_document(),
                many => doc! {"$and": many.iter().map(Clause::to_document).collect::<Vec<_>>()},
            }
        };
        match &self.branches[..] {
            [only] => conj(only),
            many => doc! {"$or": many.iter().map(conj).collect::<Vec<_>>()},
        }
    }

    fn matches(&self, v: i64) -> bool {
        self.branches.iter().any(|clauses| {
            clauses
                .iter()
                .filter(|c| c.on_key)
                .all(|c| c.op.holds(v, &c.values()))
        })
    }

    /// Every branch pins the key by equality / $in only.
    fn is_pure_equality(&self) -> bool {
        self.branches.iter().all(|clauses| {
            let keyed: Vec<&Clause> = clauses.iter().filter(|c| c.on_key).collect();
            !keyed.is_empty() && keyed.iter().all(|c| c.op.is_equality())
        })
    }

    fn constants(&self) -> impl Iterator<Item = i64> + '_ {
        self.branches.iter().flatten().flat_map(Clause::values)
    }
}

fn value() -> impl Strategy<Value = i64> {
    prop_oneof![
        10 => -70i64..70,
        1 => prop::sample::select(vec![i64::MIN, i64::MIN + 1, i64::MAX - 1, i64::MAX]),
    ]
}

fn clause() -> impl Strategy<Value = Clause> {
    let op = prop::sample::select(vec![
        Op::Eq,
        Op::EqShort,
        Op::In,
        Op::Gt,
        Op::Gte,
        Op::Lt,
        Op::Lte,
    ]);
    (
        prop::bool::weighted(0.8),
        op,
        prop::collection::vec((value(), 0u8..3), 0..5),
    )
        .prop_map(|(on_key, op, mut operands)| {
            if op != Op::In {
                operands.truncate(1);
                if operands.is_empty() {
                    operands.push((0, 0));
                }
            }
            Clause {
                on_key,
                op,
                operands,
            }
        })
}

fn filter() -> impl Strategy<Value = Filter> {
    prop::collection::vec(prop::collection::vec(clause(), 1..4), 1..4)
        .prop_map(|branches| Filter { branches })
}

/// Random Int64 split points and shards.
fn int_table() -> impl Strategy<Value = (KeyPattern, RoutingTable, Vec<i64>)> {
    let points = prop::collection::vec(value(), 0..12);
    (points, prop::collection::vec(0u32..4, 13)).prop_map(|(mut points, owners)| {
        points.sort_unstable();
        points.dedup();
        let p = pattern(&doc! {"k": 1});
        let mut chunks = vec![(p.global_min(), owners[0])];
        for (i, point) in points.iter().enumerate() {
            chunks.push((ShardKey::single(KeyValue::Int64(*point)), owners[i + 1]));
        }
        let t = table(&p, chunks);
        (p, t, points)
    })
}

/// Integer values around every bound and constant: enough to reach every chunk an integer can
/// be in, and every side of every comparison.
fn candidates(points: &[i64], filter: &Filter) -> BTreeSet<i64> {
    let mut out: BTreeSet<i64> = [i64::MIN, i64::MAX, 0].into_iter().collect();
    for c in points.iter().copied().chain(filter.constants()) {
        out.extend([c.saturating_sub(1), c, c.saturating_add(1)]);
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn targeting_never_misses_a_shard((p, t, points) in int_table(), f in filter()) {
        let filter = f.to_document();
        let got = target(&p, &t, &filter);
        prop_assert!(!got.shards.is_empty());
        prop_assert!(got.shards.windows(2).all(|w| w[0] < w[1]), "not sorted: {:?}", got.shards);
        prop_assert_eq!(got.kind == TargetKind::SingleShard, got.shards.len() == 1);
        prop_assert!(got.chunks >= 1 && got.chunks <= t.len());

        let mut owners = BTreeSet::new();
        let mut chunks = BTreeSet::new();
        for v in candidates(&points, &f) {
            if f.matches(v) {
                let c = t.route(&ShardKey::single(KeyValue::Int64(v)));
                chunks.insert(c);
                owners.insert(t.chunk(c).info.shard);
            }
        }
        for shard in &owners {
            prop_assert!(got.shards.contains(shard), "{} misses {} in {:?}", filter, shard, got);
        }
        prop_assert!(got.chunks >= chunks.len(), "{}: {:?} vs chunks {:?}", filter, got, chunks);

        if f.is_pure_equality() {
            if owners.is_empty() {
                owners.insert(t.chunk(0).info.shard);
                chunks.insert(0);
            }
            prop_assert_eq!(&got.shards, &owners.into_iter().collect::<Vec<_>>(), "{}", filter);
            prop_assert_eq!(got.chunks, chunks.len(), "{}", filter);
        }
    }
}
