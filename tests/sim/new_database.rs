//! A new database's primary shard: the shard holding the least data, the first in `config.shards`
//! order on a tie; from 7.0 never a draining shard.
// 4.x `sharding_catalog_manager` (`_selectShardForNewDatabase`), 7.0/8.0-era
// `sharding_catalog_manager_database_operations.cpp` (`shardutil::selectLeastLoadedShard`).
#![allow(clippy::unwrap_used)]

use shardtop::model::{KeyPattern, ShardIdx};
use shardtop::sim::ops::ShardCollectionOptions;
use shardtop::sim::{Simulator, scenario};

/// Three shards; `app.big` holds 1,000 documents on shard0000 and `app.small` 10 on shard0001.
fn cluster(version: &str) -> Simulator {
    let text = format!(
        r#"{{"name": "t", "description": "t", "seedPassage": "t", "serverVersion": "{version}",
        "shards": 3, "chunkSizeMb": 64, "balancer": false,
        "collections": [
            {{"ns": "app.big", "key": {{"x": 1}}, "primary": "shard0000"}},
            {{"ns": "app.small", "key": {{"x": 1}}, "initialLayout": {{
                "splitPoints": [], "shards": ["shard0001"]}}}}],
        "workloads": [
            {{"ns": "app.big", "rate": 100000, "count": 1000, "docSize": 200,
              "fields": {{"x": {{"uniformInt": {{"min": 0, "max": 100}}}}}}}},
            {{"ns": "app.small", "rate": 100000, "count": 10, "docSize": 200,
              "fields": {{"x": {{"uniformInt": {{"min": 0, "max": 100}}}}}}}}],
        "until": 10}}"#
    );
    let sc = scenario::parse(&text).unwrap();
    let mut s = Simulator::from_scenario(&sc, 1, None).unwrap();
    s.run_until(1_000);
    s
}

fn shard_new(s: &mut Simulator, ns: &str) -> ShardIdx {
    let key = KeyPattern::parse_json(r#"{"y": 1}"#).unwrap();
    s.shard_collection(ns, key, &ShardCollectionOptions::default())
        .unwrap();
    s.cluster.databases[ns.split_once('.').unwrap().0]
}

#[test]
fn a_new_database_goes_to_the_least_loaded_shard() {
    for version in ["4.4", "6.0", "7.0", "8.0", "9.0"] {
        let mut s = cluster(version);
        assert_eq!(shard_new(&mut s, "fresh.c"), ShardIdx(2), "{version}");
        // An existing database keeps its primary.
        assert_eq!(shard_new(&mut s, "app.other"), s.cluster.databases["app"]);
    }
}

#[test]
fn from_7_0_a_draining_shard_is_never_a_new_database_s_primary() {
    for (version, expected) in [("6.0", 2), ("7.0", 1), ("8.0", 1), ("9.0", 1)] {
        let mut s = cluster(version);
        s.remove_shard("shard0002").unwrap();
        assert!(s.cluster.shards[2].shard.draining, "{version}");
        assert_eq!(
            shard_new(&mut s, "fresh.c"),
            ShardIdx(expected),
            "{version}"
        );
    }
}
