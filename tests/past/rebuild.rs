//! The rebuild against the simulator: a scenario runs, `serve`'s changelog and actionlog are
//! written from its events (`shardtop::serve::diary_entries`, what `serve` keeps and `watch`
//! reads), the past is rebuilt from the final chunks, and each shard's chunk count after every
//! committed migration is checked against the simulator's own state at that moment (its events
//! applied one by one to a copy, as a trace replay does).

use std::collections::BTreeMap;

use shardtop::cluster::{Cluster, EventKind, ServerVersion};
use shardtop::model::ShardIdx;
use shardtop::past::{Diary, Past, rebuild};
use shardtop::serve::{Diary as Log, diary_entries};
use shardtop::sim::{Simulator, scenario};

/// Virtual time each scenario runs, at most (its own `until` when shorter).
const RUN_MS: u64 = 20 * 60_000;

/// The Unix time of virtual time 0.
const STARTED_SECS: u64 = 1_790_000_000;

struct Run {
    past: Past,
    /// Per collection, each committed migration's per-shard chunk counts just after it.
    truth: BTreeMap<String, Vec<BTreeMap<String, u64>>>,
}

fn counts(c: &Cluster, ns: &str) -> BTreeMap<String, u64> {
    let coll = c.collection(ns).unwrap();
    (0..c.shards.len())
        .filter(|&s| !c.shards[s].removed)
        .map(|s| {
            let idx = ShardIdx(s as u32);
            (
                c.shard_id(idx).to_string(),
                coll.table.shard_totals(idx).chunks,
            )
        })
        .collect()
}

fn run(name: &str, version: &str) -> Run {
    let mut sc = scenario::built_in(name).unwrap().unwrap();
    sc.server_version = Some(version.to_string());
    let until = ((sc.until * 1000.0) as u64).min(RUN_MS);
    let mut sim = Simulator::from_scenario(&sc, sc.seed, None).unwrap();
    let (mut changelog, mut actionlog) = (Vec::new(), Vec::new());
    let mut keep = |sim: &Simulator, events: &[shardtop::cluster::Event]| {
        for e in events {
            for (log, d) in diary_entries(&sim.cluster, STARTED_SECS, e) {
                match log {
                    Log::Changelog => changelog.push(d),
                    Log::Actionlog => actionlog.push(d),
                }
            }
        }
    };
    let first = sim.take_events();
    keep(&sim, &first);
    let mut copy = sim.cluster.clone();
    let mut truth: BTreeMap<String, Vec<BTreeMap<String, u64>>> = BTreeMap::new();
    while sim.now_ms() < until {
        sim.step();
        let events = sim.take_events();
        keep(&sim, &events);
        for e in &events {
            copy.apply(e).unwrap();
            if let EventKind::MigrationCommitted { range, .. } = &e.kind
                && copy.collection(&range.ns).is_some()
            {
                truth
                    .entry(range.ns.clone())
                    .or_default()
                    .push(counts(&copy, &range.ns));
            }
        }
    }
    let diary = Diary::of(&changelog, &actionlog);
    Run {
        past: rebuild(&sim.cluster, &diary),
        truth,
    }
}

/// Checks one run; returns (migrations checked, of them exact).
fn check(name: &str, version: &str) -> (usize, usize) {
    let r = run(name, version);
    let exact_expected = version == "5.0";
    let (mut checked, mut exact) = (0, 0);
    for (ns, truth) in &r.truth {
        let Some(c) = r.past.collections.iter().find(|c| &c.ns == ns) else {
            continue; // dropped or resharded away since: not rebuilt, and said so
        };
        let commits: Vec<_> = c
            .states
            .iter()
            .filter(|s| s.what == "moveChunk.commit")
            .collect();
        // The rebuild reaches back to a boundary (sharding, resharding) or to the first entry:
        // the newest commits are those it rebuilt, the truth's last ones.
        assert!(
            commits.len() <= truth.len(),
            "{name} {version} {ns}: more commits rebuilt than happened"
        );
        if c.stopped.is_none()
            || c.stopped
                .as_ref()
                .is_some_and(|g| g.what.starts_with("shardCollection"))
        {
            assert_eq!(
                commits.len(),
                truth.len(),
                "{name} {version} {ns}: every commit is rebuilt ({:?})",
                c.stopped
            );
        }
        let skip = truth.len() - commits.len();
        for (k, (state, want)) in commits.iter().zip(&truth[skip..]).enumerate() {
            for (shard, n) in want {
                let got = state.counts.get(shard).copied().unwrap_or_default();
                assert!(
                    got.contains(*n),
                    "{name} {version} {ns} commit #{k} at {}: {shard} had {n} chunks, rebuilt {}",
                    state.time_ms,
                    got.text()
                );
                if exact_expected {
                    assert!(
                        got.is_exact(),
                        "{name} {version} {ns}: before 6.0 every count is exact"
                    );
                }
            }
            checked += 1;
            if want
                .keys()
                .all(|s| state.counts.get(s).copied().unwrap_or_default().is_exact())
            {
                exact += 1;
            }
        }
    }
    (checked, exact)
}

#[test]
fn rebuilt_counts_equal_the_simulators_at_every_migration() {
    let started = std::time::Instant::now();
    let mut total = (0, 0);
    for name in scenario::names() {
        for version in ["5.0", "7.0", "8.0"] {
            let t = std::time::Instant::now();
            let (checked, exact) = check(name, version);
            eprintln!(
                "{name} {version}: {checked} checked, {exact} exact, {:?}",
                t.elapsed()
            );
            total.0 += checked;
            total.1 += exact;
        }
    }
    eprintln!(
        "{} migrations checked, {} with every count exact, in {:?}",
        total.0,
        total.1,
        started.elapsed()
    );
    assert!(total.0 > 100, "the scenarios migrate: {} checked", total.0);
    assert!(total.1 > total.0 / 2, "most counts are exact: {total:?}");
}

#[test]
fn a_5_0_rebuild_is_exact_and_reaches_the_sharding() {
    let r = run("add-shard", "5.0");
    let c = r
        .past
        .collections
        .iter()
        .find(|c| !c.states.is_empty())
        .unwrap();
    assert!(!c.states.is_empty());
    assert!(
        c.states
            .iter()
            .all(|s| s.counts.values().all(|n| n.is_exact()))
    );
    let _ = ServerVersion::V5_0;
}
