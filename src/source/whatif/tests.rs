use super::*;
use crate::model::ShardIdx;
use crate::sim::whatif::calibration::Earlier;
use crate::source::Timeline;
use crate::source::sim::SimTimeline;

fn timeline(name: &str) -> SimTimeline {
    let sc = crate::sim::scenario::built_in(name)
        .expect("known")
        .expect("a scenario");
    SimTimeline::new(&sc, sc.seed, None).expect("runs")
}

/// Chunks of collection `c` per shard, by shard name.
fn chunks(sim: &Simulator, c: usize) -> Vec<(String, u64)> {
    let table = &sim.cluster.collections[c].table;
    (0..sim.cluster.shards.len())
        .map(|s| {
            let idx = ShardIdx(s as u32);
            (
                sim.cluster.shard_id(idx).to_string(),
                table.shard_totals(idx).chunks,
            )
        })
        .collect()
}

fn now_of(tl: &SimTimeline) -> Simulator {
    tl.fork_point().expect("a simulator forks").sim
}

#[test]
fn a_fork_with_no_change_plays_exactly_as_its_source() {
    let mut tl = timeline("ascending");
    tl.advance_to(20_000, &mut Vec::new()).expect("plays");
    let point = tl.fork_point().expect("forks");
    let mut fork = Fork::new(point, "", 0).expect("no change forks");
    assert_eq!(fork.forked_at_ms(), 20_000);
    for t in [60_000, 120_000] {
        tl.advance_to(t, &mut Vec::new()).expect("plays");
        fork.follow(t, None);
        let now = now_of(&tl);
        assert_eq!(fork.now_ms(), now.now_ms());
        assert_eq!(chunks(&fork.sim, 0), chunks(&now, 0), "at {t} ms");
    }
    let moved: u64 = chunks(&fork.sim, 0).iter().skip(1).map(|(_, n)| n).sum();
    assert!(moved > 0, "the scenario moves chunks off its first shard");
    // Back before the clock: played again from the fork, the same state.
    fork.follow(60_000, None);
    tl.seek(60_000, &mut Vec::new()).expect("seeks");
    assert_eq!(chunks(&fork.sim, 0), chunks(&now_of(&tl), 0));
    // Before the fork it stays at the fork.
    fork.follow(1_000, None);
    assert_eq!(fork.now_ms(), 20_000);
}

#[test]
fn added_shards_take_chunks_in_the_fork_and_not_in_the_source() {
    let mut tl = timeline("ascending");
    tl.advance_to(120_000, &mut Vec::new()).expect("plays");
    let mut fork = Fork::new(tl.fork_point().expect("forks"), "--add-shards 2", 0).expect("forks");
    assert!(fork.refused.is_empty(), "{:?}", fork.refused);
    let t = 120_000 + 600_000;
    tl.advance_to(t, &mut Vec::new()).expect("plays");
    fork.follow(t, None);
    let forked = chunks(&fork.sim, 0);
    for name in ["added01", "added02"] {
        let n = forked
            .iter()
            .find(|(s, _)| s == name)
            .map_or(0, |(_, n)| *n);
        assert!(n > 0, "{name} owns no chunk: {forked:?}");
    }
    assert!(now_of(&tl).cluster.shard_index("added01").is_none());
    let v = fork.view(&ViewRequest::default(), &ClockView::default());
    assert_eq!(v.changes, "+2 shards");
    assert!(v.fork.shards.iter().any(|s| s.id == "added01"));
    assert!(
        v.log.iter().any(|l| l.text.contains("added01")),
        "{:?}",
        v.log
    );
}

#[test]
fn the_prediction_comes_from_its_own_thread_and_a_fork_of_a_read_state_says_its_assumptions() {
    let mut tl = timeline("ascending");
    tl.advance_to(60_000, &mut Vec::new()).expect("plays");
    let mut point = tl.fork_point().expect("forks");
    // As a capture's or a live poll's state: the cluster alone.
    point.sim = Simulator::over(point.sim.cluster.clone());
    point.from = ForkedFrom::Capture;
    let mut fork = Fork::new(point, "--add-shards 1", 0).expect("forks");
    let first = fork.view(&ViewRequest::default(), &ClockView::default());
    assert!(
        first
            .assumed
            .as_deref()
            .is_some_and(|a| a.starts_with("migrationRate:"))
    );
    // A generous deadline: the answer is polled, never timed.
    let deadline = Instant::now() + Duration::from_secs(300);
    let p = loop {
        if let Some(p) = fork
            .view(&ViewRequest::default(), &ClockView::default())
            .prediction
        {
            break p;
        }
        assert!(Instant::now() < deadline, "no prediction");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(!fork.predicting());
    assert_eq!(
        p.ns,
        tl.fork_point().expect("forks").sim.cluster.collections[0].ns
    );
    assert!(p.until_ms >= 60_000);
}

#[test]
fn bad_changes_are_refused_naming_the_option() {
    let tl = timeline("ascending");
    for (text, says) in [
        ("--drain nowhere", "--drain nowhere: no such shard"),
        ("--chunk-size 0", "--chunk-size 0"),
        ("--bogus 1", "not a change"),
    ] {
        let Err(e) = Fork::new(tl.fork_point().expect("forks"), text, 0) else {
            panic!("{text} forked")
        };
        assert!(e.contains(says), "{text}: {e}");
    }
}

/// The next view from the source, skipping log lines and notices.
async fn next_view(
    rx: &mut tokio::sync::mpsc::Receiver<crate::source::SourceEvent>,
) -> Box<crate::view::ClusterView> {
    loop {
        match rx.recv().await {
            Some(crate::source::SourceEvent::View(v)) => return v,
            Some(_) => {}
            None => panic!("the source ended"),
        }
    }
}

#[tokio::test]
async fn the_runner_forks_on_the_ui_s_ask_follows_its_steps_and_drops_the_fork() {
    use crate::source::{Playback, SourceControl, run_timeline};
    let mut tl = timeline("ascending");
    tl.advance_to(30_000, &mut Vec::new()).expect("plays");
    let (to_ui, mut from_source) = tokio::sync::mpsc::channel(64);
    let (to_source, controls) = tokio::sync::mpsc::channel(64);
    let playback = Playback {
        speed: 1.0,
        paused: true,
        start_ms: None,
    };
    let task = tokio::spawn(run_timeline(tl, playback, Vec::new(), to_ui, controls));
    let send = |c| to_source.send(c);
    send(SourceControl::WhatIf(Some("--add-shards 1".into())))
        .await
        .expect("sent");
    let v = loop {
        let v = next_view(&mut from_source).await;
        if v.whatif.is_some() {
            break v;
        }
    };
    let w = v.whatif.as_ref().expect("a fork");
    assert_eq!((w.forked_at_ms, w.fork.clock.time_ms), (30_000, 30_000));
    assert!(w.fork.shards.iter().any(|s| s.id == "added01"));
    send(SourceControl::Step(5_000)).await.expect("sent");
    let v = loop {
        let v = next_view(&mut from_source).await;
        if v.clock.time_ms == 35_000 {
            break v;
        }
    };
    let w = v.whatif.as_ref().expect("still forked");
    assert_eq!(w.fork.clock.time_ms, 35_000, "the fork follows the step");
    send(SourceControl::WhatIf(None)).await.expect("sent");
    loop {
        if next_view(&mut from_source).await.whatif.is_none() {
            break;
        }
    }
    drop(to_source);
    drop(from_source);
    task.await.expect("ends").expect("without error");
}

#[test]
fn a_replay_forks_its_state_at_its_clock() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/traces/ascending.ndjson.zst");
    let mut tl = crate::source::replay::ReplayTimeline::open(&path).expect("opens");
    let at = tl.end_ms().expect("an end") / 2;
    tl.seek(at, &mut Vec::new()).expect("seeks");
    let point = tl.fork_point().expect("a replay forks");
    assert_eq!(point.from, ForkedFrom::Trace);
    // Calibrated as `shardtop whatif TRACE --at T`: its growth over the 5 minutes before (or
    // from its start); a simulator's trace keeps no changelog.
    let span = at.min(crate::source::whatif::calibrate::GROWTH_WINDOW_MS);
    assert!(
        matches!(&point.calibration.earlier, Ok(Earlier::State(_, s)) if *s == span),
        "{:?}",
        point.calibration.earlier.as_ref().err()
    );
    let mut fork = Fork::new(point, "--add-shards 1", 0).expect("forks");
    let writes = (fork.assumed[0].iter()).find(|a| a.0 == "writes");
    let (_, how, note) = writes.expect("writes said");
    assert_eq!(*how, "measured", "{note}");
    assert!(note.contains("over the last"), "{note}");
    assert_eq!(fork.forked_at_ms(), tl.now_ms());
    fork.follow(tl.now_ms() + 60_000, None);
    let v = fork.view(&ViewRequest::default(), &ClockView::default());
    assert!(v.fork.shards.iter().any(|s| s.id == "added01"));
    assert!(
        v.assumed
            .as_deref()
            .is_some_and(|a| a.starts_with("migrationRate:")),
        "{:?}",
        v.assumed
    );
}

/// `W`'s prediction and the fork's own panes say one thing: the prediction of a fork is the
/// estimate of the fork's diagnosis at the instant it was made (the same run of the same rules
/// from the same state).
#[test]
fn the_forks_prediction_is_its_diagnosis_estimate() {
    let mut tl = timeline("add-shard");
    tl.advance_to(30_000, &mut Vec::new()).expect("plays");
    let point = tl.fork_point().expect("forks");
    let mut fork = Fork::new(point, "--add-shards 1", 0).expect("forks");
    let c = 0;
    let ns = fork.origin.cluster.collections[c].ns.clone();
    let d = crate::source::diagnose::of_point(ForkPoint::of_simulator(&fork.origin));
    let eta = d.of(&ns).expect("sharded").eta.clone();
    assert_eq!(eta.basis, crate::diagnosis::Basis::Simulated, "{eta:?}");
    // The prediction, as the fork's thread makes it.
    let until = fork.base.now_ms() + crate::diagnosis::LOOKAHEAD_MS;
    let p = crate::sim::whatif::predict(fork.base.clone(), c, &fork.changes, until);
    assert_eq!(p.collection.balanced_at_ms, eta.at_ms);
    // The fork's panes carry its own diagnosis once its thread has it.
    let clock = ClockView::default();
    let req = ViewRequest::default();
    let _ = fork.view(&req, &clock);
    while fork.diagnoser.running() {
        std::thread::sleep(Duration::from_millis(10));
        fork.diagnoser.latest();
    }
    let v = fork.view(&req, &clock);
    assert!(
        v.fork.diagnosis.is_some(),
        "the fork's panes have its diagnosis"
    );
}

#[test]
fn a_cancelled_fork_adds_no_shard_and_is_dropped() {
    let tl = timeline("ascending");
    let watch = Watch::default();
    watch.cancel();
    let Err(e) = Fork::new_watched(
        tl.fork_point().expect("forks"),
        "--add-shards 500",
        0,
        &watch,
    ) else {
        panic!("a cancelled fork was made")
    };
    assert_eq!(e, "cancelled");
    assert_eq!(watch.added.load(Ordering::Relaxed), 0);
}

#[test]
fn a_fork_of_as_many_shards_as_the_bound_allows_is_made_on_its_own_thread() {
    let tl = timeline("ascending");
    let point = tl.fork_point().expect("forks");
    let room = crate::cluster::MAX_SHARDS - point.sim.cluster.shards.len();
    let too_many = format!("--add-shards {}", room + 1);
    let Err(e) = forking::Forking::start(tl.fork_point().expect("forks"), &too_many, 0) else {
        panic!("{too_many} started")
    };
    assert!(e.contains("at most 10000 shards"), "{e}");
    let mut making = forking::Forking::start(point, &format!("--add-shards {room}"), 0)
        .expect("within the bound");
    let said = making.progress();
    assert!(
        said == "preparing the fork" || said.ends_with(&format!("of {room} shards added")),
        "{said}"
    );
    let deadline = Instant::now() + Duration::from_secs(300);
    let fork = loop {
        if let Some(made) = making.take() {
            break made.expect("made");
        }
        assert!(Instant::now() < deadline, "not made: {}", making.progress());
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(fork.sim.cluster.shards.len(), crate::cluster::MAX_SHARDS);
    assert_eq!(making.progress(), format!("{room} of {room} shards added"));
}
