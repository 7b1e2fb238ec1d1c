//! One poll from a URI to an owned cluster state (`watch --once`), and the wall clock polls are
//! stamped with.
//!
//! Owns: connecting and polling once. May not touch: the poller's reads (`poller`).

use super::client::{LiveClient, LiveError};
use super::poller::Poller;
use crate::cluster::Cluster;
use crate::view::LogLine;

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// The cluster as one poll saw it, owned.
pub struct OnePoll {
    pub state: Cluster,
    pub log: Vec<LogLine>,
    /// The reads refused to this user, with what each needs.
    pub refused: Vec<crate::view::RefusedRead>,
}

/// Connects and polls once.
pub async fn poll_once(uri: &str, timeout: std::time::Duration) -> Result<OnePoll, LiveError> {
    let client = LiveClient::connect(uri, timeout).await?;
    let mut poller = Poller::new(client);
    let log = poller
        .poll_within(now_ms(), timeout.max(std::time::Duration::from_secs(1)) * 3)
        .await?
        .log;
    Ok(OnePoll {
        refused: poller.refused().to_vec(),
        state: poller.into_state(),
        log,
    })
}
