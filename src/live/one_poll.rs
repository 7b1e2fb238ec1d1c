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

/// How long the first poll of `watch`, `watch --once` and `record` may take (it reads every
/// chunk of every collection); later polls may take five intervals, at least 10 s.
pub const FIRST_POLL: std::time::Duration = std::time::Duration::from_secs(30);

/// The deadline of a poll after the first, for polls every `interval`.
pub fn later_poll(interval: std::time::Duration) -> std::time::Duration {
    (interval * 5).max(std::time::Duration::from_secs(10))
}

/// "find config.chunks, 12 s": the read the client waits for and for how long, if any.
pub fn waiting_text(client: &LiveClient) -> Option<String> {
    let (read, waited) = client.waiting_for()?;
    Some(format!("{read}, {} s", waited.as_secs()))
}

impl Poller {
    /// One poll that gives up after `limit` (a server that stops answering), naming the read it
    /// was waiting for.
    pub async fn poll_within(
        &mut self,
        now_ms: u64,
        limit: std::time::Duration,
    ) -> Result<super::poller::Polled<'_>, LiveError> {
        let client = self.client.clone();
        within(&client, limit, self.poll(now_ms)).await
    }
}

/// `work` (reads through `client`), given up after `limit` with an error naming the read it was
/// waiting for.
pub async fn within<T>(
    client: &LiveClient,
    limit: std::time::Duration,
    work: impl std::future::Future<Output = Result<T, LiveError>>,
) -> Result<T, LiveError> {
    tokio::pin!(work);
    tokio::select! {
        done = &mut work => done,
        () = tokio::time::sleep(limit) => {
            let what = client
                .waiting_for()
                .map_or_else(|| "the poll".to_string(), |(read, _)| read);
            Err(LiveError {
                message: format!(
                    "{} stopped answering: no reply to {what} within {} s — given up (see docs/watch.md, Bounds)",
                    client.target(),
                    limit.as_secs_f64()
                ),
                input: false,
                unauthorized: false,
                code: None,
            })
        }
    }
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
