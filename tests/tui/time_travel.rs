//! Time travel keeps the past, in the sources the TUI drives (in process): after a jump back or
//! forward the event log is the log up to the new time (the simulator rebuilds it from its
//! checkpoints, a replay from the trace), and `n`/`p` step migration by migration, stopping at
//! the first and the last with the footer's message — never stuck, never a clock run an hour on.

use std::time::Duration;

use shardtop::sim::{Simulator, scenario};
use shardtop::source::record::{record_sim, sim_header};
use shardtop::source::replay::ReplayTimeline;
use shardtop::source::sim::SimTimeline;
use shardtop::source::{Playback, SourceControl, SourceEvent, Timeline, run_timeline};
use shardtop::view::{LogKind, LogLine};
use tokio::sync::mpsc;

fn ascending() -> SimTimeline {
    let sc = scenario::built_in("ascending").unwrap().unwrap();
    SimTimeline::new(&sc, sc.seed, None).unwrap()
}

fn before(all: &[LogLine], t_ms: u64) -> Vec<LogLine> {
    let lines: Vec<LogLine> = all.iter().filter(|l| l.at_ms < t_ms).cloned().collect();
    lines[lines.len().saturating_sub(1000)..].to_vec()
}

#[test]
fn the_simulator_keeps_the_log_up_to_the_time_it_goes_back_to() {
    let mut tl = ascending();
    let mut all = tl.take_initial_log();
    tl.advance_to(120_000, &mut all).unwrap();
    assert!(all.iter().any(|l| l.kind == LogKind::Migration));
    for t in [60_000, 5_000, 90_000, 120_000] {
        let mut log = Vec::new();
        tl.seek(t, &mut log).unwrap();
        assert_eq!(tl.now_ms(), t);
        assert!(!log.is_empty(), "the log at {t} ms is not wiped");
        assert_eq!(log, before(&all, t), "the log at {t} ms");
    }
}

#[test]
fn n_and_p_step_through_the_simulators_migrations_and_stop_at_the_first() {
    let mut tl = ascending();
    let mut log = Vec::new();
    assert!(
        !tl.migration(false, &mut log).unwrap(),
        "none before the start"
    );
    assert_eq!(tl.now_ms(), 0);
    assert_eq!(tl.no_migration(false), "no earlier migration");
    assert!(tl.migration(true, &mut log).unwrap());
    let first = tl.now_ms();
    assert!(
        log.iter().any(|l| l.kind == LogKind::Migration),
        "the log shows the migration: {log:?}"
    );
    assert!(tl.migration(true, &mut log).unwrap());
    let second = tl.now_ms();
    assert!(second > first);
    assert!(tl.migration(true, &mut log).unwrap());
    // Back one at a time, then no further than the first.
    assert!(tl.migration(false, &mut log).unwrap());
    assert_eq!(tl.now_ms(), second);
    assert!(tl.migration(false, &mut log).unwrap());
    assert_eq!(tl.now_ms(), first, "p is not stuck on the same migration");
    assert!(!tl.migration(false, &mut log).unwrap());
    assert_eq!(tl.now_ms(), first);
    // Forward again goes to the known next one.
    assert!(tl.migration(true, &mut log).unwrap());
    assert_eq!(tl.now_ms(), second);
}

#[test]
fn n_with_no_later_migration_leaves_the_clock_where_it_was() {
    let mut sc = scenario::built_in("ascending").unwrap().unwrap();
    sc.balancer = false;
    sc.until = 30.0;
    let mut tl = SimTimeline::new(&sc, sc.seed, None).unwrap();
    let mut all = tl.take_initial_log();
    tl.advance_to(10_000, &mut all).unwrap();
    let mut log = Vec::new();
    assert!(!tl.migration(true, &mut log).unwrap());
    assert_eq!(tl.now_ms(), 10_000, "the clock did not run on");
    assert!(log.is_empty(), "nothing to replace the log with");
    assert_eq!(
        tl.no_migration(true),
        "no later migration up to 0m30s (the scenario's end, or an hour past it)"
    );
}

fn recorded(dir: &tempfile::TempDir) -> std::path::PathBuf {
    let path = dir.path().join("ascending.ndjson.zst");
    let sc = scenario::built_in("ascending").unwrap().unwrap();
    let mut sim = Simulator::from_scenario(&sc, sc.seed, None).unwrap();
    let header = sim_header(&sim, "sim:ascending", "ascending", sc.seed);
    record_sim(&mut sim, 120_000, &path, &header, |_, _| {}).unwrap();
    path
}

#[test]
fn a_replay_keeps_the_log_up_to_any_time_it_jumps_to() {
    let dir = tempfile::tempdir().unwrap();
    let path = recorded(&dir);
    let mut tl = ReplayTimeline::open(&path).unwrap();
    let mut all = Vec::new();
    tl.advance_to(120_000, &mut all).unwrap();
    assert!(all.iter().any(|l| l.kind == LogKind::Migration));
    for t in [60_000, 5_000, 119_000, 30_000] {
        let mut log = Vec::new();
        tl.seek(t, &mut log).unwrap();
        assert_eq!(log, before(&all, t), "the log at {t} ms");
    }
}

#[test]
fn n_and_p_step_through_a_replays_migrations_and_stop_at_both_ends() {
    let dir = tempfile::tempdir().unwrap();
    let path = recorded(&dir);
    let mut tl = ReplayTimeline::open(&path).unwrap();
    let mut log = Vec::new();
    assert!(!tl.migration(false, &mut log).unwrap());
    let mut times = vec![tl.now_ms()];
    while tl.migration(true, &mut log).unwrap() {
        times.push(tl.now_ms());
        let last = log.last().unwrap();
        assert_eq!(last.kind, LogKind::Migration, "{last:?}");
        assert!(times.len() < 10_000);
    }
    assert!(times.len() > 2, "{times:?}");
    assert!(times.windows(2).all(|w| w[0] <= w[1]), "{times:?}");
    let end = tl.now_ms();
    assert!(!tl.migration(true, &mut log).unwrap(), "no later migration");
    assert_eq!(tl.now_ms(), end);
    let mut back = 0;
    while tl.migration(false, &mut log).unwrap() {
        back += 1;
        assert!(back < 10_000);
    }
    assert_eq!(back, times.len() - 2, "p stops at the first");
    assert_eq!(tl.now_ms(), times[1]);
}

/// The runner turns "none" into the footer's message and leaves the log alone.
#[tokio::test(start_paused = true)]
async fn the_footer_says_when_there_is_no_earlier_migration() {
    let (to_ui, mut from_source) = mpsc::channel(64);
    let (to_source, controls) = mpsc::channel(16);
    let playback = Playback {
        speed: 4.0,
        paused: true,
        start_ms: None,
    };
    let task = tokio::spawn(run_timeline(
        ascending(),
        playback,
        Vec::new(),
        to_ui,
        controls,
    ));
    to_source
        .send(SourceControl::Migration { forward: false })
        .await
        .unwrap();
    let mut notice = None;
    while let Ok(Some(e)) = tokio::time::timeout(Duration::from_secs(5), from_source.recv()).await {
        match e {
            SourceEvent::Notice(n) => notice = Some(n),
            SourceEvent::Log { reset: true, .. } if notice.is_some() => {
                panic!("the log was reset after the notice")
            }
            _ => {}
        }
    }
    assert_eq!(notice.as_deref(), Some("no earlier migration"));
    drop(to_source);
    task.await.unwrap().unwrap();
}
