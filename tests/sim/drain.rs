//! removeShard: draining round by round, a jumbo chunk blocking completion, refusals.
#![allow(clippy::unwrap_used)]

use shardtop::cluster::{Event, EventKind, ServerVersion, SummaryOptions};
use shardtop::model::{KeyValue, ShardIdx, ShardKey};
use shardtop::sim::drains::RemoveShardState;
use shardtop::sim::{Simulator, scenario};

fn start(name: &str) -> Simulator {
    let sc = scenario::built_in(name).unwrap().unwrap();
    Simulator::from_scenario(&sc, sc.seed, None).unwrap()
}

fn start_at(name: &str, version: &str) -> Simulator {
    let sc = scenario::built_in(name).unwrap().unwrap();
    Simulator::from_scenario(
        &sc,
        sc.seed,
        Some(version.parse::<ServerVersion>().unwrap()),
    )
    .unwrap()
}

/// The drain scenario's events up to `until_ms` at `version`.
fn drain_events(version: &str, until_ms: u64) -> (Simulator, Vec<Event>) {
    let mut sim = start_at("drain", version);
    sim.run_until(until_ms);
    let events = sim.take_events();
    (sim, events)
}

#[test]
fn the_whale_is_marked_jumbo_by_a_failed_balancing_migration_before_the_drain() {
    let (_, events) = drain_events("8.0", 30_000);
    let failed = events
        .iter()
        .find_map(|e| match &e.kind {
            EventKind::MigrationFailed { error, .. } => Some((e.at_ms, error.code_name)),
            _ => None,
        })
        .unwrap();
    assert_eq!(failed.1, "ChunkTooBig");
    let jumbo_at = events
        .iter()
        .find(|e| matches!(e.kind, EventKind::JumboMarked { .. }))
        .unwrap()
        .at_ms;
    let drain_at = events
        .iter()
        .find(|e| matches!(e.kind, EventKind::ShardDraining { .. }))
        .unwrap()
        .at_ms;
    assert_eq!(
        jumbo_at, failed.0,
        "splitOrMarkJumbo right after the failure"
    );
    assert!(jumbo_at < drain_at, "{jumbo_at} < {drain_at}");
}

#[test]
fn drain_migrations_are_forced_whole_chunks_before_7_0_and_chunk_size_ranges_from_7_0() {
    let limit = 2 * (1 << 20);
    for (version, whole) in [
        ("6.0", true),
        ("7.0", false),
        ("8.0", false),
        ("9.0", false),
    ] {
        let (_, events) = drain_events(version, 240_000);
        let mut drained = Vec::new();
        for e in &events {
            match &e.kind {
                EventKind::MigrationStarted { reason, bytes, .. } if reason.is_drain() => {
                    drained.push(*bytes);
                }
                EventKind::MigrationFailed { range, .. } => {
                    assert!(
                        range.from != ShardIdx(3) || e.at_ms < 21_000,
                        "{version}: {e:?}"
                    );
                }
                _ => {}
            }
        }
        assert!(drained.len() >= 2, "{version}: {drained:?}");
        let biggest = drained.iter().copied().max().unwrap();
        if whole {
            assert!(
                biggest > limit,
                "{version}: a chunk over the limit moved by force"
            );
        } else {
            assert!(
                biggest <= 1 << 20,
                "{version}: chunk-size pieces, {biggest}"
            );
        }
    }
}

#[test]
fn removal_waits_for_the_jumbo_chunk_then_for_move_primary_then_for_a_second_remove_shard() {
    let (mut sim, _) = drain_events("8.0", 245_000);
    let shard = ShardIdx(3);
    assert!(sim.cluster.shards[3].shard.draining, "still draining");
    assert_eq!(sim.owned_chunks(shard), (1, 1), "only the jumbo chunk");
    assert!(
        sim.cluster
            .balancer
            .why_not
            .iter()
            .any(|w| w.contains("only jumbo chunks")),
        "{:?}",
        sim.cluster.balancer.why_not
    );
    let ongoing = |chunks, jumbo, dbs: &[&str]| RemoveShardState::Ongoing {
        chunks,
        jumbo,
        dbs_to_move: dbs.iter().map(ToString::to_string).collect(),
        collections_to_move: Vec::new(),
    };
    assert_eq!(
        sim.remove_shard("shard0003").unwrap(),
        ongoing(1, 1, &["shop"])
    );
    // After forceJumbo the shard owns no chunk, but it is still the primary of shop.
    sim.run_until(255_000);
    assert_eq!(sim.owned_chunks(shard), (0, 0));
    assert_eq!(
        sim.remove_shard("shard0003").unwrap(),
        ongoing(0, 0, &["shop"])
    );
    assert!(
        !sim.cluster.shards[3].removed,
        "nothing completes by itself"
    );
    sim.run_until(300_000);
    assert!(
        sim.cluster.shards[3].removed,
        "removed by the scenario's last removeShard"
    );
    assert_eq!(sim.cluster.databases["shop"], ShardIdx(0));
    let json = sim.cluster.summary_json(&SummaryOptions {
        source: "x".into(),
        chunks: false,
        writes_unknown: false,
    });
    let ids: Vec<&str> = json["shards"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["shard0000", "shard0001", "shard0002"]);
    assert_eq!(sim.cluster.collections[0].table.check_invariants(), Ok(()));
    assert!(
        sim.cluster.collections[0]
            .table
            .iter()
            .all(|c| !c.info.jumbo),
        "forceJumbo cleared the flag"
    );
}

#[test]
fn clear_jumbo_flag_lets_the_drain_move_the_chunk_by_force() {
    let (mut sim, _) = drain_events("8.0", 100_000);
    let key = ShardKey::single(KeyValue::Int32(3500));
    let min = {
        let t = &sim.cluster.collections[0].table;
        t.chunk(t.route(&key)).min.clone()
    };
    let before = sim.cluster.collections[0].table.version();
    sim.clear_jumbo_flag("shop.orders", &min).unwrap();
    let t = &sim.cluster.collections[0].table;
    assert!(!t.chunk(t.route(&key)).info.jumbo);
    assert_eq!(
        t.version(),
        before.next_minor(),
        "clearJumboFlag bumps the version"
    );
    sim.run_until(130_000);
    assert_eq!(sim.owned_chunks(ShardIdx(3)), (0, 0), "drained by force");
}

#[test]
fn the_8_3_drain_commands_exist_only_from_8_3() {
    let mut old = start_at("drain", "8.2");
    for e in [
        old.start_shard_draining("shard0003").unwrap_err(),
        old.stop_shard_draining("shard0003").unwrap_err(),
        old.commit_shard_removal("shard0003").unwrap_err(),
        old.shard_draining_status("shard0003").unwrap_err(),
    ] {
        assert_eq!(e.code_name, "CommandNotFound");
    }
    let mut sim = start_at("drain", "8.3");
    sim.start_shard_draining("shard0002").unwrap();
    assert!(matches!(
        sim.shard_draining_status("shard0002").unwrap(),
        RemoveShardState::Ongoing { .. }
    ));
    let err = sim.commit_shard_removal("shard0002").unwrap_err();
    assert_eq!(
        (err.code, err.code_name, err.message.as_str()),
        (
            1_003_141,
            "RemoveShardDrainingInProgress",
            "Draining of the shard being removed must complete before removing the shard."
        )
    );
    sim.stop_shard_draining("shard0002").unwrap();
    assert!(!sim.cluster.shards[2].shard.draining);
    sim.start_shard_draining("shard0002").unwrap();
    sim.run_until(60_000);
    assert_eq!(
        sim.shard_draining_status("shard0002").unwrap(),
        RemoveShardState::DrainingComplete
    );
    sim.commit_shard_removal("shard0002").unwrap();
    assert!(sim.cluster.shards[2].removed);
}

#[test]
fn remove_shard_refuses_the_last_shard_and_a_second_drain() {
    let mut sim = start("drain");
    assert_eq!(
        sim.remove_shard("shard0003").unwrap(),
        RemoveShardState::Started {
            dbs_to_move: vec!["shop".to_string()],
            collections_to_move: Vec::new(),
        }
    );
    assert_eq!(
        sim.remove_shard("shard0002").unwrap_err().code_name,
        "ConflictingOperationInProgress"
    );
    assert_eq!(
        sim.remove_shard("nope").unwrap_err().code_name,
        "ShardNotFound"
    );
    let sc = scenario::parse(r#"{"name": "one", "description": "d", "seedPassage": "p", "shards": 1, "collections": [], "until": 1}"#).unwrap();
    let mut one = Simulator::from_scenario(&sc, 1, None).unwrap();
    assert_eq!(
        one.remove_shard("shard0000").unwrap_err().code_name,
        "IllegalOperation"
    );
}

#[test]
fn from_8_3_several_shards_drain_at_once_before_one_at_a_time() {
    // 8.3's `startShardDraining` docs: "more than one shard draining operation in progress".
    for (version, second) in [("8.0", false), ("8.2", false), ("8.3", true), ("9.0", true)] {
        let mut sim = start_at("drain", version);
        sim.remove_shard("shard0003").unwrap();
        let r = sim.remove_shard("shard0002");
        assert_eq!(r.is_ok(), second, "{version}: {r:?}");
        if second {
            assert!(sim.cluster.shards[2].shard.draining, "{version}");
            // Never every shard left: the last one not draining is refused.
            sim.remove_shard("shard0001").unwrap();
            assert_eq!(
                sim.remove_shard("shard0000").unwrap_err().code_name,
                "IllegalOperation",
                "{version}"
            );
        } else {
            assert_eq!(
                r.unwrap_err().code_name,
                "ConflictingOperationInProgress",
                "{version}"
            );
        }
    }
}

#[test]
fn remove_shard_of_a_removed_shard_is_shard_not_found_before_8_3_and_completed_from_8_3() {
    // The 8.3-era copy of MongoDB's jstest of a drain blocked by unsharded collections ends with
    // `assert.commandWorked(removeShard)` of the removed shard; the 8.0-era copy with
    // `assert.commandFailed`.
    for (version, completed) in [
        ("4.4", false),
        ("7.0", false),
        ("8.0", false),
        ("8.2", false),
        ("8.3", true),
        ("9.0", true),
    ] {
        let mut sim = start_at("drain", version);
        sim.run_until(300_000);
        assert!(
            sim.cluster.shards[3].removed,
            "{version}: removed by the scenario"
        );
        let again = sim.remove_shard("shard0003");
        if completed {
            assert_eq!(again, Ok(RemoveShardState::Completed), "{version}");
        } else {
            assert_eq!(again.unwrap_err().code_name, "ShardNotFound", "{version}");
        }
        // A shard that never existed is ShardNotFound on every line.
        assert_eq!(
            sim.remove_shard("nope").unwrap_err().code_name,
            "ShardNotFound",
            "{version}"
        );
    }
}

/// `db/s/balancer/balancer_policy.cpp`, the draining loop of `balance()`: a chunk with no
/// recipient ("Chunk is on a draining shard, but no appropriate recipient found") is skipped with
/// `continue` and the shard's next chunk moves; the zone's chunks stay, the rest drains.
#[test]
fn balancer_policy_cpp_a_drain_skips_a_chunk_with_no_recipient() {
    for version in ["4.4", "8.0"] {
        let text = format!(
            r#"{{"name": "t", "description": "test", "seedPassage": "none", "serverVersion": "{version}", "shards": 3, "chunkSizeMb": 1,
            "balancer": false,
            "collections": [{{"ns": "app.c", "key": {{"_id": 1}}, "primary": "shard0000"}}],
            "workloads": [{{"ns": "app.c", "rate": 1000, "count": 3000,
                "docSize": {{"min": 1000, "max": 1000}}, "fields": {{"_id": {{"sequence": {{}}}}}}}}],
            "until": 600}}"#
        );
        let sc = scenario::parse(&text).unwrap();
        let mut sim = Simulator::from_scenario(&sc, 1, None).unwrap();
        sim.run_until(4_000);
        let int = |v: i64| ShardKey::single(KeyValue::Int64(v));
        sim.split_at("app.c", int(2_000)).unwrap();
        // The zone's only shard drains: allowed while the zone has no range …
        sim.add_shard_to_zone("shard0000", "Z").unwrap();
        sim.remove_shard("shard0000").unwrap();
        // … and then a range gives it the first chunks of the collection.
        sim.update_zone_key_range(
            "app.c",
            &bson::doc! {"_id": 1},
            &bson::doc! {"_id": 1_000},
            Some("Z"),
        )
        .unwrap();
        sim.set_balancer(true);
        sim.run_until(200_000);
        let coll = &sim.cluster.collections[0];
        let left: Vec<Option<&str>> = coll
            .table
            .iter()
            .filter(|ch| ch.info.shard == ShardIdx(0))
            .map(|ch| coll.zones.zone_of_chunk(ch.min, ch.max))
            .collect();
        assert!(
            !left.is_empty() && left.iter().all(|z| *z == Some("Z")),
            "{version}: only the zone's chunks stay: {left:?}"
        );
        assert!(
            sim.cluster
                .balancer
                .why_not
                .iter()
                .any(|w| w.contains("no appropriate recipient found")),
            "{version}: {:?}",
            sim.cluster.balancer.why_not
        );
    }
}
