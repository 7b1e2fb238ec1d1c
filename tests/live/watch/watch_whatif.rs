//! The TUI's what-if fork of `watch` is calibrated from what the session has seen, through the
//! same steps `watch`'s source takes (`source::whatif::calibrate`): the migrations its polls read
//! from the changelog (the real-document mongos over the real 8.0.32 file with four migrations
//! made from its entries: the same numbers `shardtop whatif` of that mongos gives), and the
//! growth between an earlier poll and the latest (`serve` of `ascending`, polled paused one
//! simulated minute apart: the rate the simulator inserted at).

use std::time::Duration;

use shardtop::cluster::Cluster;
use shardtop::live::client::LiveClient;
use shardtop::live::poller::{Poller, now_ms};
use shardtop::sim::Simulator;
use shardtop::sim::balancer::explain::Unread;
use shardtop::sim::whatif::assumptions::{ForkedFrom, prepare_calibrated};
use shardtop::source::whatif::calibrate::{LiveGrowth, of_poll};

use super::real_mongos;

async fn polled(uri: &str) -> Poller {
    let client = LiveClient::connect(uri, Duration::from_secs(10))
        .await
        .unwrap();
    let mut poller = Poller::new(client);
    poller.poll(now_ms()).await.unwrap();
    poller
}

/// The fork's `(how, note)` of `what`.
fn said(said: &[(String, &'static str, String)], what: &str) -> (String, String) {
    let a = said.iter().find(|a| a.0 == what).unwrap();
    (a.1.to_string(), a.2.clone())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_watch_fork_measures_the_migrations_its_polls_read() {
    let mongos = real_mongos::start(super::real_whatif::four_migrations()).await;
    let poller = polled(&mongos.uri).await;
    let mut growth = LiveGrowth::default();
    growth.observe(poller.state());
    let state = poller.state().clone();
    let c = state.collections.iter().position(|c| c.ns == "shop.orders");
    let cal = of_poll(
        poller.refused(),
        poller.logs.migration_entries(),
        growth.earlier(state.now_ms),
    );
    let mut sim = Simulator::over(state);
    let said_ = prepare_calibrated(
        ForkedFrom::Live,
        &mut sim,
        c.unwrap(),
        Unread::default(),
        &cal,
    );
    let (how, note) = said(&said_, "migrationRate");
    assert_eq!(how, "measured", "{note}");
    assert!(
        note.starts_with("4 migrations in the changelog"),
        "the numbers `shardtop whatif` gives: {note}"
    );
    assert!(
        note.contains("median 0.6 s, 5.4 MiB/s + 0.0 s each"),
        "{note}"
    );
    let (how, note) = said(&said_, "writes");
    assert_eq!(how, "assumed");
    assert!(note.contains("one poll so far"), "{note}");
}

/// `sim` served paused and polled once; the poll's state stamped with the simulator's clock.
async fn poll_paused(sim: &Simulator) -> (Poller, Cluster) {
    let (server, uri) = super::helpers::serve_paused(sim.clone()).await;
    let poller = polled(&uri).await;
    let mut state = poller.state().clone();
    state.now_ms = sim.cluster.now_ms;
    server.shutdown().await;
    (poller, state)
}

fn docs(sim: &Simulator) -> u64 {
    (sim.cluster.collections[0].table.iter())
        .map(|ch| ch.info.stats.docs)
        .sum()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_watch_fork_measures_the_writes_from_the_growth_between_its_polls() {
    let sc = shardtop::sim::scenario::built_in("ascending")
        .unwrap()
        .unwrap();
    let mut s = Simulator::from_scenario(&sc, sc.seed, None).unwrap();
    s.run_until(60_000);
    let before = docs(&s);
    let mut growth = LiveGrowth::default();
    let (_, state) = poll_paused(&s).await;
    growth.observe(&state);
    s.run_until(120_000);
    let grown = docs(&s) - before;
    let (poller, state) = poll_paused(&s).await;
    growth.observe(&state);
    let cal = of_poll(
        poller.refused(),
        poller.logs.migration_entries(),
        growth.earlier(state.now_ms),
    );
    let mut fork = Simulator::over(state);
    let said_ = prepare_calibrated(ForkedFrom::Live, &mut fork, 0, Unread::default(), &cal);
    let (how, note) = said(&said_, "writes");
    assert_eq!(how, "measured", "{note}");
    let rate = grown as f64 / 60.0;
    assert!(
        note.starts_with(&format!(
            "growth of {rate:+.1} docs/s over the polls of the last 1.0 min, inserted as each \
             shard grew, spread evenly over its chunks"
        )),
        "{grown} docs in 60 s: {note}"
    );
    // The fork goes on inserting at that rate.
    let at = docs(&fork);
    fork.run_until(fork.now_ms() + 10_000);
    let inserted = docs(&fork) - at;
    assert!(
        (inserted as f64 - rate * 10.0).abs() <= rate * 0.05 + 1.0,
        "{inserted} in 10 s at {rate:.1}/s"
    );
}
