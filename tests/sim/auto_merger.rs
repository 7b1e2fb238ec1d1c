//! The AutoMerger per release line: every pass revisits every collection with a chunk older than
//! the history window (the lower bound MongoDB shadows stays 0), so a chunk split by hand or a
//! cleared jumbo flag is merged at the next pass; more than 1,000 mergeable chunks on one shard:
//! 7.0 merges 1,000 per command and comes back next pass, 8.0 sends the command again until it
//! merges nothing, 8.3 and 9.0 merge at most `autoMergerMaxChunksToMerge` (100) per command.
// 7.0-era and 8.0-era `db/s/balancer/auto_merger_policy.cpp`, master
// `sharding_config_server_parameters.idl` (`autoMergerMaxChunksToMerge`, 100).
#![allow(clippy::unwrap_used)]

use shardtop::cluster::{Event, EventKind};
use shardtop::model::{KeyValue, ShardKey};
use shardtop::sim::{Simulator, scenario};

/// Two shards and `chunks` chunks of `a.b` on `{x: 1}` (bounds 10, 20, …), the first `on_first`
/// on shard0000 and the rest on shard0001; a pass every 600 s.
fn layout(version: &str, chunks: usize, on_first: usize) -> Simulator {
    let points: Vec<String> = (1..chunks)
        .map(|i| format!(r#"{{"x": {}}}"#, i * 10))
        .collect();
    let shards: Vec<String> = (0..chunks)
        .map(|i| {
            if i < on_first {
                r#""shard0000""#.to_string()
            } else {
                r#""shard0001""#.to_string()
            }
        })
        .collect();
    let text = format!(
        r#"{{"name": "t", "description": "t", "seedPassage": "t", "serverVersion": "{version}",
        "autoMergerIntervalSecs": 600, "shards": 2, "chunkSizeMb": 64,
        "collections": [{{"ns": "a.b", "key": {{"x": 1}}, "initialLayout": {{
            "splitPoints": [{}], "shards": [{}]}}}}],
        "until": 10000}}"#,
        points.join(", "),
        shards.join(", ")
    );
    let sc = scenario::parse(&text).unwrap();
    Simulator::from_scenario(&sc, 1, None).unwrap()
}

fn x(v: i32) -> ShardKey {
    ShardKey::single(KeyValue::Int32(v))
}

fn merges(events: &[Event]) -> Vec<(u64, usize)> {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Merge {
                chunks, auto: true, ..
            } => Some((e.at_ms, *chunks)),
            _ => None,
        })
        .collect()
}

fn chunks(s: &Simulator) -> usize {
    s.cluster.collections[0].table.len()
}

#[test]
fn a_chunk_split_by_hand_is_merged_at_the_next_pass() {
    for version in ["7.0", "8.0", "8.2", "9.0"] {
        // Two chunks per shard, merged at the pass at 600 s.
        let mut s = layout(version, 4, 2);
        s.run_until(700_000);
        assert_eq!(chunks(&s), 2, "{version}");
        // Split by hand: the new chunks keep their old `onCurrentShardSince`.
        s.split_at("a.b", x(5)).unwrap();
        assert_eq!(chunks(&s), 3, "{version}");
        s.take_events();
        // The pass at 1,200 s revisits the collection and merges them again.
        s.run_until(1_300_000);
        let m = merges(&s.take_events());
        assert_eq!(m.len(), 1, "{version}: {m:?}");
        assert!(m[0].0 >= 1_200_000, "{version}: {m:?}");
        assert_eq!(chunks(&s), 2, "{version}");
        assert_eq!(s.cluster.collections[0].table.check_invariants(), Ok(()));
    }
}

#[test]
fn a_cleared_jumbo_flag_lets_the_next_pass_merge_the_chunk() {
    for version in ["7.0", "8.0", "9.0"] {
        // Three chunks on shard0000, the middle one jumbo: nothing to merge on that shard.
        let mut s = layout(version, 4, 3);
        s.cluster.collections[0].table.set_jumbo(1, true);
        s.run_until(700_000);
        assert_eq!(chunks(&s), 4, "{version}: a jumbo chunk is never merged");
        s.clear_jumbo_flag("a.b", &x(10)).unwrap();
        s.run_until(1_300_000);
        assert_eq!(chunks(&s), 2, "{version}: merged at the next pass");
    }
}

#[test]
fn more_than_a_thousand_mergeable_chunks_per_release_line() {
    // 1,500 contiguous chunks on shard0000 and one on shard0001.
    let fresh = |v: &str| layout(v, 1501, 1500);
    // 7.0: 1,000 per command, once per pass; the next pass merges the rest.
    let mut s = fresh("7.0");
    s.run_until(1_100_000);
    let m = merges(&s.take_events());
    assert_eq!(m.iter().map(|(_, n)| n).collect::<Vec<_>>(), [&1000], "7.0");
    assert_eq!(chunks(&s), 502, "7.0: 1 + 500 left, and shard0001's");
    s.run_until(1_300_000);
    assert_eq!(chunks(&s), 2, "7.0: the next pass merges what was left");
    // 8.0 to 8.2: the command is sent again, 15 s later, while it merged something.
    for version in ["8.0", "8.2"] {
        let mut s = fresh(version);
        s.run_until(700_000);
        let m = merges(&s.take_events());
        assert_eq!(m.len(), 2, "{version}: {m:?}");
        assert_eq!((m[0].1, m[1].1), (1000, 501), "{version}");
        // shard0001's command comes between them, each autoMergerThrottlingMS after the last.
        assert_eq!(m[1].0 - m[0].0, 30_000, "{version}");
        assert_eq!(chunks(&s), 2, "{version}");
    }
    // 8.3 and 9.0: at most autoMergerMaxChunksToMerge (100) per command, again and again.
    for version in ["8.3", "9.0"] {
        let mut s = fresh(version);
        s.run_until(1_200_000);
        let m = merges(&s.take_events());
        assert!(m.iter().all(|(_, n)| *n <= 100), "{version}: {m:?}");
        assert!(m.len() >= 15, "{version}: {}", m.len());
        assert_eq!(chunks(&s), 2, "{version}");
    }
}
