//! One poll from a URI to an owned cluster state (`watch --once`), one kept as a capture
//! (`capture`) or made again from one (`open`), and the wall clock polls are
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
    /// The `config.changelog` entries the poll read (its tail), oldest first: what a what-if
    /// calibrates its migrations from.
    pub changelog: Vec<bson::Document>,
    /// The reads refused to this user, with what each needs.
    pub refused: Vec<crate::cluster::privileges::RefusedRead>,
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

/// The changelog entries a recording poller read (see `LogTails::record`).
fn changelog_of(poller: &mut Poller) -> Vec<bson::Document> {
    (poller.logs.take_recorded().into_iter())
        .filter(|(log, _)| *log == crate::trace::LogCollection::Changelog)
        .map(|(_, d)| d)
        .collect()
}

/// Connects and polls once.
pub async fn poll_once(uri: &str, timeout: std::time::Duration) -> Result<OnePoll, LiveError> {
    let client = LiveClient::connect(uri, timeout).await?;
    let mut poller = Poller::new(client);
    poller.logs.record();
    let log = poller
        .poll_within(now_ms(), timeout.max(std::time::Duration::from_secs(1)) * 3)
        .await?
        .log;
    Ok(OnePoll {
        refused: poller.refused().to_vec(),
        changelog: changelog_of(&mut poller),
        state: poller.finish().await,
        log,
    })
}

/// One poll kept as a capture (`shardtop capture`): every read and its answer, the poll stamped
/// with the capture's time. Nothing is paced: every collection's `balancerCollectionStatus` is
/// asked (a later poll's pacing does not apply to a poll that is the only one).
pub async fn capture_once(
    uri: &str,
    timeout: std::time::Duration,
) -> Result<(OnePoll, crate::capture::Capture), LiveError> {
    let (client, recorder) = LiveClient::connect(uri, timeout).await?.recording();
    let mut poller = Poller::new(client);
    poller.set_compliance_budget(usize::MAX);
    let at = now_ms();
    let log = poller
        .poll_within(at, timeout.max(std::time::Duration::from_secs(1)) * 3)
        .await?
        .log;
    let reads = recorder.take();
    let server_version = reads.iter().find_map(|r| match &r.outcome {
        crate::capture::Outcome::Reply(d) if r.command.contains_key("buildInfo") => {
            d.get_str("version").ok().map(str::to_string)
        }
        _ => None,
    });
    let capture = crate::capture::Capture {
        format: crate::capture::FORMAT_VERSION,
        captured_at_ms: at,
        target: super::client::hosts(uri),
        server_version,
        anonymized: false,
        reads,
    };
    let polled = OnePoll {
        refused: poller.refused().to_vec(),
        changelog: Vec::new(),
        state: poller.finish().await,
        log,
    };
    Ok((polled, capture))
}

/// The poll a capture kept, made again from its reads (`shardtop open`): the same poller, its
/// clock the capture's time, no connection. Also returns the reads the poll asked that the
/// capture does not hold.
pub async fn replay_once(
    capture: crate::capture::Capture,
) -> Result<(OnePoll, Vec<String>), LiveError> {
    replay_reads(crate::capture::replay::Replay::new(capture)).await
}

/// [`replay_once`] of a capture's reads already made ready to answer (`capture::file::read_replay`
/// reads a file straight into them).
pub async fn replay_reads(
    replay: crate::capture::replay::Replay,
) -> Result<(OnePoll, Vec<String>), LiveError> {
    let at = replay.captured_at_ms;
    let replay = std::sync::Arc::new(replay);
    let mut poller = Poller::new(LiveClient::replaying(replay.clone()));
    poller.set_compliance_budget(usize::MAX);
    poller.logs.record();
    let log = poller.poll(at).await?.log;
    let polled = OnePoll {
        refused: poller.refused().to_vec(),
        changelog: changelog_of(&mut poller),
        state: poller.into_state(),
        log,
    };
    Ok((polled, replay.missing()))
}

/// [`replay_reads`] for a caller without an async runtime (the fuzz target): a replayed poll
/// waits on nothing but the capture.
pub fn replay_blocking(
    replay: crate::capture::replay::Replay,
) -> Result<(OnePoll, Vec<String>), LiveError> {
    futures::executor::block_on(replay_reads(replay))
}
