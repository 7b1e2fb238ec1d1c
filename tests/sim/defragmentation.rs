//! Chunk defragmentation (`configureCollectionBalancing {defragmentCollection: true}`, 5.3+):
//! its phases in order per release line, throttled merges, no balancing meanwhile, the stop, and
//! the documents kept.
#![allow(clippy::unwrap_used)]

use shardtop::cluster::defragmentation::DefragmentationPhase;
use shardtop::cluster::{Event, EventKind};
use shardtop::model::ShardIdx;
use shardtop::sim::balancer::collection_balancing::BalancingRequest;
use shardtop::sim::{Simulator, scenario};

const DEFRAG: BalancingRequest = BalancingRequest {
    chunk_size_mb: None,
    enable_auto_merger: None,
    defragment: Some(true),
};

/// The built-in `defragment` scenario on `version`, run to just before its action.
fn fragmented(version: &str) -> Simulator {
    let mut sc = scenario::built_in("defragment").unwrap().unwrap();
    sc.actions.clear();
    sc.server_version = Some(version.to_string());
    let mut s = Simulator::from_scenario(&sc, 1, None).unwrap();
    // The range deleter at once (`orphanCleanupDelaySecs: 0`): with 900 s, a move onto a shard
    // still holding orphans of an overlapping range fails after 10 s and its chunk is given up
    // (tests/sim/range_deletion_wait.rs); these tests are about the phases.
    s.cluster.settings.orphan_cleanup_delay_secs = Some(0);
    s.run_until(30_000);
    s.take_events();
    s
}

fn phases(events: &[Event]) -> Vec<Option<&'static str>> {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::DefragmentationPhaseSet { phase, .. } => {
                Some(phase.map(DefragmentationPhase::as_str))
            }
            _ => None,
        })
        .collect()
}

fn docs(s: &Simulator) -> u64 {
    let t = &s.cluster.collections[0].table;
    (0..3).map(|i| t.shard_totals(ShardIdx(i)).stats.docs).sum()
}

#[test]
fn phases_run_in_order_and_leave_few_big_chunks() {
    for version in ["6.0", "7.0", "8.0", "9.0"] {
        let mut s = fragmented(version);
        let before = (s.cluster.collections[0].table.len(), docs(&s));
        assert_eq!(before.0, 40);
        s.configure_collection_balancing("app.events", DEFRAG)
            .unwrap();
        s.run_until(600_000);
        let events = s.take_events();
        assert_eq!(
            phases(&events),
            [
                Some("mergeAndMeasureChunks"),
                Some("moveAndMergeChunks"),
                Some("mergeChunks"),
                None
            ],
            "{version}"
        );
        let coll = &s.cluster.collections[0];
        assert!(coll.defragmentation.is_none());
        assert!(
            coll.table.len() <= 4,
            "{version}: {} chunks",
            coll.table.len()
        );
        assert_eq!(docs(&s), before.1, "{version}: documents conserved");
        let small = 64 << 20 >> 2;
        assert!(
            coll.table.iter().all(|ch| ch.info.stats.bytes > small),
            "{version}: a chunk under 25 % of the chunk size is left"
        );
        for w in coll.table.iter().collect::<Vec<_>>().windows(2) {
            assert_ne!(
                w[0].info.shard, w[1].info.shard,
                "{version}: mergeable run left"
            );
        }
        let moves = events
            .iter()
            .filter(|e| matches!(&e.kind, EventKind::MigrationCommitted { .. }))
            .count();
        assert!(
            moves > 0,
            "{version}: small chunks moved to a neighbour's shard"
        );
    }
}

#[test]
fn merges_are_throttled_one_second_apart() {
    let mut s = fragmented("8.0");
    s.configure_collection_balancing("app.events", DEFRAG)
        .unwrap();
    s.run_until(600_000);
    let merges: Vec<u64> = s
        .take_events()
        .iter()
        .filter(|e| matches!(&e.kind, EventKind::Merge { auto: false, .. }))
        .map(|e| e.at_ms)
        .collect();
    assert!(merges.len() > 5);
    for w in merges.windows(2) {
        assert!(
            w[1] - w[0] >= 1_000,
            "chunkDefragmentationThrottlingMS: {merges:?}"
        );
    }
}

#[test]
fn the_balancer_leaves_a_defragmenting_collection_alone() {
    let mut s = fragmented("8.0");
    s.configure_collection_balancing("app.events", DEFRAG)
        .unwrap();
    s.run_until(45_000);
    assert!(
        s.cluster
            .balancer
            .why_not
            .iter()
            .any(|w| w.contains("being defragmented")),
        "{:?}",
        s.cluster.balancer.why_not
    );
    let (phase, remaining) = s.defragmentation_progress(0).unwrap();
    assert_eq!(phase.as_str(), "moveAndMergeChunks");
    assert!(remaining > 0);
}

#[test]
fn before_six_a_split_phase_follows_and_a_stop_goes_through_it() {
    let mut s = fragmented("5.3");
    s.configure_collection_balancing("app.events", DEFRAG)
        .unwrap();
    s.run_until(600_000);
    let ran = phases(&s.take_events());
    assert_eq!(ran[2..], [Some("mergeChunks"), Some("splitChunks"), None]);

    for (version, after_stop) in [
        ("5.3", vec![Some("splitChunks"), None]),
        ("8.0", vec![None]),
    ] {
        let mut s = fragmented(version);
        s.configure_collection_balancing("app.events", DEFRAG)
            .unwrap();
        s.run_until(32_000);
        let stop = BalancingRequest {
            defragment: Some(false),
            ..BalancingRequest::default()
        };
        s.configure_collection_balancing("app.events", stop)
            .unwrap();
        s.run_until(600_000);
        let ran = phases(&s.take_events());
        assert_eq!(ran[1..], after_stop, "{version}");
    }
}

#[test]
fn defragmentation_waits_for_the_balancer() {
    let mut s = fragmented("8.0");
    s.set_balancer(false);
    s.configure_collection_balancing("app.events", DEFRAG)
        .unwrap();
    s.run_until(200_000);
    assert_eq!(s.cluster.collections[0].table.len(), 40);
    s.set_balancer(true);
    s.run_until(600_000);
    assert!(s.cluster.collections[0].table.len() < 40);
}
