//! The server's state: the simulator and everything the command handlers read and change
//! (shared by the connections and the ticker through [`crate::serve::net::shared::Shared`]).
//!
//! The `state` layer owns the data only: the kept documents (`store`) and their unique indexes
//! (`unique`) and validators (`validation`), sessions and transactions (`sessions`; what an open one locks and sees, `txn_locks`), retryable writes' first replies
//! (`retryable`), open cursors (`cursors`,
//! `encoded_docs`), change events (`change_events`), query analyzers (`analyzers`), capped logs,
//! settings, the simulated user (`access`) and what a command waits for (`waits`). No handler
//! logic. May import `query` and `reply`; nothing above.

pub mod access;
pub mod analyzers;
pub mod capped_log;
pub mod change_events;
pub mod connections;
pub mod cursors;
pub mod encoded_docs;
pub mod log;
pub mod retryable;
pub mod sessions;
pub mod settings;
pub mod store;
pub mod txn_errors;
pub mod txn_locks;
pub mod unique;
pub mod validation;
pub mod versions;
pub mod waits;

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use bson::Document;

use crate::serve::state::cursors::Cursors;

/// What an open cursor of this server has left.
pub type Rest = cursors::Rest<State>;
use crate::serve::state::log::CommandLog;
use crate::sim::Simulator;

/// Who sent a command.
#[derive(Clone, Copy, Debug)]
pub struct Context {
    pub connection_id: i64,
    pub peer: SocketAddr,
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
    pub cursors: Cursors<State>,
    /// The connection whose command is being answered, and its session (`lsid`): cursors
    /// belong to both.
    pub connection: i64,
    pub session: Option<Vec<u8>>,
    /// Wall-clock start, seconds since the Unix epoch (dates in the config database count from
    /// it plus the simulator's virtual time).
    pub started_secs: u64,
    pub started: Instant,
    /// Collections written to but not sharded, by namespace.
    pub unsharded: BTreeMap<String, UnshardedColl>,
    /// The patch of the version reported (`buildInfo`, `serverStatus`, `config.mongos`), and
    /// honoured where a patch changes what the server does (`$listClusterCatalog` from 8.0.10).
    pub patch: u32,
    /// What the command being answered waits for before its reply (`completion`).
    pub wait: Option<waits::Wait>,
    /// How the latest migrations and reshardings ended.
    pub outcomes: waits::Outcomes,
    /// Commands answered since the start (`serverStatus`).
    pub commands_answered: u64,
    /// `config.changelog` and `config.actionlog`, from the simulator's events.
    pub changelog: capped_log::CappedLog,
    pub actionlog: capped_log::CappedLog,
    /// `configureQueryAnalyzer` settings and the queries sampled.
    pub analyzers: analyzers::QueryAnalyzers,
    /// Change events and change-stream cursors.
    pub streams: change_events::ChangeStreams,
    /// The documents written through `serve` (up to `--max-docs`).
    pub store: store::Store,
    /// The options `create` gave each collection, as `listCollections` shows them (its validator
    /// checked by `validation`).
    pub coll_options: BTreeMap<String, Document>,
    /// Index specs of sharded collections as clients gave them (`indexes`).
    pub extra_indexes: BTreeMap<String, Vec<Document>>,
    /// Unique secondary indexes over the kept documents.
    pub uniques: unique::UniqueIndexes,
    /// `config.settings` documents the simulator does not read (`config_writes`).
    pub other_settings: settings::OtherSettings,
    /// Sessions, their transactions and what the command being answered belongs to.
    pub sessions: sessions::Sessions,
    /// Each session's latest retryable write and its reply (`dispatch::retryable`).
    pub retryable: retryable::RetryableWrites,
    /// The simulated user's roles (`--user-roles`), when access control is on.
    pub access: Option<access::Access>,
    /// The namespace of each collection uuid of the catalog, as last seen (`config.chunks`
    /// reads by uuid look it up, checked against the catalog: `catalog::chunk_scope`).
    pub chunk_uuids: std::collections::HashMap<[u8; 16], String>,
    /// The connections served (`serverStatus.connections`), counted by `net`.
    pub connections: Arc<connections::Connections>,
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
        let patch = sim.cluster.version.first_simulated_patch();
        Self {
            sim,
            addr,
            argv,
            paused,
            log,
            cursors: Cursors::default(),
            connection: 0,
            session: None,
            started_secs,
            started: Instant::now(),
            unsharded: BTreeMap::new(),
            patch,
            wait: None,
            outcomes: waits::Outcomes::default(),
            commands_answered: 0,
            changelog: capped_log::CappedLog::default(),
            actionlog: capped_log::CappedLog::default(),
            analyzers: analyzers::QueryAnalyzers::default(),
            streams: change_events::ChangeStreams::default(),
            store: store::Store::new(max_docs),
            coll_options: BTreeMap::new(),
            extra_indexes: BTreeMap::new(),
            uniques: unique::UniqueIndexes::default(),
            sessions: sessions::Sessions::default(),
            retryable: retryable::RetryableWrites::default(),
            access: None,
            other_settings: settings::OtherSettings::default(),
            chunk_uuids: std::collections::HashMap::new(),
            connections: Arc::new(connections::Connections::default()),
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

    /// The cluster time a reply carries: the wall clock's second, and the commands answered as
    /// its increment (so it only grows).
    pub fn cluster_time(&self) -> bson::Timestamp {
        bson::Timestamp {
            time: (self.now_millis() / 1000) as u32,
            increment: (self.commands_answered % u64::from(u32::MAX)) as u32 + 1,
        }
    }

    /// The wall-clock "now", in milliseconds since the Unix epoch.
    #[allow(clippy::unused_self)] // read through the state like every other clock of the server
    pub fn now_millis(&self) -> i64 {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as i64)
    }
}
