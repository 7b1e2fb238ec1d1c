#![allow(clippy::unwrap_used)]
//! `sim … --json --heatmap COLSxROWS` and `--history`: the ascending key's writes climb as one
//! line with the newest keys while older ranges stay cold, a hashed key's spread evenly, the
//! multi-hotspot key's as several lines; history samples each second, its writes add up.

use std::process::Command;

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_shardtop");

fn summary(args: &[&str]) -> Value {
    let out = Command::new(BIN).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The writes grid of the first collection: per time bucket, per key bucket.
fn grid(scenario: &str, size: &str) -> Vec<Vec<u64>> {
    let v = summary(&["sim", scenario, "--json", "--heatmap", size]);
    let h = &v["collections"][0]["heatmap"];
    let cols = size.split('x').next().unwrap().parse::<usize>().unwrap();
    assert_eq!(h["timeBuckets"].as_array().unwrap().len(), cols);
    let rows = h["keyBuckets"].as_array().unwrap().len();
    assert_eq!(
        h["keyBuckets"][0][0],
        serde_json::json!(
            v["collections"][0]["key"]
                .as_object()
                .unwrap()
                .keys()
                .map(|k| (k.clone(), serde_json::json!({"$minKey": 1})))
                .collect::<serde_json::Map<_, _>>()
        )
    );
    h["writes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|col| {
            let col: Vec<u64> = col
                .as_array()
                .unwrap()
                .iter()
                .map(|n| n.as_u64().unwrap())
                .collect();
            assert_eq!(col.len(), rows);
            col
        })
        .collect()
}

#[test]
fn ascending_writes_climb_with_the_newest_keys() {
    let g = grid("ascending", "40x8");
    let mut hot_before = 0;
    let mut columns = 0;
    for col in g.iter().filter(|c| c.iter().sum::<u64>() > 0) {
        columns += 1;
        let total: u64 = col.iter().sum();
        let hot = (0..col.len()).max_by_key(|&i| col[i]).unwrap();
        assert!(hot >= hot_before, "the hot range moved down: {g:?}");
        hot_before = hot;
        let newest = col.iter().rposition(|&w| w > 0).unwrap();
        let near: u64 = col[newest.saturating_sub(1)..=newest].iter().sum();
        assert!(
            near * 100 >= total * 99,
            "writes outside the newest two ranges: {col:?}"
        );
        let cold: u64 = col[..newest.saturating_sub(1)].iter().sum();
        assert_eq!(cold, 0, "an older range got writes: {col:?}");
    }
    assert!(columns >= 8, "{g:?}");
    assert_eq!(
        hot_before,
        g[0].len() - 1,
        "the line ends at the newest range"
    );
}

#[test]
fn hashed_writes_are_an_even_texture_and_multi_hotspot_several_lines() {
    for col in grid("hashed", "10x6")
        .iter()
        .filter(|c| c.iter().sum::<u64>() > 0)
    {
        let total: u64 = col.iter().sum();
        assert!(
            col.iter().all(|&w| w * 3 <= total),
            "a range took over a third: {col:?}"
        );
    }
    for col in grid("multi-hotspot", "8x10")
        .iter()
        .filter(|c| c.iter().sum::<u64>() > 0)
    {
        let total: u64 = col.iter().sum();
        let lines = col.iter().filter(|&&w| w * 10 >= total).count();
        assert!(lines >= 3, "one line only: {col:?}");
    }
}

#[test]
fn history_samples_each_second_and_its_writes_add_up() {
    let v = summary(&["sim", "ascending", "--json", "--history", "--until", "60"]);
    let h = &v["collections"][0]["history"];
    let times: Vec<f64> = h["times"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_f64().unwrap())
        .collect();
    assert_eq!(times.len(), 61);
    assert!(
        times.windows(2).all(|w| (w[1] - w[0] - 1.0).abs() < 1e-9),
        "{times:?}"
    );
    let shards = h["shards"].as_array().unwrap();
    assert_eq!(shards.len(), 3);
    let written: u64 = v["collections"][0]["shards"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["writes"].as_u64().unwrap())
        .sum();
    let in_history: u64 = shards
        .iter()
        .flat_map(|s| s["writes"].as_array().unwrap())
        .map(|w| w.as_u64().unwrap())
        .sum();
    assert_eq!(in_history, written);
    for s in shards {
        for series in ["bytes", "chunks", "writes"] {
            assert_eq!(s[series].as_array().unwrap().len(), times.len(), "{series}");
        }
    }
    let last = |s: &Value, k: &str| s[k].as_array().unwrap().last().unwrap().as_u64().unwrap();
    let chunks: u64 = shards.iter().map(|s| last(s, "chunks")).sum();
    assert_eq!(chunks, v["collections"][0]["chunks"].as_u64().unwrap());
}

#[test]
fn bad_heatmap_sizes_exit_2() {
    for (args, says) in [
        (
            vec!["sim", "ascending", "--json", "--heatmap", "0x5"],
            "--heatmap \"0x5\": give COLSxROWS",
        ),
        (vec!["sim", "ascending", "--heatmap", "10x5"], "--json"),
    ] {
        let out = Command::new(BIN).args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(says), "{err}");
    }
}

#[test]
fn history_keeps_at_most_its_bound() {
    let sc = shardtop::sim::scenario::built_in("ascending")
        .unwrap()
        .unwrap();
    let mut sim = shardtop::sim::Simulator::from_scenario(&sc, sc.seed, None).unwrap();
    let mut h = shardtop::cluster::history::History::new(5);
    for t in 1..=12 {
        sim.run_until(t * 1000);
        h.sample(&sim.cluster);
    }
    let v = h.json("app.events");
    assert_eq!(v["times"].as_array().map(Vec::len), Some(5));
    assert_eq!(v["times"][0], 8.0);
    assert_eq!(v["shards"][0]["bytes"].as_array().map(Vec::len), Some(5));
}

#[test]
fn history_writes_per_sample_add_up_to_the_writes_routed_whatever_the_ring_dropped() {
    let sc = shardtop::sim::scenario::built_in("hashed")
        .unwrap()
        .unwrap();
    let mut sim = shardtop::sim::Simulator::from_scenario(&sc, sc.seed, None).unwrap();
    let mut kept = shardtop::cluster::history::History::new(7);
    let mut all = shardtop::cluster::history::History::new(100);
    let ns = sim.cluster.collections[0].ns.clone();
    for t in 1..=30 {
        sim.run_until(t * 1000);
        kept.sample(&sim.cluster);
        all.sample(&sim.cluster);
    }
    let c = sim.cluster.collection(&ns).unwrap();
    for (id, slot) in all.shards(&ns) {
        let i = sim
            .cluster
            .shards
            .iter()
            .position(|s| s.shard.id == id)
            .unwrap();
        let routed = c.writes_to(shardtop::model::ShardIdx(i as u32));
        let per_sample: u64 = (0..30).map(|k| u64::from(all.value(k, slot)[2])).sum();
        assert_eq!(per_sample, routed, "{id}");
        assert_eq!(u64::from(all.writes_between(0..30, slot)), routed, "{id}");
        // The bounded ring's newest seven samples hold the same writes as the whole one's.
        let k = kept.shards(&ns).find(|(s, _)| *s == id).unwrap().1;
        let last7: Vec<u32> = (23..30).map(|j| all.value(j, slot)[2]).collect();
        let ring: Vec<u32> = (0..7).map(|j| kept.value(j, k)[2]).collect();
        assert_eq!(ring, last7, "{id}");
    }
    assert!(routed_some(&all, &ns));
}

fn routed_some(h: &shardtop::cluster::history::History, ns: &str) -> bool {
    h.shards(ns)
        .any(|(_, slot)| h.writes_between(0..h.times().len(), slot) > 0)
}

#[test]
fn a_replay_of_the_recording_gives_the_same_heatmap_and_history() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("asc.ndjson").display().to_string();
    let _ = summary(&["sim", "ascending", "--json", "--record", &trace]);
    let pick = |v: &Value| {
        let c = &v["collections"][0];
        (c["heatmap"].clone(), c["history"].clone())
    };
    let sim = summary(&[
        "sim",
        "ascending",
        "--json",
        "--heatmap",
        "40x8",
        "--history",
    ]);
    let replay = summary(&["replay", &trace, "--json", "--heatmap", "40x8", "--history"]);
    assert_eq!(pick(&sim), pick(&replay));
    assert!(pick(&sim).0["writes"].is_array());
}
