//! `shardtop serve`: the simulator as a MongoDB endpoint that behaves like a mongos. A tokio TCP
//! server accepts connections (at most [`MAX_CONNECTIONS`]); each connection task reads messages
//! with [`crate::wire`] and answers every command against the state shared under one lock
//! (`shared`), where a ticker task advances the simulator in real time (100 ms ticks) unless
//! paused.
//!
//! Owns: sockets, the ticker, the commands a mongos answers, the config database
//! generated from the simulator's state, the documents written through it (kept in memory up to
//! `--max-docs`, see `store`; every write is routed into the simulator by shard key), cursors,
//! change events, the command log. May not touch: the terminal
//! (only `commands` prints; a refused connection or malformed message is one line on stderr or in
//! the command log), the simulator's rules (commands call `sim`'s operations). Every refusal a
//! client sees is a [`crate::cluster::MongoError`] (code, codeName, errmsg), raised by the
//! simulator or by a command here.

mod catalog;
mod commands;
mod dispatch;
mod net;
mod query;
mod reply;
mod state;
mod write_path;

pub use state::access;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

use tokio::net::TcpListener;
use tokio::sync::{Semaphore, watch};
use tokio::task::JoinHandle;

use crate::sim::Simulator;

pub use net::conn::MESSAGE_DEADLINE;
pub use state::log::CommandLog;
pub use state::store::{DEFAULT_MAX_BYTES, DEFAULT_MAX_DOCS};

/// `net.maxIncomingConnections`' default: the most connections served at once (held to 80% of
/// the open-file limit, see [`ServeOptions::max_connections`]); past it a new connection is
/// refused (closed with a log line) unless a slow one gives its slot up.
pub const MAX_CONNECTIONS: usize = state::connections::DEFAULT_MAX_INCOMING;

/// This process's default connection limit: [`MAX_CONNECTIONS`], or 80% of the open-file limit
/// when that is lower (`transport/service_entry_point_impl.cpp`).
pub fn default_max_connections() -> usize {
    state::connections::default_limit()
}

/// The cluster `serve` starts without a scenario: three shards, balancer on, no collections.
const EMPTY_CLUSTER: &str = r#"{
  "name": "serve",
  "description": "An empty cluster of three shards, balancer on.",
  "seedPassage": "",
  "shards": 3,
  "collections": [],
  "until": 0
}"#;

/// An empty cluster of three shards (`shard0000`…`shard0002`), balancer on, no collections.
pub fn empty_cluster(version: Option<crate::cluster::ServerVersion>) -> Result<Simulator, String> {
    let sc = crate::sim::scenario::parse(EMPTY_CLUSTER)?;
    Simulator::from_scenario(&sc, sc.seed, version)
}

/// What `serve` runs.
pub struct ServeOptions {
    pub listen: SocketAddr,
    /// The simulator, as set up by a scenario (or the empty three-shard cluster).
    pub sim: Simulator,
    /// Start with the simulator's clock stopped.
    pub paused: bool,
    /// One JSON line per command received.
    pub command_log: Option<PathBuf>,
    /// Where connection-level lines go without a command log (refused connections, malformed
    /// messages); `None`: nowhere. `serve` never prints them itself.
    pub lines: Option<state::log::LineSink>,
    /// The command line, for `getCmdLineOpts`.
    pub argv: Vec<String>,
    /// Documents kept in memory in all (`--max-docs`); past it writes are counted, not kept.
    pub max_docs: u64,
    /// BSON bytes of the documents kept in all (`--max-bytes`); a write past it is refused
    /// (`ExceededMemoryLimit`, as the in-memory storage engine refuses one past its cache).
    pub max_bytes: u64,
    /// A message must arrive whole within this time of its first byte.
    pub message_deadline: std::time::Duration,
    /// Answer as a user with these roles (`--user-roles`); `None`: no access control.
    pub access: Option<access::Access>,
    /// The patch release to report and honour (`--server-version 8.0.10`); `None`: the line's
    /// first simulated one.
    pub patch: Option<u32>,
    /// The most connections served at once (`net.maxIncomingConnections`): 65,536, or 80% of
    /// the process's open-file limit when that is lower, as a mongos holds it.
    pub max_connections: usize,
}

impl ServeOptions {
    /// Serving `sim` on `listen`, running, without a command log.
    pub fn new(listen: SocketAddr, sim: Simulator) -> Self {
        Self {
            listen,
            sim,
            paused: false,
            command_log: None,
            lines: None,
            argv: vec!["shardtop".into(), "serve".into()],
            max_docs: DEFAULT_MAX_DOCS,
            max_bytes: DEFAULT_MAX_BYTES,
            message_deadline: net::conn::MESSAGE_DEADLINE,
            access: None,
            patch: None,
            max_connections: state::connections::default_limit(),
        }
    }
}

/// A running server.
pub struct Server {
    addr: SocketAddr,
    shutdown: watch::Sender<bool>,
    accept: JoinHandle<()>,
    ticker: JoinHandle<()>,
}

impl Server {
    /// The address the server listens on (the real port when asked for port 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// Stops accepting, stops the ticker and waits for both.
    pub async fn shutdown(self) {
        let _ = self.shutdown.send(true);
        let _ = self.accept.await;
        let _ = self.ticker.await;
    }

    /// Waits until the server stops (it stops only on [`Server::shutdown`] or a fatal error).
    pub async fn wait(self) {
        let _ = self.accept.await;
        let _ = self.shutdown.send(true);
        let _ = self.ticker.await;
    }
}

/// Binds `opts.listen` and starts serving; returns once the socket is bound.
pub async fn start(opts: ServeOptions) -> std::io::Result<Server> {
    let log = CommandLog::open(opts.command_log.as_deref(), opts.lines.clone())?;
    let listener = TcpListener::bind(opts.listen).await?;
    let addr = listener.local_addr()?;
    let (shutdown, shutdown_rx) = watch::channel(false);
    let log = log.map(Arc::new);
    let state = state::State::new(
        opts.sim,
        addr,
        opts.argv,
        opts.paused,
        log.clone(),
        opts.max_docs,
    );
    let mut state = state;
    state.store.set_max_bytes(opts.max_bytes);
    state.access = opts.access;
    if let Some(patch) = opts.patch {
        state.patch = patch;
    }
    state.connections = Arc::new(state::connections::Connections::new(
        opts.max_connections.max(1),
    ));
    let connections = Arc::clone(&state.connections);
    let shared = net::shared::Shared::new(state);
    let ticker = tokio::spawn(Arc::clone(&shared).tick(shutdown_rx.clone()));
    let limits = Limits {
        message_deadline: opts.message_deadline,
    };
    let accept = tokio::spawn(accept_loop(
        listener,
        shared,
        shutdown_rx,
        log,
        limits,
        connections,
    ));
    Ok(Server {
        addr,
        shutdown,
        accept,
        ticker,
    })
}

/// What each connection is held to.
#[derive(Clone, Copy)]
struct Limits {
    message_deadline: std::time::Duration,
}

async fn accept_loop(
    listener: TcpListener,
    shared: Arc<net::shared::Shared>,
    mut shutdown: watch::Receiver<bool>,
    log: Option<Arc<CommandLog>>,
    limits: Limits,
    connections: Arc<state::connections::Connections>,
) {
    let limit = connections.limit;
    let permits = Arc::new(Semaphore::new(limit));
    let registry = Arc::new(net::slots::Registry::default());
    let next_id = AtomicI64::new(1);
    loop {
        let accepted = tokio::select! {
            a = listener.accept() => a,
            _ = shutdown.changed() => return,
        };
        let (stream, peer) = match accepted {
            Ok(x) => x,
            Err(e) => {
                state::log::line(log.as_deref(), &format!("accept failed: {e}"));
                continue;
            }
        };
        let id = next_id.fetch_add(1, Ordering::Relaxed);
        // Every slot taken: the connection waiting longest for a whole message gives its slot
        // up (it closes at once); none has waited that long: the newcomer is refused.
        let permit = match Arc::clone(&permits).try_acquire_owned() {
            Ok(p) => Ok(p),
            Err(_) if let Some(handoff) = registry.evict_slowest() => Err(handoff),
            Err(_) => {
                state::log::line(
                    log.as_deref(),
                    &format!(
                        "connection {id} from {peer} refused: {limit} connections already open"
                    ),
                );
                drop(stream);
                continue;
            }
        };
        let conn = net::conn::Connection {
            id,
            peer,
            shared: Arc::clone(&shared),
            log: log.clone(),
            shutdown: shutdown.clone(),
            slots: Arc::clone(&permits),
            connections: Arc::clone(&connections),
            message_deadline: limits.message_deadline,
            slot: registry.join(id),
        };
        let (shared, registry, slot) = (
            Arc::clone(&shared),
            Arc::clone(&registry),
            Arc::clone(&conn.slot),
        );
        tokio::spawn(async move {
            let permit = match permit {
                Ok(p) => p,
                // The slot given up comes as soon as that connection has closed.
                Err(handoff) => match tokio::time::timeout(SLOT_GIVEN_UP, handoff).await {
                    Ok(Ok(p)) => p,
                    _ => return registry.leave(id),
                },
            };
            let counted = Arc::clone(&conn.connections);
            counted.opened();
            conn.serve(stream).await;
            counted.closed();
            registry.leave(id);
            slot.give_up(permit);
            shared.connection_closed(id).await;
        });
    }
}

/// How long a newcomer waits for the slot a slow connection gives up (it closes at once).
const SLOT_GIVEN_UP: std::time::Duration = std::time::Duration::from_secs(5);

/// Entry points for the fuzz targets (`fuzz/`): the command answerer, the query matcher and the
/// update language, reached without a socket. Not part of the tool's interface.
#[doc(hidden)]
pub mod fuzzing {
    use bson::{Bson, Document};

    /// A server's state over the empty three-shard cluster, answering commands one at a time.
    pub struct Lab(super::state::State);

    impl Lab {
        /// The empty cluster of `serve` without a scenario, paused.
        pub fn new() -> Result<Self, String> {
            let sim = super::empty_cluster(None)?;
            let addr = std::net::SocketAddr::from(([127, 0, 0, 1], 27017));
            let argv = vec!["shardtop".into(), "serve".into()];
            Ok(Self(super::state::State::new(
                sim,
                addr,
                argv,
                true,
                None,
                super::DEFAULT_MAX_DOCS,
            )))
        }

        /// Answers `cmd` as a connection would (without waiting for virtual-time work); the
        /// reply's encoded bytes.
        pub fn answer(&mut self, cmd: &Document) -> Vec<u8> {
            let ctx = super::state::Context {
                connection_id: 1,
                peer: std::net::SocketAddr::from(([127, 0, 0, 1], 50000)),
            };
            let reply = super::dispatch::answer(&mut self.0, cmd, ctx);
            self.0.wait = None;
            super::write_path::changelog::record(&mut self.0);
            let mut out = Vec::new();
            reply.write(&mut out);
            out
        }
    }

    /// Whether `doc` matches `filter` (an error counts as no match).
    pub fn filter_matches(doc: &Document, filter: &Document) -> bool {
        super::query::matches(doc, filter).unwrap_or(false)
    }

    /// `doc` after the update `u` (a modifier document or a replacement), or `None` when refused.
    pub fn apply_update(doc: &Document, u: &Bson) -> Option<Document> {
        let u = super::query::update::parse(Some(u)).ok()?;
        super::query::update::apply(doc, &u, false)
            .ok()
            .map(|a| a.doc)
    }
}
