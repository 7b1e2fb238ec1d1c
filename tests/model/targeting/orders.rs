//! shop.orders resharded to {customerId: 1, placedAt: 1}: equality, ranges, $in/$or, inclusivity, unsatisfiable filters.

use super::*;

// 1. shop.orders resharded to {customerId: 1, placedAt: 1}

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
