//! The state shared by the connection tasks and the ticker: each connection answers its commands
//! itself under one lock (commands are answered one at a time, in the order they take the lock),
//! and the ticker steps the simulator every 100 ms of wall-clock time unless paused. The lock is
//! an async one, never held across another await. After every command and every tick the waiters are woken: a
//! change-stream `getMore` with nothing to return is held by its connection until an event
//! arrives or its deadline passes (a server's awaitData), and a command whose work runs in
//! virtual time (a migration, a resharding) is held until that work is done (`completion`).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use bson::Document;
use tokio::sync::{Mutex, MutexGuard, Notify, watch};

use crate::serve::commands::aggregate::change_stream;
use crate::serve::reply::raw_reply::Reply;
use crate::serve::state::{Context, State};
use crate::serve::write_path::completion;
use crate::sim::engine::TICK_MS;

/// The state behind its lock, and the wake-up of held `getMore`s.
pub struct Shared {
    state: Mutex<State>,
    changed: Notify,
    /// What the commands answered without the lock read: the version, the command log, and the
    /// commands answered so far (for their cluster time).
    version: (crate::cluster::ServerVersion, u32),
    log: Option<Arc<crate::serve::state::log::CommandLog>>,
    answered: AtomicU64,
}

impl Shared {
    pub fn new(state: State) -> Arc<Self> {
        Arc::new(Self {
            version: (state.sim.cluster.version, state.patch),
            log: state.log.clone(),
            answered: AtomicU64::new(0),
            state: Mutex::new(state),
            changed: Notify::new(),
        })
    }

    /// The state, once the commands before this one are answered (an async lock: a connection
    /// waiting for it, e.g. behind a long sorted read, yields its thread instead of blocking it).
    async fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().await
    }

    /// Answers `cmd` (the change events and logs it causes recorded), or `None` after shutdown.
    pub async fn answer(
        &self,
        cmd: &Document,
        ctx: Context,
        shutdown: &mut watch::Receiver<bool>,
    ) -> Option<Reply> {
        // An awaitable hello on this process's topology version waits its `maxAwaitTimeMS` on
        // its own connection (others are answered meanwhile), as a mongos's does.
        if matches!(
            cmd.keys().next().map(String::as_str),
            Some("hello" | "isMaster" | "ismaster")
        ) && let Ok(Some(wait)) = crate::serve::commands::handshake::hello_wait(cmd)
        {
            tokio::select! {
                () = tokio::time::sleep(wait) => {}
                _ = shutdown.changed() => return None,
            }
        }
        if let Some(answer) = crate::serve::dispatch::answer_without_state(
            self.version,
            self.log.as_deref(),
            cmd,
            ctx,
        ) {
            let n = self.answered.load(Ordering::Acquire);
            let at = bson::Timestamp {
                time: std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_secs()) as u32,
                increment: (n % u64::from(u32::MAX)) as u32 + 1,
            };
            return Some(Self::reply_of(answer).with_cluster_time(at));
        }
        let mut state = self.lock().await;
        if let Some(deadline) = change_stream::wait_deadline(&state, cmd) {
            drop(state);
            return self.answer_held(cmd, ctx, deadline, shutdown).await;
        }
        let arrived = Instant::now();
        let reply = self.answer_locked(&mut state, cmd, ctx);
        if let Some(owner) = state.sessions.take_blocked() {
            drop(state);
            let deadline = crate::serve::query::deadline::at(cmd, arrived);
            return self
                .answer_unblocked(cmd, ctx, owner, deadline, shutdown)
                .await;
        }
        let Some(wait) = state.wait.take() else {
            return Some(reply);
        };
        if state.paused {
            let answer = completion::run_to_end(&mut state, &wait);
            let reply = Self::reply_of(answer).with_cluster_time(state.cluster_time());
            drop(state);
            self.changed.notify_waiters();
            return Some(reply);
        }
        drop(state);
        self.answer_when_done(&wait, shutdown).await
    }

    fn reply_of(answer: Result<Document, crate::cluster::MongoError>) -> Reply {
        Reply::Doc(answer.unwrap_or_else(|e| crate::serve::reply::error(&e)))
    }

    /// A command whose work runs in virtual time: answered once it is done, looking after each
    /// tick (the lock is free meanwhile).
    async fn answer_when_done(
        &self,
        wait: &crate::serve::state::waits::Wait,
        shutdown: &mut watch::Receiver<bool>,
    ) -> Option<Reply> {
        self.hold(None, shutdown, |state| {
            let at = state.cluster_time();
            if let Some(answer) = completion::outcome(state, wait) {
                return Some(Self::reply_of(answer).with_cluster_time(at));
            }
            // Paused while waiting: the command runs the clock itself, as when it began paused.
            state
                .paused
                .then(|| Self::reply_of(completion::run_to_end(state, wait)).with_cluster_time(at))
        })
        .await
    }

    /// A write outside a transaction that met a document transaction `owner` holds: run again
    /// once that transaction ends (and again while it meets another), or MaxTimeMSExpired at
    /// `deadline`, as a server retries a WriteConflict outside a transaction until the operation
    /// is interrupted (`writeConflictRetry`, `db/concurrency/exception_util.h`).
    async fn answer_unblocked(
        &self,
        cmd: &Document,
        ctx: Context,
        mut owner: (Vec<u8>, i64),
        deadline: Option<Instant>,
        shutdown: &mut watch::Receiver<bool>,
    ) -> Option<Reply> {
        self.hold(deadline, shutdown, |state| {
            if state.sessions.is_open(&owner.0, owner.1) {
                if deadline.is_some_and(|d| Instant::now() >= d) {
                    let e = crate::serve::query::deadline::expired();
                    let at = state.cluster_time();
                    return Some(Self::reply_of(Err(e)).with_cluster_time(at));
                }
                return None;
            }
            let reply = self.answer_locked(state, cmd, ctx);
            match state.sessions.take_blocked() {
                Some(next) => {
                    owner = next;
                    None
                }
                None => Some(reply),
            }
        })
        .await
    }

    /// Holds a reply until `ready` gives it, looking after every command and tick (and at
    /// `deadline`), the lock free in between; `None` after shutdown.
    async fn hold(
        &self,
        deadline: Option<Instant>,
        shutdown: &mut watch::Receiver<bool>,
        mut ready: impl FnMut(&mut State) -> Option<Reply>,
    ) -> Option<Reply> {
        loop {
            let changed = self.changed.notified();
            tokio::pin!(changed);
            changed.as_mut().enable();
            if let Some(reply) = ready(&mut *self.lock().await) {
                return Some(reply);
            }
            let until = deadline.unwrap_or_else(|| Instant::now() + Duration::from_secs(3600));
            tokio::select! {
                () = changed => {}
                () = tokio::time::sleep_until(until.into()) => {}
                _ = shutdown.changed() => return None,
            }
        }
    }

    fn answer_locked(&self, state: &mut State, cmd: &Document, ctx: Context) -> Reply {
        // Events of the simulator's run before the server started are in the logs first.
        crate::serve::write_path::changelog::record(state);
        let reply = may_take_long(cmd, || crate::serve::dispatch::answer(state, cmd, ctx));
        self.answered
            .store(state.commands_answered, Ordering::Release);
        crate::serve::write_path::changelog::record(state);
        self.changed.notify_waiters();
        reply
    }

    /// A held `getMore`: answered once it is ready (events arrived, or `deadline`).
    async fn answer_held(
        &self,
        cmd: &Document,
        ctx: Context,
        deadline: Instant,
        shutdown: &mut watch::Receiver<bool>,
    ) -> Option<Reply> {
        self.hold(Some(deadline), shutdown, |state| {
            change_stream::ready(state, cmd, deadline).then(|| self.answer_locked(state, cmd, ctx))
        })
        .await
    }

    /// Connection `id` closed: its cursors and change streams die with it.
    pub async fn connection_closed(&self, id: i64) {
        let mut state = self.lock().await;
        let killed = state.cursors.kill_owned_by(id) + state.streams.kill_owned_by(id);
        if killed > 0 {
            crate::serve::state::log::line(
                state.log.as_deref(),
                &format!("connection {id} closed: killed its {killed} open cursors"),
            );
        }
    }

    /// Steps the simulator every 100 ms (unless paused) until shutdown.
    pub async fn tick(self: Arc<Self>, mut shutdown: watch::Receiver<bool>) {
        let mut ticks = tokio::time::interval(Duration::from_millis(TICK_MS));
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
        loop {
            tokio::select! {
                _ = ticks.tick() => {
                    let mut state = self.lock().await;
                    let now = Instant::now();
                    let timeout = Duration::from_millis(state.cursors.timeout_ms());
                    let expired =
                        state.cursors.expire(now) + state.streams.expire(now, timeout);
                    if expired > 0 {
                        crate::serve::state::log::line(
                            state.log.as_deref(),
                            &format!("killed {expired} cursors unread for {} ms", state.cursors.timeout_ms()),
                        );
                    }
                    for lsid in state.sessions.expired(Instant::now()) {
                        let _ = crate::serve::dispatch::transactions::abort(&mut state, &lsid);
                        crate::serve::state::log::line(
                            state.log.as_deref(),
                            &format!(
                                "aborted a transaction open longer than transactionLifetimeLimitSeconds ({} s)",
                                state.sessions.lifetime_secs
                            ),
                        );
                    }
                    if !state.paused {
                        state.sim.step();
                        crate::serve::write_path::changelog::record(&mut state);
                    }
                    drop(state);
                    self.changed.notify_waiters();
                }
                _ = shutdown.changed() => return,
            }
        }
    }
}

/// The commands whose answer may take seconds (a sort or a scan of everything a collection or
/// `config.chunks` holds, `analyzeShardKey`'s reading of a collection).
const LONG: [&str; 7] = [
    "find",
    "aggregate",
    "getMore",
    "count",
    "distinct",
    "explain",
    "analyzeShardKey",
];

/// Answers `cmd` with `work`; a command that may take seconds runs so that the runtime's other
/// tasks go on meanwhile — new connections accepted, `ping` and `hello` answered (they need no
/// lock): on a multi-threaded runtime this worker thread hands its queue and its share of the
/// I/O to another thread while it works (`block_in_place`); on a single-threaded one (a test's)
/// it works in place.
fn may_take_long<T>(cmd: &Document, work: impl FnOnce() -> T) -> T {
    let long = cmd
        .keys()
        .next()
        .is_some_and(|k| LONG.contains(&k.as_str()));
    let threads = tokio::runtime::Handle::try_current().map(|h| h.runtime_flavor());
    match threads {
        Ok(tokio::runtime::RuntimeFlavor::MultiThread) if long => tokio::task::block_in_place(work),
        _ => work(),
    }
}
