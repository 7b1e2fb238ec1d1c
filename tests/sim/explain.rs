//! `explain`: its next move is the diagnosis's (tests/sim/diagnosis.rs checks it against the
//! simulator's own next round); the rules table follows the release line (chunk counts before 6.0.3, data
//! size after, with 7.0's donor and 8.0's recipient ideal-size checks).

use shardtop::cluster::ServerVersion;
use shardtop::cluster::explain::{Next, Verdict};
use shardtop::sim::balancer::explain::Unread;
use shardtop::sim::{Simulator, scenario};

fn sim(name: &str, version: Option<ServerVersion>) -> Simulator {
    let sc = scenario::built_in(name).unwrap().unwrap();
    Simulator::from_scenario(&sc, sc.seed, version).unwrap()
}

fn user_collection(sim: &Simulator) -> usize {
    (sim.cluster.collections.iter())
        .position(|c| !c.ns.starts_with("config."))
        .unwrap()
}

/// The diagnosis of the simulator's state, as every surface takes it.
fn diagnosis(sim: &Simulator) -> shardtop::diagnosis::Diagnoses {
    shardtop::source::diagnose::of_point(shardtop::source::whatif::ForkPoint::of_simulator(sim))
}

/// `explain` of collection `c` with the diagnosis's next move, as the command and the panel do.
fn explain(sim: &Simulator, c: usize, unread: Unread) -> shardtop::cluster::explain::Explanation {
    let d = diagnosis(sim);
    let told = d.of(&sim.cluster.collections[c].ns).unwrap().next.told();
    sim.explain(c, None, unread, told)
}

/// Late in `low-cardinality` the next round moves nothing of the collection, because its chunks
/// are jumbo, and `explain` says so (the next move is the diagnosis's: tests/sim/diagnosis.rs
/// checks it against the simulator's next round on every scenario).
#[test]
fn low_cardinality_moves_nothing_because_the_chunk_is_jumbo() {
    let mut s = sim("low-cardinality", None);
    let c = user_collection(&s);
    let mut jumbo = 0;
    for t in (0..10).map(|k| 600_000 + k * 30_000) {
        s.run_until(t);
        let e = explain(&s, c, Unread::default());
        if let Next::Nothing { reason } = &e.next
            && reason.contains("jumbo")
        {
            jumbo += 1;
        }
    }
    assert!(jumbo > 0, "no round said jumbo");
    s.run_until(900_000);
    let e = explain(&s, c, Unread::default());
    if let Next::Nothing { reason } = &e.next {
        assert!(reason.contains("jumbo"), "{reason}");
    } else {
        panic!("low-cardinality at 900 s still moves: {:?}", e.next);
    }
}

fn rule_names(sim: &Simulator) -> Vec<&'static str> {
    let c = user_collection(sim);
    let e = explain(sim, c, Unread::default());
    e.shards[0].rules.iter().map(|r| r.rule).collect()
}

#[test]
fn the_rules_follow_the_release_line() {
    let mut v5 = sim("ascending", Some(ServerVersion::V5_0));
    v5.run_until(120_000);
    let mut v8 = sim("ascending", Some(ServerVersion::V8_0));
    v8.run_until(120_000);
    let (r5, r8) = (rule_names(&v5), rule_names(&v8));
    for r in ["donorAboveIdealChunks", "recipientBelowIdealChunks"] {
        assert!(r5.contains(&r) && !r8.contains(&r), "{r}: {r5:?} / {r8:?}");
    }
    for r in [
        "dataSizeGap",
        "donorAboveIdealDataSize",
        "recipientBelowIdealDataSize",
        "autoMerger",
    ] {
        assert!(r8.contains(&r) && !r5.contains(&r), "{r}: {r5:?} / {r8:?}");
    }
    // 5.0's chunk-count ideal: round(chunks ÷ shards), the same on every row.
    let c = user_collection(&v5);
    let e = explain(&v5, c, Unread::default());
    let chunks = v5.cluster.collections[c].table.len() as f32;
    let shards = v5.cluster.shards.iter().filter(|s| !s.removed).count() as f32;
    for row in &e.shards {
        let r = row
            .rules
            .iter()
            .find(|r| r.rule == "donorAboveIdealChunks")
            .unwrap();
        assert_eq!(r.limit, serde_json::json!((chunks / shards).round() as u64));
    }
    // 8.0's threshold: 3 × chunk size.
    let c = user_collection(&v8);
    let e = explain(&v8, c, Unread::default());
    let gap = e.shards[0]
        .rules
        .iter()
        .find(|r| r.rule == "dataSizeGap")
        .unwrap();
    assert_eq!(
        gap.limit,
        serde_json::json!(3 * v8.cluster.chunk_size_of(c))
    );
}

#[test]
fn what_was_not_read_is_unknown() {
    let mut s = sim("ascending", Some(ServerVersion::V8_0));
    s.run_until(60_000);
    let c = user_collection(&s);
    let unread = Unread {
        sizes: true,
        chunk_docs: true,
        ..Unread::default()
    };
    let e = explain(&s, c, unread);
    for row in &e.shards {
        for r in &row.rules {
            if [
                "dataSizeGap",
                "donorAboveIdealDataSize",
                "recipientBelowIdealDataSize",
            ]
            .contains(&r.rule)
                || (r.rule == "chunkTooBig" && r.verdict != Verdict::NotApplicable)
            {
                assert_eq!(r.verdict, Verdict::Unknown, "{}", r.rule);
                assert!(r.value.is_null(), "{}", r.rule);
            }
        }
    }
}

#[test]
fn explain_json_has_the_documented_shape() {
    let mut s = sim("drain", None);
    s.run_until(60_000);
    let c = user_collection(&s);
    let j = explain(&s, c, Unread::default()).to_json();
    let keys: Vec<&String> = j.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["ns", "chunk", "shards", "next", "nextReason"]);
    let row = &j["shards"][0];
    assert!(row["shard"].is_string());
    let rule = row["rules"][0].as_object().unwrap();
    let keys: Vec<&String> = rule.keys().collect();
    assert_eq!(keys, ["rule", "verdict", "value", "limit"]);
    match &j["next"] {
        serde_json::Value::Null => assert!(j["nextReason"].is_string()),
        next => {
            for k in ["from", "to", "reason"] {
                assert!(next[k].is_string(), "{k}: {next}");
            }
            assert!(j["nextReason"].is_null());
        }
    }
}
