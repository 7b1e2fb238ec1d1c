//! The conformance tracker: quiet on the simulator (which follows the rules), a finding when the
//! rules pick migrations that never start or chunks move that the rules would not move, unknown
//! when the balancer cannot be compared.
#![allow(clippy::unwrap_used)] // tests: a failed unwrap is a failed test

use super::*;
use crate::sim::scenario;

fn sim(name: &str, version: &str) -> Simulator {
    let sc = scenario::built_in(name).unwrap().unwrap();
    Simulator::from_scenario(&sc, sc.seed, Some(version.parse().unwrap())).unwrap()
}

/// `add-shard` just after its fourth shard came: the rules move chunks to it.
fn imbalanced() -> Cluster {
    let mut s = sim("add-shard", "7.0");
    s.run_until(31_000);
    let mut state = s.cluster.clone();
    state.balancer.round = None;
    state.balancer.in_flight.clear();
    let over = Simulator::over(state.clone());
    assert!(over.next_move(0).is_ok(), "{:?}", over.next_move(0));
    state
}

/// `state` polled every 10 s for `secs`, nothing changing (the migrations withheld).
fn still(t: &mut Tracker, state: &Cluster, secs: u64) {
    let t0 = state.now_ms;
    for k in 0..=secs / 10 {
        let mut s = state.clone();
        s.now_ms = t0 + k * 10_000;
        t.observe(&s, Unread::default());
    }
}

#[test]
fn migrations_the_rules_pick_that_never_start_are_said_after_ten_minutes() {
    let state = imbalanced();
    let mut t = Tracker::default();
    still(&mut t, &state, 9 * 60);
    assert_eq!(t.conformance().status, Status::Conforms, "not yet");
    let mut t = Tracker::default();
    still(&mut t, &state, 11 * 60);
    let c = t.conformance();
    assert_eq!(c.status, Status::Diverges, "{c:?}");
    let f = &c.findings[0];
    assert_eq!(
        (f.kind, f.rule.as_str(), f.ns.as_str()),
        (Kind::Withheld, "chunksImbalance", "app.items")
    );
    assert!(f.for_secs >= 600, "{f:?}");
    assert!(f.text().contains("saw none"), "{}", f.text());
    // No zones: no issue is named.
    assert_eq!(f.issue, None);
}

#[test]
fn nothing_is_compared_while_the_balancer_is_off_or_the_reads_were_refused() {
    let mut state = imbalanced();
    state.settings.balancer_enabled = false;
    let mut t = Tracker::default();
    still(&mut t, &state, 20 * 60);
    let c = t.conformance();
    assert_eq!(c.status, Status::Unknown);
    assert!(c.reason.unwrap().contains("does not migrate"));
    let state = imbalanced();
    let mut t = Tracker::default();
    let t0 = state.now_ms;
    for k in 0..=120 {
        let mut s = state.clone();
        s.now_ms = t0 + k * 10_000;
        let unread = Unread {
            balancer: k % 2 == 0, // every other poll refused: the count starts again
            ..Unread::default()
        };
        t.observe(&s, unread);
    }
    assert_ne!(t.conformance().status, Status::Diverges);
}

#[test]
fn one_poll_is_unknown() {
    let mut t = Tracker::default();
    t.observe(&imbalanced(), Unread::default());
    let c = t.conformance();
    assert_eq!(c.status, Status::Unknown);
    assert!(c.reason.unwrap().starts_with("one poll"));
    // After a poll that could not be compared, the next one starts again.
    let mut off = imbalanced();
    off.settings.balancer_enabled = false;
    t.observe(&off, Unread::default());
    t.observe(&imbalanced(), Unread::default());
    assert!(t.conformance().reason.unwrap().starts_with("one poll"));
}

#[test]
fn a_migration_in_flight_resets_the_count() {
    let state = imbalanced();
    let mut t = Tracker::default();
    still(&mut t, &state, 8 * 60);
    // The simulator's own next round: its migrations in flight at the next poll.
    let mut s = Simulator::over(state.clone());
    s.run_until(state.now_ms + 8 * 60_000 + 2_000);
    assert!(!s.cluster.balancer.in_flight.is_empty() || s.cluster.balancer.completed > 0);
    s.cluster.balancer.round = None;
    t.observe(&s.cluster, Unread::default());
    let mut later = s.cluster.clone();
    later.balancer.in_flight.clear();
    still(&mut t, &later, 5 * 60);
    assert_eq!(t.conformance().status, Status::Conforms);
}

#[test]
fn the_simulator_running_its_own_rules_raises_nothing() {
    for (name, version) in [
        ("add-shard", "7.0"),
        ("add-shard", "5.0"),
        ("ascending", "8.0"),
        ("drain", "8.0"),
        ("zones-ip", "6.0"),
    ] {
        let mut s = sim(name, version);
        let mut t = Tracker::default();
        let mut compared = 0;
        for k in 1..=180 {
            s.run_until(k * 10_000);
            t.observe(&s.cluster, Unread::default());
            compared += u32::from(t.conformance().status == Status::Conforms);
            assert_ne!(
                t.conformance().status,
                Status::Diverges,
                "{name} {version} at {} s: {:?}",
                k * 10,
                t.conformance()
            );
        }
        assert!(compared > 0, "{name} {version}: some polls were compared");
    }
}

/// A state where the rules pick nothing, and a chunk (its index, its shard, another shard) that
/// can go to the other shard and back with the rules picking nothing either way.
fn ping_pong() -> Option<(Cluster, usize, ShardIdx, ShardIdx)> {
    let quiet = |st: &Cluster| Simulator::over(st.clone()).next_move(0).is_err();
    for (name, version) in [
        ("add-shard", "5.0"),
        ("ascending", "5.0"),
        ("add-shard", "7.0"),
        ("ascending", "8.0"),
    ] {
        let mut s = sim(name, version);
        s.run_until(900_000);
        let mut state = s.cluster.clone();
        state.balancer.round = None;
        state.balancer.in_flight.clear();
        if !quiet(&state) {
            continue;
        }
        let table = &state.collections[0].table;
        for i in 0..table.len() {
            let a = table.chunk(i).info.shard;
            for b in 0..state.shards.len() {
                let b = ShardIdx(b as u32);
                let mut moved = state.clone();
                if b == a || moved.collections[0].table.move_chunk(i, b, 0).is_err() {
                    continue;
                }
                if quiet(&moved) {
                    return Some((state, i, a, b));
                }
            }
        }
    }
    None
}

#[test]
fn chunks_moved_that_the_rules_would_not_move_are_said() {
    let (mut state, i, a, b) = ping_pong().expect("a chunk the rules leave where it is moved");
    let mut t = Tracker::default();
    t.observe(&state, Unread::default());
    for k in 1..=3u64 {
        state.now_ms += 10_000;
        let to = if k % 2 == 1 { b } else { a };
        let table = &mut state.collections[0].table;
        table.move_chunk(i, to, state.now_ms).unwrap();
        t.observe(&state, Unread::default());
        let c = t.conformance();
        if k < 3 {
            assert_eq!(c.status, Status::Conforms, "{k}: {c:?}");
        } else {
            assert_eq!(c.status, Status::Diverges, "{c:?}");
            assert_eq!(c.findings[0].kind, Kind::Unexpected);
            assert_eq!(c.findings[0].moves, 3);
            assert!(c.findings[0].text().contains("the rules would not"));
        }
    }
}

/// What the tracker keeps of a poll (runs of chunks on one shard) names the owner a router would,
/// at every chunk's bounds, before and after the balancer moved chunks.
#[test]
fn the_kept_owners_are_the_tables() {
    let mut s = sim("add-shard", "7.0");
    s.run_until(120_000);
    for state in [imbalanced(), s.cluster.clone()] {
        let seen = Seen::of(&state);
        for c in &state.collections {
            let kept = &seen.colls[&c.ns];
            assert!(kept.runs.len() <= c.table.len());
            for ch in c.table.iter() {
                for key in [ch.min, ch.max] {
                    let want = c.table.chunk(c.table.route(key)).info.shard;
                    assert_eq!(kept.owner(key), want, "{} at {key:?}", c.ns);
                }
            }
        }
    }
}
