#![allow(clippy::unwrap_used)]
//! Zones defined before `shardCollection` (reference §3.9): the ranges wait for the collection,
//! survive trace keyframes, and the empty collection is laid out by SingleChunkPerTag.

use bson::{Bson, doc};
use shardtop::cluster::ServerVersion;
use shardtop::model::KeyPattern;
use shardtop::sim::ops::ShardCollectionOptions;
use shardtop::sim::{Simulator, scenario};
use shardtop::trace::state_codec;

fn cluster(shards: u32, version: &str) -> Simulator {
    let text = format!(
        r#"{{"name": "t", "description": "t", "seedPassage": "t", "shards": {shards},
            "collections": [], "until": 1}}"#
    );
    let sc = scenario::parse(&text).unwrap();
    Simulator::from_scenario(&sc, 1, Some(version.parse::<ServerVersion>().unwrap())).unwrap()
}

fn zoned(version: &str) -> Simulator {
    let mut sim = cluster(4, version);
    sim.add_shard_to_zone("shard0000", "EU").unwrap();
    sim.add_shard_to_zone("shard0001", "EU").unwrap();
    sim.add_shard_to_zone("shard0002", "US").unwrap();
    for (min, max, zone) in [(0, 10, "EU"), (20, 30, "EU"), (40, 50, "US")] {
        sim.update_zone_key_range("app.users", &doc! {"x": min}, &doc! {"x": max}, Some(zone))
            .unwrap();
    }
    sim
}

fn layout(sim: &Simulator, ns: &str) -> Vec<(String, u32)> {
    let c = sim.cluster.collection(ns).unwrap();
    c.table
        .iter()
        .map(|ch| (c.pattern.bound_to_json(ch.min).to_string(), ch.info.shard.0))
        .collect()
}

#[test]
fn ranges_of_an_unsharded_namespace_wait_for_shard_collection() {
    let mut sim = zoned("8.0");
    assert_eq!(sim.cluster.pending_zones.len(), 3);
    assert!(sim.cluster.collection("app.users").is_none());
    let key = KeyPattern::parse(&doc! {"x": 1}).unwrap();
    sim.shard_collection("app.users", key, &ShardCollectionOptions::default())
        .unwrap();
    assert!(sim.cluster.pending_zones.is_empty());
    let got = layout(&sim, "app.users");
    let shards: Vec<u32> = got.iter().map(|(_, s)| *s).collect();
    // holes round-robin over all shards, each zone's ranges round-robin over the zone's shards
    assert_eq!(shards, vec![0, 0, 1, 1, 2, 2, 3], "{got:?}");
    assert_eq!(got[1].0, r#"{"x":{"$numberInt":"0"}}"#);
    assert_eq!(got[6].0, r#"{"x":{"$numberInt":"50"}}"#);
    let c = sim.cluster.collection("app.users").unwrap();
    assert_eq!(c.zones.len(), 3);
    assert_eq!(
        c.zones
            .zone_of_chunk(c.table.chunk(3).min, c.table.chunk(3).max),
        Some("EU")
    );
}

#[test]
fn a_zoned_hashed_key_gets_one_chunk_per_range_whatever_the_version() {
    for (version, unzoned) in [("5.0", 8), ("7.0", 8), ("8.0", 4)] {
        let mut sim = cluster(4, version);
        let key = KeyPattern::parse(&doc! {"u": "hashed"}).unwrap();
        sim.shard_collection("app.plain", key.clone(), &ShardCollectionOptions::default())
            .unwrap();
        assert_eq!(layout(&sim, "app.plain").len(), unzoned, "{version}");
        sim.add_shard_to_zone("shard0002", "ALL").unwrap();
        sim.update_zone_key_range(
            "app.zoned",
            &doc! {"u": Bson::MinKey},
            &doc! {"u": Bson::MaxKey},
            Some("ALL"),
        )
        .unwrap();
        sim.shard_collection("app.zoned", key, &ShardCollectionOptions::default())
            .unwrap();
        let got = layout(&sim, "app.zoned");
        assert_eq!(got.len(), 1, "{version}: {got:?}");
        assert_eq!(got[0].1, 2);
    }
}

#[test]
fn pending_ranges_are_checked_and_can_be_removed() {
    let mut sim = zoned("8.0");
    let err = sim
        .update_zone_key_range("app.users", &doc! {"x": 5}, &doc! {"x": 1}, Some("EU"))
        .unwrap_err();
    assert_eq!(err.code_name, "BadValue");
    let err = sim
        .update_zone_key_range("app.users", &doc! {"x": 60}, &doc! {"x": 70}, Some("APAC"))
        .unwrap_err();
    assert_eq!(err.code_name, "ZoneNotFound");
    sim.update_zone_key_range("app.users", &doc! {"x": 40}, &doc! {"x": 50}, None)
        .unwrap();
    assert_eq!(sim.cluster.pending_zones.len(), 2);
    // A range on a field that is not the shard key's prefix refuses the shardCollection.
    sim.update_zone_key_range("app.other", &doc! {"y": 1}, &doc! {"y": 2}, Some("EU"))
        .unwrap();
    let key = KeyPattern::parse(&doc! {"x": 1}).unwrap();
    let err = sim
        .shard_collection("app.other", key, &ShardCollectionOptions::default())
        .unwrap_err();
    assert_eq!(err.code_name, "BadValue");
    assert!(sim.cluster.collection("app.other").is_none());
}

#[test]
fn pending_ranges_survive_a_keyframe() {
    let sim = zoned("7.0");
    let line = state_codec::encode(&sim.cluster);
    let back = state_codec::decode(&line).unwrap();
    assert_eq!(back.pending_zones, sim.cluster.pending_zones);
    assert_eq!(back.pending_zones[2].zone, "US");
}

fn presplit() -> ShardCollectionOptions {
    ShardCollectionOptions {
        presplit_hashed_zones: true,
        ..ShardCollectionOptions::default()
    }
}

#[test]
fn presplit_hashed_zones_with_a_hashed_prefix_cuts_the_one_range_per_shard_of_the_zone() {
    let mut sim = cluster(3, "7.0");
    sim.add_shard_to_zone("shard0000", "ALL").unwrap();
    sim.add_shard_to_zone("shard0001", "ALL").unwrap();
    sim.update_zone_key_range(
        "app.users",
        &doc! {"userId": Bson::MinKey},
        &doc! {"userId": Bson::MaxKey},
        Some("ALL"),
    )
    .unwrap();
    let key = KeyPattern::parse(&doc! {"userId": "hashed"}).unwrap();
    sim.shard_collection("app.users", key, &presplit()).unwrap();
    let got = layout(&sim, "app.users");
    // 2 shards carry the zone: numInitialChunks = 4, 2 per shard, contiguous; none on shard0002.
    let shards: Vec<u32> = got.iter().map(|(_, s)| *s).collect();
    assert_eq!(shards, vec![0, 0, 1, 1], "{got:?}");
    let mins: Vec<&str> = got.iter().map(|(m, _)| m.as_str()).collect();
    assert_eq!(
        mins,
        [
            r#"{"userId":{"$minKey":1}}"#,
            r#"{"userId":{"$numberLong":"-4611686018427387902"}}"#,
            r#"{"userId":{"$numberLong":"0"}}"#,
            r#"{"userId":{"$numberLong":"4611686018427387902"}}"#,
        ]
    );
}

#[test]
fn presplit_hashed_zones_with_a_range_prefix_splits_each_region_over_its_shards() {
    // Before 7.2: numInitialChunks = 2 × 3 shards with zones = 6, 2 per shard (EU 4 chunks, US 2);
    // from 7.2 one chunk per shard of each zone (EU 2, US 1). Plus the three holes around them.
    for (version, len, eu_owners) in [
        ("7.0", 4 + 2 + 3, vec![0, 0, 1, 1]),
        ("8.0", 2 + 1 + 3, vec![0, 1]),
    ] {
        let mut sim = cluster(3, version);
        sim.add_shard_to_zone("shard0000", "EU").unwrap();
        sim.add_shard_to_zone("shard0001", "EU").unwrap();
        sim.add_shard_to_zone("shard0002", "US").unwrap();
        for (region, zone) in [("EU", "EU"), ("US", "US")] {
            sim.update_zone_key_range(
                "app.users",
                &doc! {"region": region, "userId": Bson::MinKey},
                &doc! {"region": region, "userId": Bson::MaxKey},
                Some(zone),
            )
            .unwrap();
        }
        let key = KeyPattern::parse(&doc! {"region": 1, "userId": "hashed"}).unwrap();
        sim.shard_collection("app.users", key, &presplit()).unwrap();
        let c = sim.cluster.collection("app.users").unwrap();
        assert_eq!(c.table.len(), len, "{version}");
        for ch in c.table.iter() {
            if let Some(zone) = c.zones.zone_of_chunk(ch.min, ch.max) {
                let shard = &sim.cluster.shards[ch.info.shard.index()].shard;
                assert!(
                    shard.zones.contains(zone),
                    "{ch:?} is in {zone} but on {}",
                    shard.id
                );
            }
        }
        let eu: Vec<u32> = c
            .table
            .iter()
            .filter(|ch| c.zones.zone_of_chunk(ch.min, ch.max) == Some("EU"))
            .map(|ch| ch.info.shard.0)
            .collect();
        assert_eq!(eu, eu_owners, "{version}");
        c.table.check_invariants().unwrap();
    }
}

#[test]
fn presplit_hashed_zones_refusals() {
    // No zones.
    let mut sim = cluster(3, "8.0");
    let key = KeyPattern::parse(&doc! {"userId": "hashed"}).unwrap();
    let err = sim.shard_collection("app.a", key, &presplit()).unwrap_err();
    assert_eq!(err.code_name, "InvalidOptions", "{err}");
    // Not a hashed key.
    let mut sim = zoned("8.0");
    let key = KeyPattern::parse(&doc! {"x": 1}).unwrap();
    let err = sim
        .shard_collection("app.users", key, &presplit())
        .unwrap_err();
    assert!(err.to_string().contains("hashed field"), "{err}");
    // A hashed prefix whose one range does not cover the key space.
    let mut sim = cluster(3, "8.0");
    sim.add_shard_to_zone("shard0000", "Z").unwrap();
    sim.update_zone_key_range(
        "app.b",
        &doc! {"h": Bson::MinKey},
        &doc! {"h": 0_i64},
        Some("Z"),
    )
    .unwrap();
    let key = KeyPattern::parse(&doc! {"h": "hashed"}).unwrap();
    let err = sim.shard_collection("app.b", key, &presplit()).unwrap_err();
    assert!(err.to_string().contains("[MinKey, MaxKey)"), "{err}");
}

#[test]
fn a_scenario_file_can_define_zones_first_and_presplit_them() {
    // zones-gdpr with its zones defined first: ranges of an unsharded namespace are given in full
    // (min and max on the same fields, as MongoDB requires before it knows the key).
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/assets/scenarios/zones-gdpr.json"
    ))
    .unwrap()
    .replace(
        r#""primary": "shard0002" }"#,
        r#""primary": "shard0002", "zonesFirst": true, "presplitHashedZones": true }"#,
    )
    .replace(
        r#""min": { "region": "EU" }"#,
        r#""min": { "region": "EU", "userId": { "$minKey": 1 } }"#,
    )
    .replace(
        r#""min": { "region": "US" }"#,
        r#""min": { "region": "US", "userId": { "$minKey": 1 } }"#,
    );
    let sc = scenario::parse(&text).unwrap();
    assert!(sc.collections[0].zones_first && sc.collections[0].presplit_hashed_zones);
    let mut sim = Simulator::from_scenario(&sc, sc.seed, None).unwrap();
    let c = sim.cluster.collection("app.users").unwrap();
    // 8.0: one chunk per shard of each zone (EU and US 2 each), and 3 holes.
    assert_eq!(c.table.len(), 7);
    let in_zone_on_own_shard = |sim: &Simulator| {
        let c = sim.cluster.collection("app.users").unwrap();
        c.table.iter().all(|ch| {
            c.zones.zone_of_chunk(ch.min, ch.max).is_none_or(|z| {
                sim.cluster.shards[ch.info.shard.index()]
                    .shard
                    .zones
                    .contains(z)
            })
        })
    };
    assert!(in_zone_on_own_shard(&sim), "every chunk starts in its zone");
    sim.run_until((sc.until * 1000.0) as u64);
    assert!(in_zone_on_own_shard(&sim));
    let zone_moves = sim
        .take_events()
        .iter()
        .filter(|e| {
            matches!(
                &e.kind,
                shardtop::cluster::EventKind::MigrationStarted { reason, .. }
                    if *reason == shardtop::cluster::event::MigrationReason::ZoneViolation
            )
        })
        .count();
    assert_eq!(zone_moves, 0, "nothing had to move into its zone");
}

/// 9.0 (master's `db/s/config/initial_split_policy.cpp`, `AbstractTagsBasedSplitPolicy::
/// createFirstChunks`): the holes between zone ranges go to the shards not draining in the order
/// of the fixed-seed shuffle (`getAllNonDrainingShardIdsShuffled`: [2, 3, 1, 0] for four shards),
/// the zones' chunks round-robin over their shards in `config.shards` order.
#[test]
fn initial_split_policy_cpp_9_0_deals_the_holes_over_the_shuffled_shards() {
    let key = || KeyPattern::parse(&doc! {"x": 1}).unwrap();
    let shards_of = |sim: &Simulator| -> Vec<u32> {
        layout(sim, "app.users").iter().map(|(_, s)| *s).collect()
    };
    let mut sim = zoned("9.0");
    sim.shard_collection("app.users", key(), &ShardCollectionOptions::default())
        .unwrap();
    // hole, EU, hole, EU, hole, US, hole
    assert_eq!(shards_of(&sim), vec![2, 0, 3, 1, 1, 2, 0]);
    // A draining shard takes no hole: the shuffle of [0, 1, 2] is [2, 0, 1].
    let mut sim = zoned("9.0");
    sim.remove_shard("shard0003").unwrap();
    sim.shard_collection("app.users", key(), &ShardCollectionOptions::default())
        .unwrap();
    assert_eq!(shards_of(&sim), vec![2, 0, 0, 1, 1, 2, 2]);
    // 8.0: every shard, in `config.shards` order.
    let mut sim = zoned("8.0");
    sim.remove_shard("shard0003").unwrap();
    sim.shard_collection("app.users", key(), &ShardCollectionOptions::default())
        .unwrap();
    assert_eq!(shards_of(&sim), vec![0, 0, 1, 1, 2, 2, 3]);
}

/// 9.0 `presplitHashedZones` (master's `initial_split_policy.cpp`, `buildTagsToShardIdsMap`):
/// a zone's chunks go to its shards in `config.shards` order; only the holes are shuffled. In
/// 8.0 the simulator deals the zone's chunks in the shuffled order too.
#[test]
fn initial_split_policy_cpp_9_0_keeps_zone_chunks_in_config_shards_order() {
    for (version, eu_owners, holes) in [("8.0", [2, 1], [2, 0, 1]), ("9.0", [1, 2], [2, 0, 1])] {
        let mut sim = cluster(3, version);
        sim.add_shard_to_zone("shard0001", "EU").unwrap();
        sim.add_shard_to_zone("shard0002", "EU").unwrap();
        sim.add_shard_to_zone("shard0000", "US").unwrap();
        for (region, zone) in [("EU", "EU"), ("US", "US")] {
            sim.update_zone_key_range(
                "app.users",
                &doc! {"region": region, "userId": Bson::MinKey},
                &doc! {"region": region, "userId": Bson::MaxKey},
                Some(zone),
            )
            .unwrap();
        }
        let key = KeyPattern::parse(&doc! {"region": 1, "userId": "hashed"}).unwrap();
        sim.shard_collection("app.users", key, &presplit()).unwrap();
        let c = sim.cluster.collection("app.users").unwrap();
        let of = |zone: Option<&str>| -> Vec<u32> {
            c.table
                .iter()
                .filter(|ch| c.zones.zone_of_chunk(ch.min, ch.max) == zone)
                .map(|ch| ch.info.shard.0)
                .collect()
        };
        assert_eq!(of(Some("EU")), eu_owners, "{version}");
        assert_eq!(of(None), holes, "{version}");
    }
}
