#![allow(clippy::unwrap_used)]
//! Zones defined before `shardCollection` (reference §3.9): the ranges wait for the collection,
//! survive trace keyframes, and the empty collection is laid out by SingleChunkPerTag.

use bson::{Bson, doc};
use shardtop::model::KeyPattern;
use shardtop::sim::ops::ShardCollectionOptions;
use shardtop::sim::{ServerVersion, Simulator, scenario};
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
    let line = state_codec::encode(&sim);
    let back = state_codec::decode(&line).unwrap();
    assert_eq!(back.cluster.pending_zones, sim.cluster.pending_zones);
    assert_eq!(back.cluster.pending_zones[2].zone, "US");
}
