//! `explain`: the migration it says the next round starts is the one the simulator starts, on
//! the seed scenarios; the rules table follows the release line (chunk counts before 6.0.3, data
//! size after, with 7.0's donor and 8.0's recipient ideal-size checks).

use shardtop::cluster::explain::{Next, Verdict};
use shardtop::cluster::{EventKind, ServerVersion};
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

/// Steps to the instant a balancer round is due (the next step starts it); false at `until_ms`.
fn to_round_start(sim: &mut Simulator, until_ms: u64) -> bool {
    while sim.now_ms() < until_ms {
        let b = &sim.cluster.balancer;
        let window = (sim.cluster.settings.active_window).is_none_or(|w| w.contains(sim.now_ms()));
        if b.round.is_none()
            && sim.now_ms() >= b.next_round_ms
            && sim.cluster.settings.balancer_enabled
            && window
        {
            return true;
        }
        sim.step();
    }
    false
}

/// Over the scenario's first `until_ms`, at every round start: `next_move` equals the first
/// migration the round starts on the collection (or there is none). Returns (moves, nothings).
fn next_is_what_the_round_starts(name: &str, until_ms: u64) -> (usize, Vec<String>) {
    let mut sim = sim(name, None);
    let c = user_collection(&sim);
    let ns = sim.cluster.collections[c].ns.clone();
    let (mut moves, mut nothing) = (0, Vec::new());
    while to_round_start(&mut sim, until_ms) {
        let said = sim.next_move(c);
        sim.take_events();
        sim.step();
        let events = sim.take_events();
        // A scheduled action (addShard, removeShard…) or a commit in the same tick runs before
        // the round: the round then sees another state than the one explained.
        let before_round = events.iter().take_while(|e| {
            !matches!(
                e.kind,
                EventKind::MigrationStarted { .. } | EventKind::BalancerRoundStarted { .. }
            )
        });
        if before_round
            .filter(|e| !matches!(e.kind, EventKind::Split { .. } | EventKind::Writes { .. }))
            .count()
            > 0
        {
            continue;
        }
        let started = events.into_iter().find_map(|e| match e.kind {
            EventKind::MigrationStarted { range, reason, .. } if range.ns == ns => {
                Some((range.min, range.from, range.to, reason))
            }
            _ => None,
        });
        match (said, started) {
            (Ok(m), Some(s)) => {
                assert_eq!(
                    (m.min, m.from, m.to, m.reason),
                    s,
                    "{name} at {} ms",
                    sim.now_ms()
                );
                moves += 1;
            }
            (Err(why), None) => nothing.push(why),
            (said, started) => panic!(
                "{name} at {} ms: explain said {said:?}, the round started {started:?}",
                sim.now_ms()
            ),
        }
    }
    (moves, nothing)
}

#[test]
fn next_is_the_migration_the_simulator_starts_on_the_seed_scenarios() {
    for name in ["ascending", "zones-ip", "drain", "add-shard"] {
        let (moves, _) = next_is_what_the_round_starts(name, 900_000);
        assert!(moves > 0, "{name}: no round moved anything to compare");
    }
    // Pre-split evenly: rounds that move nothing, compared all the same.
    let (moves, nothing) = next_is_what_the_round_starts("hashed", 900_000);
    assert!(moves + nothing.len() > 10, "hashed: {moves} {nothing:?}");
}

#[test]
fn low_cardinality_moves_nothing_because_the_chunk_is_jumbo() {
    let (_, nothing) = next_is_what_the_round_starts("low-cardinality", 900_000);
    assert!(
        nothing.iter().any(|w| w.contains("jumbo")),
        "no round said jumbo: {nothing:?}"
    );
    let mut s = sim("low-cardinality", None);
    s.run_until(900_000);
    let c = user_collection(&s);
    let e = s.explain(c, None, Unread::default());
    if let Next::Nothing { reason } = &e.next {
        assert!(reason.contains("jumbo"), "{reason}");
    } else {
        panic!("low-cardinality at 900 s still moves: {:?}", e.next);
    }
}

fn rule_names(sim: &Simulator) -> Vec<&'static str> {
    let c = user_collection(sim);
    let e = sim.explain(c, None, Unread::default());
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
    let e = v5.explain(c, None, Unread::default());
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
    let e = v8.explain(c, None, Unread::default());
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
    let e = s.explain(c, None, unread);
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
    let j = s.explain(c, None, Unread::default()).to_json();
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
