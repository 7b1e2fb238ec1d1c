//! The simulator: a virtual clock advanced in ticks; each tick runs due scheduled actions, commits
//! finished migrations, runs the balancer when a round is due, and applies the workloads' writes
//! (routing each document, counting it per chunk, auto-splitting before 6.0).

use super::rng::Rng;
use super::scenario::Action;
use super::scenario::keygen::KeyGen;
use crate::cluster::balancer::BalancerState;
use crate::cluster::event::{Event, EventKind};
use crate::cluster::{Cluster, Collection, DocStore};
use crate::model::{ChunkStats, KeyValue};

/// Length of one simulation tick, in milliseconds.
pub const TICK_MS: u64 = 100;
/// Time between balancer rounds (`kBalanceRoundDefaultInterval`), in milliseconds.
pub const ROUND_INTERVAL_MS: u64 = crate::cluster::balancer::ROUND_INTERVAL_MS;

/// An insert stream into one collection.
#[derive(Clone, Debug)]
pub struct WorkloadRun {
    pub coll_ns: String,
    /// Field names and their generators, in name order.
    pub fields: Vec<(String, KeyGen)>,
    /// For each shard-key field: the generated field that supplies it.
    pub key_sources: Vec<Option<usize>>,
    pub rate_per_sec: f64,
    pub remaining: Option<u64>,
    pub start_ms: u64,
    pub stop_ms: Option<u64>,
    pub doc_bytes: (u64, u64),
    pub carry: f64,
    pub rng: Rng,
}

/// The simulator: a cluster state and what changes it over virtual time — the workloads, the
/// scheduled actions, and the events produced since they were last taken.
#[derive(Clone, Debug)]
pub struct Simulator {
    pub cluster: Cluster,
    pub(super) workloads: Vec<WorkloadRun>,
    pub(super) actions: Vec<Action>,
    pub(super) next_action: usize,
    pub(super) events: Vec<Event>,
    /// The scenario path of the latest `reshardCollection` action of each namespace (an abort
    /// later is that action's failure).
    pub(super) reshard_origins: std::collections::BTreeMap<String, String>,
    /// The AutoMerger's parameters and the state of its pass (7.0+).
    pub auto_merger: super::merges::auto_merger::AutoMerger,
    /// The defragmentation policy's working state.
    pub(super) defragmenter: super::merges::defragmenter::Defragmenter,
    /// Migrations of the round in progress that failed ChunkTooBig (before 6.0 they make the
    /// round a busy one, as a moved chunk does).
    pub(super) round_too_big: usize,
    /// Migrations in flight that will fail at their end, with their error (the recipient waited
    /// for the range deleter in vain).
    pub(super) failing_migrations:
        std::collections::BTreeMap<u64, crate::cluster::error::MongoError>,
    /// A fork's cost model of the migrations from a donor shard (by shard id) where its source's
    /// changelog measured one (`whatif/calibration.rs`); the other donors use the settings'.
    /// Empty but for a calibrated fork. Not in the cluster state, so not in traces: a fork is
    /// not recorded.
    pub migration_cost_by_donor: std::collections::BTreeMap<String, super::balancer::MigrationCost>,
    /// The scenario's seed (0 for a simulator built over a state): it seeds the balancer's
    /// shuffle of the collections each round.
    pub(super) seed: u64,
}

impl Simulator {
    /// A new simulation over an already built cluster (no workloads, no scheduled actions): the
    /// clock at 0, the first balancer round one interval away, migrations numbered from 1.
    pub fn from_cluster(cluster: Cluster) -> Self {
        Self::empty(cluster)
    }

    /// A simulator over a state read elsewhere (a trace, a live poll), taken as it is: its clock,
    /// its migrations in flight and its balancer round kept (unlike [`Simulator::from_cluster`],
    /// which starts a new clock); no workloads, no scheduled actions.
    pub fn over(cluster: crate::cluster::Cluster) -> Self {
        let kept = (
            cluster.now_ms,
            cluster.balancer.clone(),
            cluster.next_migration_id,
        );
        let mut sim = Self::empty(cluster);
        (
            sim.cluster.now_ms,
            sim.cluster.balancer,
            sim.cluster.next_migration_id,
        ) = kept;
        sim.recall_failing_migrations();
        sim
    }

    pub(super) fn empty(mut cluster: Cluster) -> Self {
        cluster.now_ms = 0;
        cluster.balancer = BalancerState {
            next_round_ms: ROUND_INTERVAL_MS,
            ..BalancerState::default()
        };
        cluster.next_migration_id = 1;
        Self {
            cluster,
            workloads: Vec::new(),
            actions: Vec::new(),
            next_action: 0,
            events: Vec::new(),
            reshard_origins: std::collections::BTreeMap::new(),
            auto_merger: super::merges::auto_merger::AutoMerger::default(),
            defragmenter: super::merges::defragmenter::Defragmenter::default(),
            round_too_big: 0,
            failing_migrations: std::collections::BTreeMap::new(),
            migration_cost_by_donor: std::collections::BTreeMap::new(),
            seed: 0,
        }
    }

    /// Virtual time, milliseconds since the start.
    pub fn now_ms(&self) -> u64 {
        self.cluster.now_ms
    }

    /// Takes the events produced since the last call.
    pub fn take_events(&mut self) -> Vec<Event> {
        std::mem::take(&mut self.events)
    }

    /// The text summary of the cluster at virtual time, then the scheduled actions that failed.
    pub fn summary_text(&self, title: &str) -> String {
        let mut s = self.cluster.summary_text(title);
        for e in &self.cluster.failed_actions {
            s.push_str(&format!("scheduled action failed: {e}\n"));
        }
        s
    }

    pub(super) fn emit(&mut self, kind: EventKind) {
        let e = Event {
            at_ms: self.cluster.now_ms,
            kind,
        };
        self.cluster.note_outcome(&e);
        self.events.push(e);
    }

    /// Whether anything will still change the state by itself: a workload not finished, a
    /// scheduled action not run yet, a migration in flight.
    pub fn has_future_inputs(&self) -> bool {
        let now = self.cluster.now_ms;
        let writing = (self.workloads.iter())
            .any(|w| w.remaining != Some(0) && w.stop_ms.is_none_or(|s| now < s));
        writing
            || self.next_action < self.actions.len()
            || !self.cluster.balancer.in_flight.is_empty()
            || self
                .cluster
                .collections
                .iter()
                .any(|c| c.resharding.is_some())
    }

    /// Whether every workload has finished and nothing is migrating.
    pub fn is_quiet(&self) -> bool {
        self.workloads.iter().all(|w| w.remaining == Some(0))
            && self.cluster.balancer.in_flight.is_empty()
    }

    /// Advances the clock to `until_ms` (rounded down to a tick).
    pub fn run_until(&mut self, until_ms: u64) {
        while self.cluster.now_ms + TICK_MS <= until_ms {
            self.step();
        }
    }

    /// One tick: actions, migration commits, balancer, writes.
    pub fn step(&mut self) {
        self.run_due_actions();
        self.advance_reshardings();
        self.commit_due_migrations();
        self.balancer_tick();
        self.auto_merger_tick();
        self.defragmenter_tick();
        self.run_range_deleter();
        self.apply_workloads();
        self.close_tick();
        self.cluster.now_ms += TICK_MS;
    }

    fn run_due_actions(&mut self) {
        while let Some(action) = self.take_due_action() {
            self.run_action(&action);
        }
    }

    fn apply_workloads(&mut self) {
        for w in 0..self.workloads.len() {
            let n = self.due_inserts(w);
            for k in 0..n {
                let at = self.cluster.now_ms + k * TICK_MS / n.max(1);
                self.insert_generated(w, at);
            }
        }
    }

    fn due_inserts(&mut self, w: usize) -> u64 {
        let now = self.cluster.now_ms;
        let run = &mut self.workloads[w];
        let active =
            now >= run.start_ms && run.stop_ms.is_none_or(|s| now < s) && run.remaining != Some(0);
        if !active {
            return 0;
        }
        let exact = run.rate_per_sec * TICK_MS as f64 / 1000.0 + run.carry;
        let mut n = exact.floor() as u64;
        run.carry = exact - n as f64;
        if let Some(rem) = run.remaining.as_mut() {
            n = n.min(*rem);
            *rem -= n;
        }
        n
    }

    fn insert_generated(&mut self, w: usize, at_ms: u64) {
        let run = &mut self.workloads[w];
        let values: Vec<KeyValue> = run
            .fields
            .iter_mut()
            .map(|(_, g)| g.next(&mut run.rng, at_ms))
            .collect();
        let (lo, hi) = run.doc_bytes;
        let bytes = run.rng.range_u64(lo, hi);
        let key_values: Vec<KeyValue> = run
            .key_sources
            .iter()
            .map(|s| s.map_or(KeyValue::Null, |k| values[k].clone()))
            .collect();
        let ns = run.coll_ns.clone();
        let Some(c) = self.cluster.collection_index(&ns) else {
            return;
        };
        let write = crate::cluster::resharding::BlockedWrite {
            workload: w,
            values,
            bytes,
        };
        if let Some(write) = self.block_if_critical(c, write) {
            self.insert(c, key_values, Some(write.values), write.bytes);
        }
    }

    /// Routes and counts one inserted document: `key_values` are the shard-key fields' raw values.
    pub fn insert(
        &mut self,
        c: usize,
        key_values: Vec<KeyValue>,
        doc: Option<Vec<KeyValue>>,
        bytes: u64,
    ) {
        let Ok(key) = self.cluster.collections[c].pattern.key_of(key_values) else {
            return;
        };
        self.insert_key(c, key, doc, bytes);
    }

    /// Routes and counts one inserted document by its shard key (hashed fields hashed); returns
    /// the chunk (its index before any split this insert causes) and the shard it went to.
    pub fn insert_key(
        &mut self,
        c: usize,
        key: crate::model::ShardKey,
        doc: Option<Vec<KeyValue>>,
        bytes: u64,
    ) -> (usize, crate::model::ShardIdx) {
        let coll = &mut self.cluster.collections[c];
        let i = coll.table.route(&key);
        let shard = coll.table.chunk(i).info.shard;
        let delta = ChunkStats::new(1, bytes, 1);
        coll.table.add_stats(i, delta);
        coll.pending.add(i, shard, delta, &key);
        coll.keys.insert(key, bytes);
        if let Some(r) = coll.resharding.as_mut() {
            r.record_write(self.cluster.now_ms);
        }
        coll.count_routed_writes(shard, 1);
        if let (Some(store), Some(doc)) = (coll.docs.as_mut(), doc) {
            store.docs.push((doc, bytes));
        }
        let tracker = coll.table.chunk(i).info.bytes_written;
        if self.cluster.version.auto_splits()
            && self.cluster.collections[c].resharding.is_none()
            && tracker > self.cluster.chunk_size_of(c) / 5
        {
            self.auto_split(c, i);
        }
        (i, shard)
    }

    /// The range deleter: orphans whose cleanup delay has passed are deleted from their donor.
    fn run_range_deleter(&mut self) {
        let now = self.cluster.now_ms;
        for c in 0..self.cluster.collections.len() {
            if self.cluster.collections[c].range_deletions.is_empty() {
                continue;
            }
            let ns = self.cluster.collections[c].ns.clone();
            for r in self.cluster.collections[c].take_due_deletions(now) {
                self.emit(EventKind::RangeDeleted {
                    ns: ns.clone(),
                    min: r.min,
                    max: r.max,
                    shard: r.shard,
                    docs: r.docs,
                    bytes: r.bytes,
                });
            }
        }
    }

    /// Ends the tick: each collection's remaining writes become a `writes` event, and the tick's
    /// writes enter the recent-writes window.
    fn close_tick(&mut self) {
        for c in 0..self.cluster.collections.len() {
            if self.cluster.collections[c].pending.is_empty() {
                continue;
            }
            self.flush_writes(c);
            let now = self.cluster.now_ms;
            self.cluster.collections[c].close_tick(now);
        }
    }

    /// Reports collection `c`'s unreported writes as a `writes` event (before chunks shift or move).
    pub(super) fn flush_writes(&mut self, c: usize) {
        let coll = &mut self.cluster.collections[c];
        let chunks = coll.pending.flush(&coll.table);
        if !chunks.is_empty() {
            let ns = coll.ns.clone();
            self.emit(EventKind::Writes { ns, chunks });
        }
    }

    /// Enables keeping documents' field values for collection `c` (needed to refine its key).
    pub(super) fn keep_documents(&mut self, c: usize, fields: Vec<String>) {
        let coll: &mut Collection = &mut self.cluster.collections[c];
        if coll.docs.is_none() {
            coll.docs = Some(DocStore {
                fields,
                docs: Vec::new(),
            });
        }
    }
}
