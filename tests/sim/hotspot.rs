//! HOT is a real, current hotspot: the simulator's scenarios through the views, with
//! `cluster::hotspot`'s rule — an even load is never HOT, an ascending key is, and HOT fades once
//! the writes have stopped for the window's 60 s; a replay of the recording agrees.
#![allow(clippy::unwrap_used)]

use shardtop::cluster::Cluster;
use shardtop::cluster::hotspot::WINDOW_MS;
use shardtop::sim::{Simulator, scenario};
use shardtop::source::record::{record_sim, sim_header};
use shardtop::trace::{ReadOptions, Replay};
use shardtop::view::{self, ClockView, ClusterView, ViewRequest};

fn start(name: &str) -> Simulator {
    let sc = scenario::built_in(name).unwrap().unwrap();
    Simulator::from_scenario(&sc, sc.seed, None).unwrap()
}

fn frame(cluster: &Cluster) -> ClusterView {
    view::build(
        cluster,
        &ViewRequest::default(),
        "sim",
        ClockView::default(),
    )
}

fn hot_chunk(v: &ClusterView) -> bool {
    let c = v.collection.as_ref().unwrap();
    c.cells.iter().any(|cell| cell.hot) || c.hot.as_ref().is_some_and(|h| h.hot)
}

#[test]
fn an_even_load_is_never_hot() {
    for name in ["hashed", "random"] {
        let mut sim = start(name);
        for t in (5_000..=100_000).step_by(5_000) {
            sim.run_until(t);
            let v = frame(&sim.cluster);
            let shares: Vec<f64> = v.shards.iter().map(|s| s.write_share).collect();
            assert_eq!(v.hot_shard(), None, "{name} at {t} ms: {shares:?}");
            assert!(!hot_chunk(&v), "{name} at {t} ms: {:?}", v.collection);
        }
    }
}

#[test]
fn an_ascending_key_is_hot_while_it_writes_and_fades_after() {
    let mut sim = start("ascending");
    sim.run_until(90_000);
    let v = frame(&sim.cluster);
    assert!(v.hot_shard().is_some(), "{:?}", v.shards);
    assert!(hot_chunk(&v));
    // The workload (10,000 inserts at 34/s) ends at 294 s; 60 s later nothing is recent (and
    // HOT, which needs 100 writes in the window, fades with the last 3 s of them).
    let last_write = 294_200;
    sim.run_until(last_write + WINDOW_MS - 5_000);
    assert!(frame(&sim.cluster).hot_shard().is_some(), "still recent");
    sim.run_until(last_write + WINDOW_MS + 1_000);
    let v = frame(&sim.cluster);
    assert_eq!(v.hot_shard(), None, "faded: {:?}", v.shards);
    assert!(!hot_chunk(&v));
    let c = v.collection.as_ref().unwrap();
    assert_eq!(c.recent_writes, 0);
    assert!(c.hot.is_none());
    assert!(v.shards.iter().all(|s| s.write_share <= 0.0));
}

#[test]
fn a_replay_gives_the_same_verdict_as_the_run() {
    let dir = std::env::temp_dir().join(format!("shardtop-hotspot-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("ascending.ndjson");
    let mut sim = start("ascending");
    let header = sim_header(&sim, "sim:ascending", "ascending", 1);
    // On both sides of the fade, 60 s after the last write (294 s).
    record_sim(&mut sim, 360_000, &path, &header, |_, _| {}).unwrap();
    let mut replay = Replay::open(&path, ReadOptions::default()).unwrap();
    let mut played = Replay::open(&path, ReadOptions::default()).unwrap();
    for t in [30_000, 90_000, 348_000, 356_000, 359_900] {
        let mut run = start("ascending");
        run.run_until(t);
        let want = frame(&run.cluster);
        replay.seek(t).unwrap();
        played.play_to(t).unwrap();
        for (how, state) in [("seek", replay.state()), ("play", played.state())] {
            let got = frame(state);
            assert_eq!(got.hot_shard(), want.hot_shard(), "{how} to {t} ms");
            assert_eq!(hot_chunk(&got), hot_chunk(&want), "{how} to {t} ms");
            assert_eq!(
                got.collection.as_ref().unwrap().recent_writes,
                want.collection.as_ref().unwrap().recent_writes,
                "{how} to {t} ms"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn unknown_writes_print_as_unknown_in_the_text_summary() {
    let mut sim = start("hashed");
    sim.run_until(10_000);
    let unknown = sim.cluster.summary_text_at("t", "now", true);
    assert!(unknown.contains("writes unknown"), "{unknown}");
    assert!(!unknown.contains("% recent"), "{unknown}");
    assert!(
        unknown.contains("writes unknown\n"),
        "the totals too: {unknown}"
    );
    let known = sim.cluster.summary_text_at("t", "now", false);
    assert!(
        known.contains("% recent)") && !known.contains("unknown"),
        "{known}"
    );
}
