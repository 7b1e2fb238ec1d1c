//! The task that owns the simulator: it answers commands from the connections in arrival order
//! and steps the simulator every 100 ms of wall-clock time unless paused. Nothing here awaits
//! while holding the simulator: each command is answered synchronously between two awaits.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use bson::Document;
use tokio::sync::{mpsc, oneshot, watch};

use super::cursors::Cursors;
use super::log::CommandLog;
use crate::sim::Simulator;
use crate::sim::engine::TICK_MS;

/// Who sent a command.
#[derive(Clone, Copy, Debug)]
pub struct Context {
    pub connection_id: i64,
    pub peer: SocketAddr,
}

/// A command on its way to the simulator task, with where to send the reply.
pub struct ToOwner {
    pub command: Document,
    pub ctx: Context,
    pub reply: oneshot::Sender<Document>,
}

/// A collection the simulator does not shard: its document count (kept or not) and indexes.
#[derive(Clone, Debug, Default)]
pub struct UnshardedColl {
    pub count: u64,
    pub indexes: Vec<Document>,
}

/// Everything the command handlers read and change.
pub struct State {
    pub sim: Simulator,
    pub addr: SocketAddr,
    pub argv: Vec<String>,
    pub paused: bool,
    pub log: Option<Arc<CommandLog>>,
    pub cursors: Cursors,
    /// Wall-clock start, seconds since the Unix epoch (dates in the config database count from
    /// it plus the simulator's virtual time).
    pub started_secs: u64,
    pub started: Instant,
    /// Collections written to but not sharded, by namespace.
    pub unsharded: BTreeMap<String, UnshardedColl>,
    /// Commands answered since the start (`serverStatus`).
    pub commands_answered: u64,
    /// `config.changelog` and `config.actionlog`, from the simulator's events.
    pub changelog: super::changelog::CappedLog,
    pub actionlog: super::changelog::CappedLog,
    /// `configureQueryAnalyzer` settings and the queries sampled.
    pub analyzers: super::query_analyzer::QueryAnalyzers,
    /// Change events and change-stream cursors.
    pub streams: super::change_stream::ChangeStreams,
    /// The documents written through `serve` (up to `--max-docs`).
    pub store: super::store::Store,
}

impl State {
    pub fn new(
        sim: Simulator,
        addr: SocketAddr,
        argv: Vec<String>,
        paused: bool,
        log: Option<Arc<CommandLog>>,
        max_docs: u64,
    ) -> Self {
        let started_secs = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        Self {
            sim,
            addr,
            argv,
            paused,
            log,
            cursors: Cursors::default(),
            started_secs,
            started: Instant::now(),
            unsharded: BTreeMap::new(),
            commands_answered: 0,
            changelog: super::changelog::CappedLog::default(),
            actionlog: super::changelog::CappedLog::default(),
            analyzers: super::query_analyzer::QueryAnalyzers::default(),
            streams: super::change_stream::ChangeStreams::default(),
            store: super::store::Store::new(max_docs),
        }
    }

    /// Documents of `ns` that exist (in the simulator's counts) but are not kept: written past
    /// `--max-docs`, or inserted by the scenario's workload.
    pub fn not_kept(&self, ns: &str) -> u64 {
        let kept = self.store.len(ns);
        match self.sim.cluster.collection(ns) {
            Some(c) => {
                let docs: u64 = c.table.iter().map(|ch| ch.info.stats.docs).sum();
                docs.saturating_sub(kept)
            }
            None => self.store.dropped(ns),
        }
    }

    /// What a read on `ns` says when documents of it are not kept (a `shardtop` field).
    pub fn read_note(&self, ns: &str) -> Option<String> {
        let n = self.not_kept(ns);
        (n > 0).then(|| {
            format!(
                "{n} documents of {ns} are counted by the simulator but not kept (written past \
                 --max-docs {}, or by the scenario's workload); this answer covers the {} kept ones",
                self.store.max_docs(),
                self.store.len(ns)
            )
        })
    }

    /// Seconds since the Unix epoch at virtual time `secs`.
    pub fn unix_secs_at(&self, virtual_secs: u64) -> u64 {
        self.started_secs + virtual_secs
    }

    /// The wall-clock "now", in milliseconds since the Unix epoch.
    #[allow(clippy::unused_self)] // read through the state like every other clock of the server
    pub fn now_millis(&self) -> i64 {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as i64)
    }
}

/// Runs the simulator task until shutdown or until every connection handle is gone.
pub async fn run(
    mut state: State,
    mut commands: mpsc::Receiver<ToOwner>,
    mut shutdown: watch::Receiver<bool>,
) {
    let mut ticks = tokio::time::interval(Duration::from_millis(TICK_MS));
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    // Change-stream `getMore`s with nothing to return, held until an event or their deadline
    // (a server's awaitData); checked after every command and every tick.
    let mut held: Vec<(Instant, ToOwner)> = Vec::new();
    loop {
        tokio::select! {
            c = commands.recv() => {
                let Some(c) = c else { return };
                if let Some(deadline) = super::change_stream::wait_deadline(&state, &c.command) {
                    held.push((deadline, c));
                    continue;
                }
                let reply = super::commands::answer(&mut state, &c.command, c.ctx);
                super::changelog::record(&mut state);
                let _ = c.reply.send(reply);
                release(&mut state, &mut held);
            }
            _ = ticks.tick() => {
                if !state.paused {
                    state.sim.step();
                    super::changelog::record(&mut state);
                }
                release(&mut state, &mut held);
            }
            _ = shutdown.changed() => return,
        }
    }
}

/// Answers the held `getMore`s that can be answered now.
fn release(state: &mut State, held: &mut Vec<(Instant, ToOwner)>) {
    let mut i = 0;
    while i < held.len() {
        if super::change_stream::ready(state, &held[i].1.command, held[i].0) {
            let (_, c) = held.swap_remove(i);
            let reply = super::commands::answer(state, &c.command, c.ctx);
            let _ = c.reply.send(reply);
        } else {
            i += 1;
        }
    }
}
