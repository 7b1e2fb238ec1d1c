//! `reshardCollection`'s `shardDistribution` (7.2+) and `zones`: where the new chunks go, and the
//! config server's refusals.
#![allow(clippy::unwrap_used)]

use shardtop::cluster::resharding::ShardKeyRange;
use shardtop::model::{KeyPattern, KeyValue, ShardIdx, ShardKey};
use shardtop::sim::resharding::reshard_layout::ReshardRequest;
use shardtop::sim::{Simulator, scenario};

fn sim(version: &str) -> Simulator {
    let text = r#"{"name": "t", "description": "t", "seedPassage": "t", "shards": 3,
      "collections": [{"ns": "app.c", "key": {"x": 1}, "keepDocuments": true}],
      "workloads": [{"ns": "app.c", "rate": 1000, "count": 2000, "docSize": 100,
        "fields": {"x": {"uniformInt": {"min": 0, "max": 1000}}, "y": {"uniformInt": {"min": 0, "max": 100}}}}],
      "until": 10}"#;
    let sc = scenario::parse(text).unwrap();
    let mut s = Simulator::from_scenario(&sc, 1, Some(version.parse().unwrap())).unwrap();
    s.run_until(5_000);
    s
}

fn key(json: &str) -> KeyPattern {
    KeyPattern::parse_json(json).unwrap()
}

fn x(v: i32) -> ShardKey {
    ShardKey::single(KeyValue::Int32(v))
}

fn layout(s: &Simulator) -> Vec<(String, ShardIdx)> {
    let c = &s.cluster.collections[0];
    c.table
        .iter()
        .map(|ch| (s.cluster.bound_text("app.c", ch.min), ch.info.shard))
        .collect()
}

fn same_key(dist: Vec<ShardKeyRange>) -> ReshardRequest {
    ReshardRequest {
        force_redistribution: true,
        distribution: dist,
        ..ReshardRequest::new(key(r#"{"x": 1}"#))
    }
}

fn range(shard: u32, min: ShardKey, max: ShardKey) -> ShardKeyRange {
    ShardKeyRange {
        shard: ShardIdx(shard),
        range: Some((min, max)),
    }
}

#[test]
fn explicit_ranges_become_the_chunks() {
    let mut s = sim("8.0");
    let p = key(r#"{"x": 1}"#);
    let req = same_key(vec![
        range(2, p.global_min(), x(500)),
        range(0, x(500), p.global_max()),
    ]);
    s.start_resharding("app.c", req).unwrap();
    s.run_until(400_000);
    let l = layout(&s);
    assert_eq!(l.len(), 2, "{l:?}");
    assert_eq!((l[0].1, l[1].1), (ShardIdx(2), ShardIdx(0)));
    let docs: u64 = s.cluster.collections[0]
        .table
        .iter()
        .map(|c| c.info.stats.docs)
        .sum();
    assert_eq!(docs, 2_000);
}

#[test]
fn listed_shards_only_receive_the_chunks() {
    let mut s = sim("8.0");
    let mut req = same_key(vec![ShardKeyRange {
        shard: ShardIdx(1),
        range: None,
    }]);
    req.num_initial_chunks = Some(4);
    s.start_resharding("app.c", req).unwrap();
    s.run_until(400_000);
    let l = layout(&s);
    assert_eq!(l.len(), 4, "{l:?}");
    assert!(l.iter().all(|(_, sh)| *sh == ShardIdx(1)), "{l:?}");
}

#[test]
fn bad_distributions_are_refused_with_the_servers_words() {
    let mut s = sim("8.0");
    let p = key(r#"{"x": 1}"#);
    let cases = [
        (
            vec![
                range(0, p.global_min(), x(10)),
                range(1, x(20), p.global_max()),
            ],
            "ShardKeyRanges must be continuous",
        ),
        (
            vec![range(0, x(0), p.global_max())],
            "ShardKeyRange must start at global min for the new shard key",
        ),
        (
            vec![range(0, p.global_min(), x(5))],
            "ShardKeyRange must end at global max for the new shard key",
        ),
        (
            vec![
                range(0, p.global_min(), x(5)),
                ShardKeyRange {
                    shard: ShardIdx(1),
                    range: None,
                },
            ],
            "All ShardKeyRanges should have the same min/max pattern",
        ),
        (
            vec![
                ShardKeyRange {
                    shard: ShardIdx(1),
                    range: None,
                },
                ShardKeyRange {
                    shard: ShardIdx(1),
                    range: None,
                },
            ],
            "Non-explicit shardDistribution should have unique shardIds",
        ),
    ];
    for (dist, message) in cases {
        let e = s.start_resharding("app.c", same_key(dist)).unwrap_err();
        assert_eq!(
            (e.code_name, e.message.as_str()),
            ("InvalidOptions", message)
        );
    }
    let mut old = sim("7.0");
    let req = ReshardRequest {
        distribution: vec![ShardKeyRange {
            shard: ShardIdx(1),
            range: None,
        }],
        ..ReshardRequest::new(key(r#"{"y": 1}"#))
    };
    let e = old.start_resharding("app.c", req).unwrap_err();
    assert_eq!(
        e.message,
        "BSON field 'reshardCollection.shardDistribution' is an unknown field."
    );
}

#[test]
fn zones_must_be_given_for_a_new_key_and_place_the_new_chunks() {
    let mut s = sim("8.0");
    s.add_shard_to_zone("shard0002", "Z").unwrap();
    s.update_zone_key_range(
        "app.c",
        &bson::doc! {"x": 0},
        &bson::doc! {"x": 100},
        Some("Z"),
    )
    .unwrap();
    let e = s
        .start_resharding("app.c", ReshardRequest::new(key(r#"{"y": 1}"#)))
        .unwrap_err();
    assert_eq!(
        (e.code_name, e.message.as_str()),
        ("BadValue", "Must specify value for zones field")
    );
    let y = key(r#"{"y": 1}"#);
    let zone = shardtop::model::zones::ZoneRange {
        min: ShardKey::single(KeyValue::Int32(0)),
        max: ShardKey::single(KeyValue::Int32(50)),
        zone: "Z".to_string(),
    };
    let req = ReshardRequest {
        zones: Some(vec![zone.clone()]),
        num_initial_chunks: Some(6),
        ..ReshardRequest::new(y)
    };
    s.start_resharding("app.c", req).unwrap();
    s.run_until(400_000);
    let c = &s.cluster.collections[0];
    assert_eq!(
        c.zones.iter().cloned().collect::<Vec<_>>(),
        std::slice::from_ref(&zone)
    );
    for ch in c.table.iter() {
        if *ch.min >= zone.min && *ch.max <= zone.max {
            assert_eq!(
                ch.info.shard,
                ShardIdx(2),
                "a chunk of zone Z off its shard"
            );
        }
    }
    assert!(
        c.table.iter().any(|ch| *ch.min == zone.max),
        "split at the zone's max"
    );
}
