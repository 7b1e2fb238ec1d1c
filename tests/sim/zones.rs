//! Zones in the simulator: MongoDB's refusals, zone-boundary splits, chunks moving into their
//! zones over rounds, and the zone invariant once balancing settles.
#![allow(clippy::unwrap_used)]

use proptest::prelude::*;
use shardtop::model::{KeyValue, ShardIdx, ShardKey};
use shardtop::sim::{Simulator, scenario};

fn start(name: &str) -> Simulator {
    let sc = scenario::built_in(name).unwrap().unwrap();
    Simulator::from_scenario(&sc, sc.seed, None).unwrap()
}

fn doc(ip: &str) -> bson::Document {
    bson::doc! {"ip": ip}
}

/// Every chunk wholly inside a zone range lives on a shard of that zone (zones with shards).
fn zone_invariant(sim: &Simulator) -> Result<(), String> {
    for c in &sim.cluster.collections {
        for ch in c.table.iter() {
            if let Some(z) = c.zones.zone_of_chunk(ch.min, ch.max) {
                let has_shards = sim.cluster.shards.iter().any(|s| s.shard.zones.contains(z));
                let on = &sim.cluster.shards[ch.info.shard.index()].shard;
                if has_shards && !on.zones.contains(z) {
                    return Err(format!("chunk {:?} of zone {z} is on {}", ch.min, on.id));
                }
            }
        }
    }
    Ok(())
}

#[test]
fn zones_ip_moves_chunks_into_their_zones_over_rounds_not_at_once() {
    let mut sim = start("zones-ip");
    sim.run_until(10_100);
    let c = &sim.cluster.collections[0];
    let bounds: Vec<String> = c
        .table
        .iter()
        .skip(1)
        .map(|ch| format!("{:?}", ch.min.get(0).unwrap()))
        .collect();
    assert_eq!(bounds.len(), 4, "split at the four zone bounds: {bounds:?}");
    assert!(
        zone_invariant(&sim).is_err(),
        "after the first round a zone chunk is still outside its zone"
    );
    sim.run_until(60_000);
    zone_invariant(&sim).unwrap();
    let c = &sim.cluster.collections[0];
    let usps = c
        .table
        .route(&ShardKey::single(KeyValue::string("056.100.000.000")));
    assert_eq!(
        c.table.chunk(usps).info.shard,
        ShardIdx(0),
        "USPS lives on shard0000"
    );
    let apple = c
        .table
        .route(&ShardKey::single(KeyValue::string("017.100.000.000")));
    assert!([ShardIdx(0), ShardIdx(2)].contains(&c.table.chunk(apple).info.shard));
    sim.run_until(240_000);
    zone_invariant(&sim).unwrap();
}

#[test]
fn zone_commands_refuse_as_mongodb_does() {
    let mut sim = start("zones-ip");
    let err = sim
        .update_zone_key_range(
            "test.ips",
            &doc("056.500.000.000"),
            &doc("060.000.000.000"),
            Some("USPS"),
        )
        .unwrap_err();
    assert_eq!(err.code_name, "RangeOverlapConflict");
    let err = sim
        .update_zone_key_range("test.ips", &doc("100"), &doc("200"), Some("Nowhere"))
        .unwrap_err();
    assert_eq!(err.code_name, "ZoneNotFound");
    // Bounds that match no range exactly: nothing is removed, and the answer is ok, as a
    // config server's (it deletes config.tags by exact bounds).
    let before = sim.cluster.collections[0].zones.clone();
    sim.update_zone_key_range(
        "test.ips",
        &doc("056.000.000.000"),
        &doc("056.500.000.000"),
        None,
    )
    .unwrap();
    assert_eq!(sim.cluster.collections[0].zones, before);
    let err = sim
        .update_zone_key_range(
            "test.ips",
            &bson::doc! {"other": 1},
            &doc("1"),
            Some("USPS"),
        )
        .unwrap_err();
    assert!(err.message.contains("prefix of the shard key"), "{err}");
    let err = sim.remove_shard_from_zone("shard0000", "USPS").unwrap_err();
    assert_eq!((err.code, err.code_name), (163, "ZoneStillInUse"));
    sim.remove_shard_from_zone("shard0000", "Apple").unwrap(); // shard0002 still carries Apple
    sim.update_zone_key_range(
        "test.ips",
        &doc("056.000.000.000"),
        &doc("057.000.000.000"),
        None,
    )
    .unwrap();
    sim.remove_shard_from_zone("shard0000", "USPS").unwrap(); // no range uses it any more
    assert_eq!(
        sim.add_shard_to_zone("nope", "X").unwrap_err().code_name,
        "ShardNotFound"
    );
}

/// `db/s/config/sharding_catalog_manager_shard_operations.cpp` (`removeShard`,
/// `_isShardRequiredByZoneStillInUse`, SERVER-44695): the only shard of a zone that has ranges
/// cannot be removed, at the first call or later ones; a zone another shard carries is no bar.
#[test]
fn sharding_catalog_manager_shard_operations_cpp_the_only_shard_of_a_used_zone_stays() {
    let mut sim = start("zones-ip");
    // shard0000 alone carries USPS, which has a range.
    let err = sim.remove_shard("shard0000").unwrap_err();
    assert_eq!((err.code, err.code_name), (163, "ZoneStillInUse"));
    assert_eq!(
        err.message,
        "Operation not allowed because it would remove the only shard for zone USPS which has a chunk range is associated with it"
    );
    assert!(!sim.cluster.shards[0].shard.draining);
    // Once no range uses the zone, the drain starts.
    sim.update_zone_key_range(
        "test.ips",
        &doc("056.000.000.000"),
        &doc("057.000.000.000"),
        None,
    )
    .unwrap();
    sim.remove_shard("shard0000").unwrap();
    assert!(sim.cluster.shards[0].shard.draining);
    // A later call is refused too when the zone is in use again.
    sim.update_zone_key_range(
        "test.ips",
        &doc("056.000.000.000"),
        &doc("057.000.000.000"),
        Some("USPS"),
    )
    .unwrap();
    assert_eq!(
        sim.remove_shard("shard0000").unwrap_err().code_name,
        "ZoneStillInUse"
    );
}

/// 8.3+: master's `sharding_catalog_manager_shard_operations.cpp` words it for the drain.
#[test]
fn sharding_catalog_manager_shard_operations_cpp_8_3_words_the_refusal_for_the_drain() {
    let sc = scenario::built_in("zones-ip").unwrap().unwrap();
    let version = "8.3".parse().unwrap();
    let mut sim = Simulator::from_scenario(&sc, sc.seed, Some(version)).unwrap();
    for err in [
        sim.start_shard_draining("shard0000").unwrap_err(),
        sim.remove_shard("shard0000").unwrap_err(),
    ] {
        assert_eq!(err.code, 163);
        assert_eq!(
            err.message,
            "Operation not allowed because there is no other shard in zone USPS to drain to."
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    #[test]
    fn chunks_settle_inside_their_zones(version in 0usize..3, shards in 2u32..5, zones in proptest::collection::btree_set(1u8..9, 1..4), seed in 0u64..100) {
        let v = ["5.0", "7.0", "8.0"][version];
        let mut actions = Vec::new();
        for (k, z) in zones.iter().enumerate() {
            let shard = format!("shard{:04}", (k as u32 + 1) % shards);
            actions.push(format!(r#"{{"at": 0, "do": {{"addShardToZone": {{"shard": "{shard}", "zone": "Z{z}"}}}}}}"#));
            actions.push(format!(
                r#"{{"at": 0, "do": {{"updateZoneKeyRange": {{"ns": "db.c", "min": {{"k": {}}}, "max": {{"k": {}}}, "zone": "Z{z}"}}}}}}"#,
                u32::from(*z) * 100, u32::from(*z) * 100 + 60
            ));
        }
        let text = format!(
            r#"{{"name": "z", "description": "d", "seedPassage": "p", "serverVersion": "{v}", "shards": {shards}, "chunkSizeMb": 1,
                "collections": [{{"ns": "db.c", "key": {{"k": 1}}}}],
                "workloads": [{{"ns": "db.c", "rate": 400, "count": 8000, "docSize": 300, "fields": {{"k": {{"uniformInt": {{"min": 0, "max": 1000}}}}}}}}],
                "actions": [{}], "until": 400}}"#,
            actions.join(",")
        );
        let sc = scenario::parse(&text).unwrap();
        let mut sim = Simulator::from_scenario(&sc, seed, None).unwrap();
        sim.run_until(400_000);
        prop_assert_eq!(sim.cluster.collections[0].table.check_invariants(), Ok(()));
        prop_assert!(zone_invariant(&sim).is_ok(), "{:?}", zone_invariant(&sim));
    }
}

fn firehose(with_job: bool) -> Simulator {
    let mut sc = scenario::built_in("firehose").unwrap().unwrap();
    if !with_job {
        sc.actions.retain(|a| a.every.is_none());
    }
    let mut sim = Simulator::from_scenario(&sc, sc.seed, None).unwrap();
    sim.run_until((sc.until * 1000.0) as u64);
    sim
}

#[test]
fn firehose_takes_every_insert_and_the_daily_job_lets_old_chunks_leave() {
    let sim = firehose(true);
    let c = &sim.cluster.collections[0];
    assert_eq!(
        c.writes_to(ShardIdx(0)),
        24_000,
        "every insert lands on the 10x shard"
    );
    for s in 1..4 {
        assert!(
            c.table.shard_totals(ShardIdx(s)).stats.docs > 3_000,
            "older chunks left for shard{s:04}"
        );
    }
    zone_invariant(&sim).unwrap();

    let trapped = firehose(false);
    let c = &trapped.cluster.collections[0];
    assert_eq!(
        c.table.shard_totals(ShardIdx(0)).stats.docs,
        24_000,
        "without the job everything stays trapped"
    );
}

#[test]
fn zones_gdpr_keeps_eu_documents_on_eu_shards_once_balanced() {
    let mut sim = start("zones-gdpr");
    sim.run_until(600_000);
    zone_invariant(&sim).unwrap();
    let c = &sim.cluster.collections[0];
    let region =
        |r: &str, v: KeyValue| ShardKey::from_values(vec![KeyValue::string(r), v]).unwrap();
    let eu = c
        .keys
        .stats(
            &region("EU", KeyValue::MinKey),
            &region("EU", KeyValue::MaxKey),
        )
        .docs;
    let us = c
        .keys
        .stats(
            &region("US", KeyValue::MinKey),
            &region("US", KeyValue::MaxKey),
        )
        .docs;
    let on = |s: u32| c.table.shard_totals(ShardIdx(s)).stats.docs;
    assert_eq!(on(0) + on(1), eu, "every EU document is on an EU shard");
    assert_eq!(on(2) + on(3), us, "every US document is on a US shard");
    assert!(
        on(0) > 0 && on(1) > 0,
        "EU users spread over both EU shards by hash"
    );
}
