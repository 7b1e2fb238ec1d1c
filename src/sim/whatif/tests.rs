//! A what-if of a `sim:` fork with no change is exact: it predicts what the scenario itself then
//! does (checked on every built-in scenario at several instants against a separate run from 0).

use super::*;
use crate::sim::scenario::{built_in, names};

/// What the scenario itself does after `t_ms`, up to `end_ms`, for collection `c`: a run of its
/// own from 0, its events counted after `t_ms`.
fn reference(
    name: &str,
    c: usize,
    t_ms: u64,
    end_ms: u64,
) -> (Option<u64>, Option<u64>, u64, u64, u64) {
    let sc = built_in(name).expect("built in").expect("parses");
    let mut sim = Simulator::from_scenario(&sc, sc.seed, None).expect("starts");
    sim.run_until(t_ms);
    sim.take_events();
    let ns = sim.cluster.collections[c].ns.clone();
    let (mut balanced, mut last, mut moved, mut failed, mut bytes) = (None, None, 0, 0, 0);
    loop {
        for e in sim.take_events() {
            match e.kind {
                EventKind::MigrationCommitted {
                    range, moved: m, ..
                } if range.ns == ns => {
                    (moved, bytes, last) = (moved + 1, bytes + m.bytes, Some(e.at_ms));
                }
                EventKind::MigrationFailed { range, .. } if range.ns == ns => {
                    (failed, last) = (failed + 1, Some(e.at_ms));
                }
                _ => {}
            }
        }
        if balanced.is_none() && super::balanced(&sim, c) {
            balanced = Some(sim.now_ms());
        }
        if sim.now_ms() >= end_ms {
            break;
        }
        sim.step();
    }
    (balanced, last, moved, failed, bytes)
}

#[test]
fn a_fork_of_the_simulator_with_no_change_predicts_what_it_then_does() {
    for name in names() {
        let sc = built_in(name).expect("built in").expect("parses");
        let end = (sc.until * 1000.0).round() as u64;
        for t in [0, end / 3 / 100 * 100, 2 * end / 3 / 100 * 100] {
            let mut fork = Simulator::from_scenario(&sc, sc.seed, None).expect("starts");
            fork.run_until(t);
            for c in 0..fork.cluster.collections.len() {
                if fork.cluster.collections[c].placement != crate::cluster::Placement::Sharded {
                    continue;
                }
                let p = predict(fork.clone(), c, &Changes::default(), end);
                let got = &p.collection;
                let want = reference(name, c, t, p.ended_ms);
                assert_eq!(
                    (
                        got.balanced_at_ms,
                        got.last_migration_at_ms,
                        got.migrations,
                        got.failed,
                        got.bytes_moved
                    ),
                    want,
                    "{name} at {t} ms, {}",
                    got.ns
                );
                assert_eq!(p.forked_at_ms, t);
                assert!(p.ended_ms <= end, "{name}: ran past --until");
            }
        }
    }
}

fn add_shard_at_60s() -> Simulator {
    let sc = built_in("add-shard").expect("built in").expect("parses");
    let mut sim = Simulator::from_scenario(&sc, sc.seed, None).expect("starts");
    sim.run_until(60_000);
    sim
}

#[test]
fn added_shards_receive_chunks_until_the_policy_picks_nothing() {
    let sim = add_shard_at_60s();
    let c = 0;
    let before = sim.cluster.shards.len();
    let changes = Changes {
        add_shards: 2,
        ..Changes::default()
    };
    let until = sim.now_ms() + 24 * 3600 * 1000;
    let p = predict(sim.clone(), c, &changes, until);
    assert_eq!(p.added, ["added01", "added02"]);
    assert_eq!(p.collection.shards.len(), before + 2);
    let at = p.collection.balanced_at_ms.expect("balanced within a day");
    assert!(p.collection.migrations > 0);
    assert!(p.collection.last_migration_at_ms.is_some_and(|l| l <= at));
    for s in p.collection.shards.iter().filter(|s| s.added) {
        assert!(s.chunks > 0, "{} received nothing", s.shard);
    }
    // With the balancer stopped the same change is never balanced, and says why.
    let stopped = Changes {
        balancer: Some(false),
        ..changes
    };
    let p = predict(sim, c, &stopped, until.min(3_600_000 + 60_000));
    assert_eq!(p.collection.balanced_at_ms, None);
    let why = p.collection.not_balanced_why.expect("why");
    assert!(why.contains("balancer is stopped"), "{why}");
    assert!(
        p.collection
            .blockers
            .iter()
            .any(|b| b.what == "balancerStopped")
    );
}

#[test]
fn a_drain_ends_when_the_shard_owns_no_chunk_and_a_refused_one_is_said() {
    let sim = add_shard_at_60s();
    let first = sim.cluster.shard_id(crate::model::ShardIdx(0)).to_string();
    let changes = Changes {
        drain: vec![first.clone(), "nowhere".into()],
        ..Changes::default()
    };
    let p = predict(sim, 0, &changes, 24 * 3600 * 1000);
    let d = &p.drains[0];
    assert_eq!(d.shard, first);
    assert!(d.drained_at_ms.is_some(), "{p:?}");
    assert!(
        p.collection
            .shards
            .iter()
            .any(|s| s.shard == first && s.chunks == 0)
    );
    assert!(
        p.refused.iter().any(|r| r.contains("nowhere")),
        "{:?}",
        p.refused
    );
}

/// `n` migrations from `donor` of `overhead` ms + bytes at `rate`, 64 KiB doubling.
fn timed_from(donor: &str, n: u64, overhead: u64, rate: u64) -> Vec<calibration::Sample> {
    (0..n)
        .map(|i| {
            let bytes = (64 << 10) << i;
            calibration::Sample {
                donor: donor.into(),
                bytes,
                ms: overhead + bytes * 1000 / rate,
            }
        })
        .collect()
}

/// Migrations of 800 ms + bytes at 4 MiB/s, 64 KiB to 128 MiB, all from shard0000.
fn timed_migrations() -> calibration::Migrations {
    calibration::Migrations {
        commits: 12,
        timed: 13,
        samples: timed_from("shard0000", 12, 800, 4 << 20),
    }
}

#[test]
fn a_fork_takes_each_donors_own_rate_where_it_has_enough_migrations() {
    use assumptions::{ForkedFrom, prepare_calibrated};
    use calibration::{Calibration, Migrations};
    let mut samples = timed_from("shard0000", 12, 800, 4 << 20);
    samples.extend(timed_from("shard0001", 10, 300, 40 << 20));
    samples.extend(timed_from("shard0002", 2, 300, 40 << 20));
    let all = calibration::fits(&samples, 32 << 20).expect("enough").all;
    let cal = Calibration {
        migrations: Ok(Migrations {
            commits: 24,
            timed: 24,
            samples,
        }),
        ..Calibration::default()
    };
    let mut sim = add_shard_at_60s();
    let unread = crate::sim::balancer::explain::Unread::default();
    let said = prepare_calibrated(ForkedFrom::Live, &mut sim, 0, unread, &cal);
    let set = &sim.cluster.settings;
    assert_eq!(
        (set.migration_overhead_ms, set.migration_bytes_per_sec),
        (all.overhead_ms, all.bytes_per_sec)
    );
    let own: Vec<(&str, u64, u64)> = (sim.migration_cost_by_donor.iter())
        .map(|(id, c)| (id.as_str(), c.overhead_ms, c.bytes_per_sec))
        .collect();
    assert_eq!(own.len(), 2, "shard0002 has too few: {own:?}");
    assert_eq!((own[0].0, own[0].1), ("shard0000", 800));
    assert!(own[0].2.abs_diff(4 << 20) < 100, "{own:?}");
    assert_eq!((own[1].0, own[1].1), ("shard0001", 300));
    assert!(own[1].2.abs_diff(40 << 20) < (40 << 20) / 100, "{own:?}");
    let note = &said
        .iter()
        .find(|a| a.0 == "migrationRate")
        .expect("said")
        .2;
    let tail = format!(
        "; cluster-wide, and per donor: shard0000 12 migrations, 4.0 MiB/s + 0.8 s each; \
         shard0001 10 migrations, {}/s + 0.3 s each; shard0002 2 (too few: cluster-wide)",
        crate::units::human_bytes(own[1].2)
    );
    assert!(
        note.starts_with("24 migrations in the changelog ("),
        "{note}"
    );
    assert!(note.ends_with(&tail), "{note}");
}

#[test]
fn a_fork_of_a_read_state_takes_its_migration_rate_from_the_changelog() {
    use assumptions::{ForkedFrom, prepare, prepare_calibrated};
    use calibration::Calibration;
    let rate_of = |a: &[assumptions::Assumption]| {
        let r = a.iter().find(|a| a.0 == "migrationRate").expect("said");
        (r.1, r.2.clone())
    };
    let unread = crate::sim::balancer::explain::Unread::default();
    let changes = Changes {
        add_shards: 1,
        ..Changes::default()
    };
    // Measured: the fit is the fork's cost model, and its numbers are said.
    let mut measured = add_shard_at_60s();
    let cal = Calibration {
        migrations: Ok(timed_migrations()),
        ..Calibration::default()
    };
    let said = prepare_calibrated(ForkedFrom::Live, &mut measured, 0, unread, &cal);
    let set = &measured.cluster.settings;
    assert_eq!(set.migration_overhead_ms, 800);
    assert!(
        set.migration_bytes_per_sec.abs_diff(4 << 20) < 100,
        "{set:?}"
    );
    let (how, note) = rate_of(&said);
    assert_eq!(how, "measured");
    assert_eq!(
        note,
        "12 migrations in the changelog (a moveChunk.commit's clonedBytes paired with its \
         donor's moveChunk.from step times), median 1.8 s, 4.0 MiB/s + 0.8 s each; \
         cluster-wide (every one from shard0000)"
    );
    assert!(measured.migration_cost_by_donor.is_empty(), "one donor");
    // Slower migrations than the simulator's: the same change balances later.
    let mut assumed = add_shard_at_60s();
    let said = prepare(ForkedFrom::Live, &mut assumed, 0, unread);
    assert_eq!(rate_of(&said).0, "assumed");
    let until = measured.now_ms() + 24 * 3600 * 1000;
    let slow = predict(measured, 0, &changes, until).collection;
    let fast = predict(assumed, 0, &changes, until).collection;
    assert!(slow.migrations > 0);
    assert!(
        slow.balanced_at_ms.expect("balanced") > fast.balanced_at_ms.expect("balanced"),
        "{slow:?} / {fast:?}"
    );
    // Too few: the model is kept, and how few is said.
    let mut few = add_shard_at_60s();
    let before = few.cluster.settings.migration_bytes_per_sec;
    let mut m = timed_migrations();
    m.samples.truncate(2);
    let cal = Calibration {
        migrations: Ok(m),
        ..Calibration::default()
    };
    let said = prepare_calibrated(ForkedFrom::Capture, &mut few, 0, unread, &cal);
    assert_eq!(few.cluster.settings.migration_bytes_per_sec, before);
    let (how, note) = rate_of(&said);
    assert_eq!(how, "assumed");
    assert!(
        note.ends_with(
            "the changelog read holds 2 timed migrations (12 moveChunk.commit, 13 \
             moveChunk.from with step times), fewer than 3 to measure from"
        ),
        "{note}"
    );
    // The simulator's own fork ignores a changelog: its cost model is its own.
    let mut own = add_shard_at_60s();
    let cal = Calibration {
        migrations: Ok(timed_migrations()),
        ..Calibration::default()
    };
    let said = prepare_calibrated(ForkedFrom::Simulator, &mut own, 0, unread, &cal);
    assert_eq!(own.cluster.settings.migration_bytes_per_sec, before);
    assert!(rate_of(&said).1.starts_with("the simulator's own"));
}

#[test]
fn a_cancelled_prediction_ends_at_once_with_what_it_saw() {
    let sc = built_in("ascending").expect("built in").expect("parses");
    let mut sim = Simulator::from_scenario(&sc, sc.seed, None).expect("starts");
    sim.run_until(60_000);
    let changes = Changes {
        add_shards: 2,
        ..Changes::default()
    };
    let until = 60_000 + DEFAULT_SPAN_MS;
    let cancelled = AtomicBool::new(true);
    let p = predict_unless(sim.clone(), 0, &changes, until, &cancelled);
    assert_eq!(p.ended_ms, 60_000, "no tick run once cancelled");
    assert_eq!(p.added, vec!["added01".to_string(), "added02".to_string()]);
    let full = predict(sim, 0, &changes, until);
    assert!(full.ended_ms > 60_000);
}

#[test]
fn shards_are_added_up_to_the_one_bound_and_refused_past_it() {
    let sc = built_in("ascending").expect("built in").expect("parses");
    let mut sim = Simulator::from_scenario(&sc, sc.seed, None).expect("starts");
    let room = crate::cluster::MAX_SHARDS - sim.cluster.shards.len();
    let changes = Changes {
        add_shards: (room + 2) as u32,
        ..Changes::default()
    };
    let applied = apply_changes(&mut sim, 0, &changes);
    assert_eq!(applied.added.len(), room);
    assert_eq!(sim.cluster.shards.len(), crate::cluster::MAX_SHARDS);
    let said = applied.refused.join("; ");
    assert!(said.contains("at most 10000 shards"), "{said}");
    let e = sim.add_shard("one-more", 1.0).expect_err("past the bound");
    assert_eq!(e.code_name, "IllegalOperation");
}
