#![allow(clippy::unwrap_used)]
//! `drop` of a sharded collection in the simulator (`db/s/drop_collection_coordinator.cpp`: the
//! catalog entry, chunks and zone ranges removed): a migration in flight is abandoned, the
//! balancer goes on with the other collections, and the `dropCollection` event round-trips
//! through the trace codec and applies to a replayed state.

use shardtop::cluster::event::EventKind;
use shardtop::sim::{Simulator, scenario};
use shardtop::trace::event_codec::{Names, decode, encode};

/// `app.c` and `app.d` on `{_id: 1}`, three shards, 1 MB chunks, 10 MB written into each.
fn two_collections() -> Simulator {
    let text = r#"{"name": "t", "description": "test", "seedPassage": "none", "serverVersion": "8.0",
        "shards": 3, "chunkSizeMb": 1, "balancer": true,
        "collections": [{"ns": "app.c", "key": {"_id": 1}}, {"ns": "app.d", "key": {"_id": 1}}],
        "workloads": [
          {"ns": "app.c", "rate": 200, "count": 10000, "docSize": {"min": 1000, "max": 1000}, "fields": {"_id": {"sequence": {}}}},
          {"ns": "app.d", "rate": 200, "count": 10000, "docSize": {"min": 1000, "max": 1000}, "fields": {"_id": {"sequence": {}}}}],
        "until": 900}"#;
    let sc = scenario::parse(text).unwrap();
    Simulator::from_scenario(&sc, 1, None).unwrap()
}

#[test]
fn dropping_a_collection_mid_migration_abandons_it_and_balancing_goes_on() {
    let mut sim = two_collections();
    let deadline = 400_000;
    while !sim
        .cluster
        .balancer
        .in_flight
        .iter()
        .any(|m| m.ns == "app.c")
        && sim.now_ms() < deadline
    {
        sim.step();
    }
    assert!(
        sim.cluster
            .balancer
            .in_flight
            .iter()
            .any(|m| m.ns == "app.c"),
        "a migration of app.c is in flight"
    );
    let before = sim.cluster.clone();
    sim.take_events();
    sim.drop_collection("app.c").unwrap();
    assert!(sim.cluster.collection("app.c").is_none());
    assert!(
        sim.cluster
            .balancer
            .in_flight
            .iter()
            .all(|m| m.ns != "app.c")
    );
    let events = sim.take_events();
    let dropped = events
        .iter()
        .find(|e| matches!(&e.kind, EventKind::CollectionDropped { ns } if ns == "app.c"))
        .unwrap();
    // The trace line, and the event applied to the state it was emitted from.
    let line = encode(dropped, &Names { state: &before });
    assert_eq!(line["what"], "dropCollection");
    assert_eq!(line["ns"], "app.c");
    let back = decode(&line, &before).unwrap().unwrap();
    let mut replayed = before.clone();
    replayed.apply(&back).unwrap();
    assert!(replayed.collection("app.c").is_none());
    assert!(replayed.collection("app.d").is_some());
    assert_eq!(
        sim.drop_collection("app.c").unwrap_err().code,
        26,
        "NamespaceNotFound the second time"
    );
    let completed = sim.cluster.balancer.completed;
    sim.run_until(sim.now_ms() + 300_000);
    assert!(
        sim.cluster.balancer.completed > completed,
        "app.d is still balanced"
    );
    assert!(sim.cluster.collection("app.c").is_none());
}
