//! The simulator's limits (issue 20): every absurd number of a scenario file refused with its
//! field path, trailing characters refused, `every` honoured from `at: 0`, failed actions kept
//! (events, the JSON `errors`, stderr) — and what `sim` accepts, its trace and replay accept too.
#![allow(clippy::unwrap_used)]

use std::path::PathBuf;

use proptest::prelude::*;
use shardtop::cluster::{EventKind, SummaryOptions};
use shardtop::sim::{Simulator, scenario};
use shardtop::source::record::{record_sim, sim_header};
use shardtop::trace::{ReadOptions, Replay};

fn base(extra: &str) -> String {
    format!(
        r#"{{"name": "t", "description": "", "seedPassage": "", "shards": 2,
        "collections": [{{"ns": "a.b", "key": {{"k": 1}}}}], "until": 10 {extra}}}"#
    )
}

fn refused(text: &str) -> String {
    scenario::parse(text).map(|_| ()).unwrap_err()
}

/// `{"k": {"k": … 1 …}}` nested `levels` deep.
fn nested_json(levels: usize) -> String {
    let mut s = "1".to_string();
    for _ in 0..levels {
        s = format!(r#"{{"k": {s}}}"#);
    }
    s
}

#[test]
fn absurd_numbers_are_refused_with_their_field_path() {
    let cases: Vec<(String, &str)> = vec![
        (
            base("").replace(r#""shards": 2"#, r#""shards": 4000000000"#),
            "field `shards`",
        ),
        (
            base("").replace(r#""shards": 2"#, r#""shards": []"#),
            "field `shards`: a cluster has 1 to 10000 shards",
        ),
        (
            base("").replace(r#""until": 10"#, r#""until": 1e300"#),
            "field `until`: 1e300 is outside",
        ),
        (
            base("").replace(
                r#""key": {"k": 1}"#,
                r#""key": {"k": "hashed"}, "numInitialChunks": 4000000000"#,
            ),
            "field `collections[0].numInitialChunks`",
        ),
        (
            base(r#", "actions": [{"at": 0, "every": 1e-300, "do": {"balancerStop": {}}}]"#),
            "field `actions[0].every`: 1e-300 is outside 0.1..=2592000",
        ),
        (
            base(r#", "actions": [{"at": 5, "do": {"split": {"ns": "a.b", "middle": MID}}}]"#)
                .replace("MID", &nested_json(118)),
            "field `actions[0].do.split.middle`: nested deeper than 32 levels",
        ),
        (
            base(r#", "actions": [{"at": 1, "do": {"setChunkSize": {"mb": 0}}}]"#),
            "field `actions[0].do.setChunkSize.mb`: 0 is outside 1..=1024",
        ),
        (
            base(
                r#", "workloads": [{"ns": "a.b", "rate": 1e12, "docSize": 100, "fields": {"k": {"sequence": {}}}}]"#,
            ),
            "field `workloads[0].rate`",
        ),
        (
            base(
                r#", "workloads": [{"ns": "a.b", "rate": 10, "docSize": 100000000, "fields": {"k": {"sequence": {}}}}]"#,
            ),
            "field `workloads[0].docSize`",
        ),
        (
            base(r#", "actions": [{"at": 0, "every": 0.1, "do": {"balancerStop": {}}}]"#)
                .replace(r#""until": 10"#, r#""until": 2000000"#),
            "field `actions`: the repeating actions would run",
        ),
        (format!("{} garbage", base("")), "trailing characters"),
    ];
    for (text, expected) in cases {
        let e = refused(&text);
        assert!(e.contains(expected), "{expected:?} not in {e:?}");
    }
}

/// `shardtop sim --json --scenario-file` of a file holding `text`.
fn sim_json(tag: &str, text: &str) -> std::process::Output {
    let dir = std::env::temp_dir().join(format!("shardtop-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("scenario.json");
    std::fs::write(&file, text).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_shardtop"))
        .args(["sim", "--json", "--scenario-file"])
        .arg(&file)
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    out
}

#[test]
fn the_binary_exits_2_naming_the_field() {
    let out = sim_json(
        "limits",
        &base("").replace(r#""shards": 2"#, r#""shards": 4000000000"#),
    );
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("field `shards`: 4000000000 is outside 1..=10000"),
        "{err}"
    );
}

#[test]
fn every_is_honoured_from_time_0_and_failures_are_kept() {
    let text = base(
        r#", "actions": [{"at": 0, "every": 2, "do": {"split": {"ns": "a.b", "middle": {"zz": 5}}}}]"#,
    );
    let sc = scenario::parse(&text).unwrap();
    let mut sim = Simulator::from_scenario(&sc, 1, None).unwrap();
    let mut failed = sim
        .take_events()
        .iter()
        .filter(|e| matches!(e.kind, EventKind::ActionFailed { .. }))
        .count();
    sim.run_until(10_000);
    failed += sim
        .take_events()
        .iter()
        .filter(|e| matches!(e.kind, EventKind::ActionFailed { .. }))
        .count();
    // t = 0, 2, 4, 6, 8.
    assert_eq!(failed, 5);
    let f = &sim.failed_actions()[1];
    assert_eq!((f.path.as_str(), f.at_ms), ("actions[0].do.split", 2_000));
    assert_eq!(f.error.code_name, "BadValue");
}

#[test]
fn a_failed_action_is_in_the_json_summary_and_on_stderr_and_the_exit_is_0() {
    let out = sim_json(
        "failed",
        &base(r#", "actions": [{"at": 3, "do": {"split": {"ns": "a.b", "middle": {"zz": 5}}}}]"#),
    );
    assert_eq!(out.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let e = &v["errors"][0];
    assert_eq!(e["path"], "actions[0].do.split");
    assert_eq!(e["atSeconds"], 3.0);
    assert_eq!(e["codeName"], "BadValue");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("scheduled action failed: t=3s split (actions[0].do.split): BadValue"),
        "{err}"
    );
}

/// A scenario within the limits: shards, a collection on a key of up to three fields, a
/// workload, values nested up to the limit, repeating actions (some of which fail).
fn scenario_text(shards: u32, fields: usize, depth: usize, every: f64, rate: f64) -> String {
    let key: Vec<String> = (0..fields).map(|i| format!(r#""f{i}": 1"#)).collect();
    let gens: Vec<String> = (0..fields)
        .map(|i| format!(r#""f{i}": {{"uniformInt": {{"min": 0, "max": 1000}}}}"#))
        .collect();
    format!(
        r#"{{"name": "p", "description": "", "seedPassage": "", "shards": {shards},
        "collections": [{{"ns": "a.b", "key": {{{}}}}}],
        "workloads": [{{"ns": "a.b", "rate": {rate}, "docSize": 200, "fields": {{{}, "deep": {{"const": {}}}}}}}],
        "actions": [
          {{"at": 0, "every": {every}, "do": {{"split": {{"ns": "a.b", "middle": {}}}}}}},
          {{"at": 1, "every": {every}, "do": {{"splitFind": {{"ns": "a.b", "find": {{"f0": 500}}}}}}}}
        ],
        "until": 12}}"#,
        key.join(", "),
        gens.join(", "),
        nested_json(depth.saturating_sub(1)),
        nested_json(depth),
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    #[test]
    fn what_sim_accepts_its_trace_and_replay_accept(
        shards in 1u32..6,
        fields in 1usize..4,
        depth in 1usize..=32,
        every in 0.1f64..5.0,
        rate in 0.0f64..300.0,
    ) {
        let text = scenario_text(shards, fields, depth, every, rate);
        let sc = scenario::parse(&text).unwrap();
        let mut sim = Simulator::from_scenario(&sc, 1, None).unwrap();
        let dir = std::env::temp_dir().join(format!("shardtop-limits-prop-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path: PathBuf = dir.join("p.ndjson");
        let header = sim_header(&sim, "sim:p", "p", 1);
        record_sim(&mut sim, 12_000, &path, &header, |_, _| {}).unwrap();
        let mut replay = Replay::open(&path, ReadOptions::default()).unwrap();
        replay.seek(replay.end_ms()).unwrap();
        let opts = SummaryOptions { source: "x".into(), chunks: true, writes_unknown: false };
        prop_assert_eq!(replay.state().summary_json(&opts), sim.cluster.summary_json(&opts));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
