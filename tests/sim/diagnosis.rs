//! The diagnosis: one answer per collection, the same on every surface and from every source.
//! Its next move is the one the simulator then starts (the simulator is exact by construction,
//! so it is the oracle); every surface — the JSON summary, `explain`, the balancer pane's lines,
//! `H`'s drain line — says the diagnosis's words; `whatif` with no change predicts its estimate;
//! a trace at T says what `sim:` at T says; a drain on the recipient's orphans stalls, with its
//! cause whole and no estimate.

use shardtop::cluster::event::MigrationReason;
use shardtop::cluster::{EventKind, ServerVersion};
use shardtop::diagnosis::{Basis, Diagnoses, Next, Status};
use shardtop::sim::balancer::explain::Unread;
use shardtop::sim::whatif::Changes;
use shardtop::sim::{Simulator, scenario};
use shardtop::source::whatif::ForkPoint;

fn sim(name: &str, version: Option<ServerVersion>) -> Simulator {
    let sc = scenario::built_in(name).unwrap().unwrap();
    Simulator::from_scenario(&sc, sc.seed, version).unwrap()
}

fn until_ms(name: &str) -> u64 {
    (scenario::built_in(name).unwrap().unwrap().until * 1000.0) as u64
}

fn diagnose(sim: &Simulator) -> Diagnoses {
    shardtop::source::diagnose::of_point(ForkPoint::of_simulator(sim))
}

/// The first balancer migration of each collection the simulator starts in its next round
/// (`None` for a collection that round leaves alone), by running the simulator itself.
fn next_round(mut sim: Simulator) -> Option<Vec<(String, String, String, String)>> {
    sim.take_events();
    let limit = sim.now_ms() + 2 * 3_600_000;
    while sim.now_ms() < limit {
        sim.step();
        let events = sim.take_events();
        if !events
            .iter()
            .any(|e| matches!(e.kind, EventKind::BalancerRoundStarted { .. }))
        {
            continue;
        }
        let mut out: Vec<(String, String, String, String)> = Vec::new();
        for e in events {
            if let EventKind::MigrationStarted { range, reason, .. } = e.kind
                && !matches!(
                    reason,
                    MigrationReason::Manual
                        | MigrationReason::ManualForce
                        | MigrationReason::TopChunk
                )
                && !out.iter().any(|o| o.0 == range.ns)
            {
                let cl = &sim.cluster;
                out.push((
                    range.ns.clone(),
                    cl.bound_text(&range.ns, &range.min),
                    cl.shard_id(range.from).to_string(),
                    cl.shard_id(range.to).to_string(),
                ));
            }
        }
        return Some(out);
    }
    None
}

const LINES: [ServerVersion; 3] = [
    ServerVersion::V5_0,
    ServerVersion::V7_0,
    ServerVersion::V8_0,
];

/// Every built-in scenario × three release lines × three times: the diagnosis's next move of
/// every collection is the first migration the simulator's next round starts on it — zone
/// splits, scheduled actions, writes and the in-flight migration's commit in between.
#[test]
fn the_next_move_is_the_one_the_simulators_next_round_starts() {
    let mut compared = 0;
    for name in scenario::names() {
        for version in LINES {
            let mut s = sim(name, Some(version));
            let end = until_ms(name);
            for t in [end / 10, end * 2 / 5, end * 4 / 5] {
                s.run_until(t);
                let d = diagnose(&s);
                let Some(round) = next_round(s.clone()) else {
                    for one in &d.collections {
                        assert!(
                            matches!(one.next, Next::Nothing(_)),
                            "{name} {version} {t}: {one:?}"
                        );
                    }
                    continue;
                };
                for one in &d.collections {
                    let started = round.iter().find(|r| r.0 == one.ns);
                    match (&one.next, started) {
                        (Next::Move(m), Some((_, min, from, to))) => {
                            let said = s.cluster.bound_text(&one.ns, &m.min_key);
                            assert_eq!(
                                (&said, &m.from, &m.to),
                                (min, from, to),
                                "{name} {version} at {t} ms: {}",
                                one.ns
                            );
                            compared += 1;
                        }
                        (Next::Nothing(_), None) => compared += 1,
                        (said, started) => panic!(
                            "{name} {version} at {t} ms, {}: the diagnosis said {said:?}, the round started {started:?}",
                            one.ns
                        ),
                    }
                }
            }
        }
    }
    assert!(compared > 150, "{compared}");
}

/// Every surface says the diagnosis: the JSON summary's `diagnosis`, `explain`'s next move and
/// its text, the balancer pane's lines and `H`'s drain estimate — the same status, next move and
/// estimate for the same state; every built-in scenario on three release lines at two times.
#[test]
fn every_surface_says_the_same_status_next_move_and_estimate() {
    for (name, version) in scenario::names()
        .into_iter()
        .flat_map(|n| LINES.map(|v| (n, v)))
    {
        let mut s = sim(name, Some(version));
        let end = until_ms(name);
        for t in [end / 5, end * 3 / 5] {
            s.run_until(t);
            let d = diagnose(&s);
            let mut summary = s
                .cluster
                .summary_json(&shardtop::cluster::summary::SummaryOptions::default());
            d.attach(&mut summary, &s.cluster.namespaces());
            let at = |ms: u64| shardtop::units::clock_time(ms, false);
            for (c, coll) in s.cluster.collections.iter().enumerate() {
                let json = &summary["collections"][c]["diagnosis"];
                let Some(one) = d.of(&coll.ns) else {
                    assert!(json.is_null(), "{name} {t}: {json}");
                    continue;
                };
                // JSON.
                assert_eq!(json["status"], one.status.as_str(), "{name} {t}");
                assert_eq!(json["next"], one.next_json(), "{name} {t}");
                assert_eq!(json["eta"], one.eta.to_json(), "{name} {t}");
                // explain: its next move and its chunk are the diagnosis's.
                let e = s.explain(c, None, Unread::default(), one.next.told());
                match &one.next {
                    Next::Move(m) => {
                        assert_eq!(e.to_json()["next"]["from"], m.from.as_str(), "{name} {t}");
                        assert_eq!(e.chunk.chosen, "next", "{name} {t}: {}", coll.ns);
                        // The chunk that moves, or the chunk a split before the round cuts
                        // it from.
                        let table = &coll.table;
                        let shown = match table.find_by_min(&m.min_key) {
                            Some(_) => m.min.clone(),
                            None => coll
                                .pattern
                                .bound_to_json(table.chunk(table.route(&m.min_key)).min),
                        };
                        assert_eq!(e.chunk.min, shown, "{name} {t}: the chunk shown moves");
                    }
                    Next::Nothing(why) => assert_eq!(e.to_json()["nextReason"], why.as_str()),
                }
                // The balancer pane's lines, as the view carries them.
                let req = shardtop::view::ViewRequest {
                    collection: c,
                    ..Default::default()
                };
                let clock = shardtop::view::ClockView {
                    time_ms: s.now_ms(),
                    virtual_time: true,
                    ..Default::default()
                };
                let mut v = shardtop::view::build(&s.cluster, &req, "sim", clock);
                shardtop::view::diagnosis::attach(&mut v, Some(&d), Some(&coll.ns));
                let dv = v.diagnosis.as_ref().unwrap();
                assert_eq!(dv.status, one.status.as_str());
                assert_eq!(dv.next, one.next_text(&at));
                assert_eq!(dv.eta, one.eta.text(one.at_ms, &at));
                for (drain, line) in d.drains.iter().zip(&v.drain_estimates) {
                    assert_eq!(*line, drain.text(d.at_ms, &at));
                }
            }
        }
    }
}

/// `whatif` of the simulator with no change predicts the diagnosis's estimate: the same run of
/// the same rules.
#[test]
fn whatif_with_no_change_predicts_the_diagnosis_estimate() {
    let mut checked = 0;
    for (name, t) in [
        ("add-shard", 70_000),
        ("zones-ip", 5_000),
        ("drain", 100_000),
        ("defragment", 45_000),
        ("drain-orphans", 120_000),
    ] {
        let mut s = sim(name, None);
        s.run_until(t);
        let d = diagnose(&s);
        for one in &d.collections {
            if one.eta.basis != Basis::Simulated {
                continue;
            }
            let c = s.cluster.collection_index(&one.ns).unwrap();
            let (fork, _) = shardtop::source::diagnose::continuation(ForkPoint::of_simulator(&s));
            let until = s.now_ms() + shardtop::diagnosis::LOOKAHEAD_MS;
            let p = shardtop::sim::whatif::predict(fork, c, &Changes::default(), until);
            let said = match one.eta.what {
                "drained" => p
                    .collection
                    .drained_at_ms
                    .iter()
                    .filter_map(|(_, at)| *at)
                    .max(),
                _ => p.collection.balanced_at_ms,
            };
            assert_eq!(said, one.eta.at_ms, "{name} at {t}: {}", one.ns);
            checked += 1;
        }
    }
    assert!(checked >= 3, "{checked}");
}

/// `zones-ip` 5 s in: a chunk straddles a zone boundary, so it is not balanced (MongoDB's
/// `balancerCollectionStatus` says `zoneViolation`), and `whatif` agrees.
#[test]
fn a_pending_zone_split_is_not_balanced() {
    let mut s = sim("zones-ip", None);
    s.run_until(5_000);
    let d = diagnose(&s);
    let one = d.of("test.ips").unwrap();
    assert_ne!(one.status, Status::Balanced, "{one:?}");
    let c = s.cluster.collection_index("test.ips").unwrap();
    assert_eq!(
        s.balancer_compliance(c)
            .map(shardtop::sim::balancer::Violation::as_str),
        Some("zoneViolation")
    );
    let p = shardtop::sim::whatif::predict(s.clone(), c, &Changes::default(), 600_000);
    assert!(
        p.collection.balanced_at_ms > Some(5_000),
        "{:?}",
        p.collection.balanced_at_ms
    );
    assert!(p.collection.migrations > 0);
}

/// `drain-orphans`: every move back onto shard0000 fails while it holds the range's orphans —
/// stalled, the cause the server's words whole and in plain words, each failure listed, no
/// estimate — on every release line; once the range deleter has run the drain ends.
#[test]
fn a_drain_onto_a_shard_holding_the_ranges_orphans_stalls_with_its_cause_and_no_estimate() {
    // From 6.0 (no auto-splitter: the range moved first is the range drained back).
    for version in [ServerVersion::V7_0, ServerVersion::V8_0] {
        let mut s = sim("drain-orphans", Some(version));
        s.run_until(140_000);
        let d = diagnose(&s);
        let one = d.of("app.events").unwrap();
        assert_eq!(one.status, Status::Stalled, "{version}: {one:?}");
        assert_eq!(one.cause.rule, "rangeDeletionPending");
        assert!(
            one.cause
                .message
                .contains("orphans cleanup routine didn't clear yet a portion of the range"),
            "{}",
            one.cause.message
        );
        assert!(
            one.cause.plain.contains("range deleter"),
            "{}",
            one.cause.plain
        );
        assert!(one.cause.events.len() >= 3, "{:?}", one.cause.events);
        assert!(
            one.cause
                .events
                .iter()
                .all(|e| e.text.contains("OperationFailed (96)"))
        );
        assert_eq!((one.eta.at_ms, one.eta.basis), (None, Basis::Unknown));
        assert!(one.eta.why.as_deref().unwrap().contains("stalled"));
        // The range deleter runs 900 s after the first move: the drain ends after it.
        s.run_until(1_000_000);
        let d = diagnose(&s);
        assert_eq!(
            d.of("app.events").unwrap().status,
            Status::Balanced,
            "{version}"
        );
    }
}

/// A trace of a scenario at T, once nothing more is scheduled and the writes have stopped,
/// diagnoses as the simulator at T does: the same status, next move and estimate.
#[test]
fn a_trace_at_t_says_what_the_simulator_at_t_says() {
    let dir = tempfile::tempdir().unwrap();
    for (name, t) in [
        ("drain-orphans", 140_000),
        ("add-shard", 70_000),
        ("zones-ip", 120_000),
    ] {
        let mut s = sim(name, None);
        let path = dir.path().join(format!("{name}.trace"));
        let header = shardtop::source::record::sim_header(&s, &format!("sim:{name}"), name, 1);
        let to = (path.as_path(), shardtop::trace::writer::Existing::Refuse);
        shardtop::source::record::record_sim_to(&mut s, t, to, &header, |_, _| {}).unwrap();
        let d_sim = diagnose(&s);
        let replay =
            shardtop::trace::Replay::open(&path, shardtop::trace::ReadOptions::default()).unwrap();
        let mut replay = replay;
        replay.seek(t).unwrap();
        let d_trace =
            shardtop::source::diagnose::of_point(shardtop::source::replay::fork_point_of(&replay));
        for (a, b) in d_sim.collections.iter().zip(&d_trace.collections) {
            assert_eq!(
                (a.status, a.cause.rule),
                (b.status, b.cause.rule),
                "{name}: {}",
                a.ns
            );
            // A move is the same move; why nothing moves is said in the policy's numbers,
            // which rest on each chunk's documents (a trace keeps each chunk's totals, not
            // where inside it the documents are: its fork assumes them spread, and says so).
            match (&a.next, &b.next) {
                (Next::Nothing(_), Next::Nothing(_)) => {}
                (x, y) => assert_eq!(x, y, "{name}: {}", a.ns),
            }
            assert_eq!(a.eta, b.eta, "{name}: {}", a.ns);
        }
    }
}
