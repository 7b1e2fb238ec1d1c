//! The balancer visits the collections in a new shuffled order every round
//! (`db/s/balancer/balancer_chunk_selection_policy.cpp`, `std::shuffle`), seeded from the
//! scenario's seed: reproducible, and no collection always first.

use shardtop::cluster::EventKind;
use shardtop::sim::{Simulator, scenario};

/// Two shards and three collections of 6 MB each, all on shard0000: every round has one pair of
/// free shards, so one migration, for the collection visited first.
fn three_collections(seed: u64) -> Simulator {
    let colls: Vec<String> = ["a", "b", "c"]
        .iter()
        .map(|n| format!(r#"{{"ns": "app.{n}", "key": {{"_id": 1}}, "primary": "shard0000"}}"#))
        .collect();
    let loads: Vec<String> = ["a", "b", "c"]
        .iter()
        .map(|n| {
            format!(
                r#"{{"ns": "app.{n}", "rate": 3000, "count": 6000, "docSize": {{"min": 1000, "max": 1000}}, "fields": {{"_id": {{"sequence": {{}}}}}}}}"#
            )
        })
        .collect();
    let text = format!(
        r#"{{"name": "t", "description": "test", "seedPassage": "none", "serverVersion": "8.0", "shards": 2, "chunkSizeMb": 1,
        "balancer": false, "collections": [{}], "workloads": [{}], "until": 600}}"#,
        colls.join(","),
        loads.join(",")
    );
    let sc = scenario::parse(&text).unwrap();
    let mut sim = Simulator::from_scenario(&sc, seed, None).unwrap();
    sim.run_until(3_000);
    sim.set_balancer(true);
    sim
}

/// The namespaces of the first `n` migrations started.
fn first_moves(sim: &mut Simulator, n: usize) -> Vec<String> {
    let mut out = Vec::new();
    sim.take_events();
    while out.len() < n && sim.now_ms() < 600_000 {
        sim.step();
        for e in sim.take_events() {
            if let EventKind::MigrationStarted { range, .. } = e.kind {
                out.push(range.ns);
            }
        }
    }
    out
}

/// `balancer_chunk_selection_policy.cpp`: the collections are shuffled each round, so the
/// first move is not always of the first namespace (in namespace order app.a would take every
/// round until it is balanced), and one run's first moves are not all of one collection.
#[test]
fn balancer_chunk_selection_policy_cpp_collections_are_shuffled_each_round() {
    let firsts: Vec<String> = (1..=8)
        .map(|seed| first_moves(&mut three_collections(seed), 1).remove(0))
        .collect();
    assert!(firsts.iter().any(|ns| ns != "app.a"), "{firsts:?}");
    let runs_mixed = (1..=8).any(|seed| {
        let moves = first_moves(&mut three_collections(seed), 2);
        moves[0] != moves[1]
    });
    assert!(
        runs_mixed,
        "the first two rounds of every seed moved one collection"
    );
}

/// Same scenario, same seed: the same rounds.
#[test]
fn balancer_chunk_selection_policy_cpp_the_shuffle_is_seeded() {
    let a = first_moves(&mut three_collections(7), 6);
    let b = first_moves(&mut three_collections(7), 6);
    assert_eq!(a, b);
    let sim = three_collections(7);
    assert_eq!(sim.round_order(5), sim.round_order(5));
}

/// MongoDB's `AllImbalancedCollectionsShouldEventuallyBeSelectedForBalancing`: over rounds every
/// collection comes first.
#[test]
fn balancer_chunk_selection_policy_cpp_every_collection_eventually_comes_first() {
    let sim = three_collections(1);
    let mut first = [false; 3];
    for round in 1..=30 {
        first[sim.round_order(round)[0]] = true;
    }
    assert_eq!(first, [true; 3]);
}
