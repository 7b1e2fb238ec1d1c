//! What one poll of a quiet cluster of 3,000 collections costs in commands, with
//! `balancerCollectionStatus` for every collection at every poll (as before issue 31) and paced
//! (at most 16 a poll: changed collections first, the rest in turn). Prints the numbers.

use std::collections::HashMap;
use std::time::Duration;

use shardtop::live::client::LiveClient;
use shardtop::live::poller::Poller;

use super::quiet_cluster::{COLLECTIONS, quiet_cluster};
use super::real_mongos;

/// Commands the poller sent in each of two polls (the first, then a quiet one), by name; the
/// driver's own monitoring (`hello`/`isMaster` heartbeats) left out.
async fn polls(budget: usize) -> Vec<HashMap<String, usize>> {
    let mongos = real_mongos::start(quiet_cluster()).await;
    let client = LiveClient::connect(&mongos.uri, Duration::from_secs(10))
        .await
        .unwrap();
    let mut poller = Poller::new(client);
    poller.set_compliance_budget(budget);
    let mut out = Vec::new();
    for k in 0..2 {
        mongos.received.lock().unwrap().clear();
        let polled = poller.poll(k * 2_000).await.unwrap();
        assert_eq!(polled.state.collections.len(), COLLECTIONS);
        let mut counts: HashMap<String, usize> = HashMap::new();
        let heartbeat = |c: &str| c == "hello" || c == "isMaster";
        for c in mongos
            .received
            .lock()
            .unwrap()
            .iter()
            .filter(|c| !heartbeat(c))
        {
            *counts.entry(c.clone()).or_default() += 1;
        }
        let total: usize = counts.values().sum();
        eprintln!(
            "budget {budget}: poll {k}: {total} commands ({} balancerCollectionStatus, {} find)",
            counts.get("balancerCollectionStatus").copied().unwrap_or(0),
            counts.get("find").copied().unwrap_or(0)
        );
        out.push(counts);
    }
    assert!(mongos.unknown.lock().unwrap().is_empty());
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_quiet_poll_of_3000_collections_asks_balancer_collection_status_at_most_16_times() {
    let status = |c: &HashMap<String, usize>| c.get("balancerCollectionStatus").copied();
    let every = polls(usize::MAX).await;
    let paced = polls(shardtop::live::compliance::ASK_PER_POLL).await;
    for (e, p) in every.iter().zip(&paced) {
        assert_eq!(status(e), Some(COLLECTIONS));
        assert_eq!(status(p), Some(16));
        let total = |c: &HashMap<String, usize>| c.values().sum::<usize>();
        assert_eq!(total(e) - total(p), COLLECTIONS - 16, "{e:?} {p:?}");
    }
}
