//! Type bracketing, dotted paths and a large table.

use super::*;

// 5. Type bracketing

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

// Dotted paths

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

// Scale

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
