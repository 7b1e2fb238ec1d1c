//! Hashed {username: "hashed"} and compound hashed {region: 1, userId: "hashed"} keys.

use super::*;

// 2. Hashed {username: "hashed"}, MongoDB's six initial chunks on three shards

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

// 3. Compound hashed {region: 1, userId: "hashed"}

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
