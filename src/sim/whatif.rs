//! `whatif`: a simulator forked from a source's state, changed as asked (shards added, shards
//! drained, the chunk size, the balancing window, the balancer on or off, a reshard), then run
//! forward until the collection is balanced, each drain is done and a reshard has ended, or a
//! time bound. "Balanced" is the balancer's own answer (`balancer_compliance`, what
//! `balancerCollectionStatus` reports: the policy of the release line picks nothing, every shard
//! free) with no migration of the collection in flight; nothing here re-implements a rule.
//!
//! Owns: the changes a what-if makes, the run and what it observes of it ([`Prediction`]); its
//! JSON and text are in `whatif/report.rs`. May not touch: I/O, the wall clock, the source a
//! fork came from (the caller hands over an owned simulator), the policy's decisions.

mod apply;
pub mod assumptions;
pub mod calibration;
pub mod changes;
pub mod growth;
pub mod keys;
pub mod report;

use std::sync::atomic::{AtomicBool, Ordering};

use crate::cluster::{ActiveWindow, event::EventKind};
use crate::model::{KeyPattern, ShardIdx};
use crate::sim::engine::Simulator;

use apply::refusal;
pub use apply::{Applied, DEFAULT_SPAN_MS, Watch, apply_changes, apply_watched};

/// What a what-if changes at the fork, in the order they are applied.
#[derive(Clone, Debug, Default)]
pub struct Changes {
    /// Empty shards added (`addShard`), named `added01`, `added02`…
    pub add_shards: u32,
    /// Shards drained (`removeShard`'s first call), in order.
    pub drain: Vec<String>,
    /// `config.settings` chunksize, MB.
    pub chunk_size_mb: Option<u64>,
    /// The balancer's `activeWindow`.
    pub window: Option<ActiveWindow>,
    /// `balancerStart` (`true`) or `balancerStop` (`false`).
    pub balancer: Option<bool>,
    /// `reshardCollection` of the collection to this key.
    pub reshard: Option<KeyPattern>,
}

/// What a what-if run observed of one collection.
#[derive(Clone, Debug, PartialEq)]
pub struct CollectionPrediction {
    pub ns: String,
    /// The first instant the policy picks nothing for it and nothing of it is moving.
    pub balanced_at_ms: Option<u64>,
    /// Why it was not balanced by the end (`None` once balanced).
    pub not_balanced_why: Option<String>,
    /// The end (commit or failure) of the last migration of the collection.
    pub last_migration_at_ms: Option<u64>,
    /// Migrations committed and failed.
    pub migrations: u64,
    pub failed: u64,
    pub bytes_moved: u64,
    /// Per drained shard: when it owned no chunk of this collection any more.
    pub drained_at_ms: Vec<(String, Option<u64>)>,
    pub blockers: Vec<Blocker>,
    pub shards: Vec<ShardEnd>,
    pub reshard: Option<ReshardPrediction>,
}

/// Something that held balancing back, the first time it was met.
#[derive(Clone, Debug, PartialEq)]
pub struct Blocker {
    /// `chunkTooBig`, `migrationFailed`, `jumbo`, `activeWindow`, `balancerStopped`, `policy`.
    pub what: &'static str,
    pub detail: String,
    pub first_at_ms: u64,
    pub times: u64,
}

/// A shard's share of the collection when the run ended.
#[derive(Clone, Debug, PartialEq)]
pub struct ShardEnd {
    pub shard: String,
    pub chunks: u64,
    pub jumbo: u64,
    pub docs: u64,
    pub bytes: u64,
    pub draining: bool,
    pub added: bool,
}

/// A whole drain: when the shard owned no chunk of any collection.
#[derive(Clone, Debug, PartialEq)]
pub struct DrainPrediction {
    pub shard: String,
    pub drained_at_ms: Option<u64>,
    /// The databases whose primary it is: `movePrimary` is still needed before it can leave.
    pub dbs_to_move: Vec<String>,
}

/// A reshard: the resharding model's numbers and how the simulated one ended.
#[derive(Clone, Debug, PartialEq)]
pub struct ReshardPrediction {
    pub key: String,
    /// The collection's data size: what the recipients store again while it runs.
    pub bytes: u64,
    pub docs: u64,
    /// The cloning phase: the data at the migration rate, at least the minimum duration.
    pub clone_ms: u64,
    pub minimum_duration_ms: u64,
    /// When it committed (`None`: not by the end, or not run).
    pub committed_at_ms: Option<u64>,
    /// Why it was refused or aborted, or why it could not be run (then the numbers above are the
    /// model's arithmetic on the collection's size only).
    pub error: Option<String>,
    /// Run in the simulator (`false`: the documents are not known, only the arithmetic is).
    pub simulated: bool,
}

/// The outcome of a what-if.
#[derive(Clone, Debug, PartialEq)]
pub struct Prediction {
    pub forked_at_ms: u64,
    pub until_ms: u64,
    /// Where the run stopped (every question answered, or `until_ms`).
    pub ended_ms: u64,
    /// The shards added, by name.
    pub added: Vec<String>,
    pub collection: CollectionPrediction,
    pub drains: Vec<DrainPrediction>,
    /// Changes the cluster refused (a drain of the last shard, a bad chunk size…).
    pub refused: Vec<String>,
}

/// Whether collection `c` is balanced, as a what-if and a diagnosis say it: the balancer's own
/// compliance (`balancerCollectionStatus`), no draining shard still holding a chunk of it (a
/// drain left with jumbo chunks only is compliant to MongoDB, but not done), nothing of it in
/// flight, no resharding running.
pub fn balanced(sim: &Simulator, c: usize) -> bool {
    let cl = &sim.cluster;
    let coll = &cl.collections[c];
    let on_draining = (0..cl.shards.len())
        .filter(|&s| cl.shards[s].shard.draining && !cl.shards[s].removed)
        .any(|s| coll.table.shard_totals(ShardIdx(s as u32)).chunks > 0);
    coll.resharding.is_none()
        && !on_draining
        && !cl.balancer.migrating_in(&coll.ns)
        && sim.balancer_compliance(c).is_none()
}

/// A what-if over `sim` for collection `c`, run to `until_ms` at most (on the source's clock).
pub fn predict(sim: Simulator, c: usize, changes: &Changes, until_ms: u64) -> Prediction {
    predict_unless(sim, c, changes, until_ms, &AtomicBool::new(false))
}

/// [`predict`], ended early (what it observed so far) once `cancelled` is set: the TUI drops a
/// prediction nobody waits for any more.
pub fn predict_unless(
    mut sim: Simulator,
    c: usize,
    changes: &Changes,
    until_ms: u64,
    cancelled: &AtomicBool,
) -> Prediction {
    let forked_at_ms = sim.now_ms();
    sim.take_events();
    let ns = sim.cluster.collections[c].ns.clone();
    let Applied {
        added,
        refused,
        reshard,
    } = apply_changes(&mut sim, c, changes);
    // Every drain: the ones asked for and the ones in progress at the fork.
    let drains: Vec<ShardIdx> = (0..sim.cluster.shards.len())
        .filter(|&s| sim.cluster.shards[s].shard.draining && !sim.cluster.shards[s].removed)
        .map(|s| ShardIdx(s as u32))
        .collect();
    let mut run = Run::new(ns, drains.len(), reshard);
    let mut first = true;
    loop {
        let events = sim.take_events();
        run.observe(&sim, &events);
        // What the policy decides changes only with an event (a migration, a split or merge, a
        // write, a setting, a shard's state): a tick without one is not checked again.
        if first || !events.is_empty() {
            run.check(&sim, c, &drains);
        }
        first = false;
        if run.done()
            || sim.now_ms() + crate::sim::engine::TICK_MS > until_ms
            || cancelled.load(Ordering::Relaxed)
        {
            break;
        }
        sim.step();
    }
    run.finish(
        &sim,
        c,
        &drains,
        Ended {
            forked_at_ms,
            until_ms,
            added,
            refused,
        },
    )
}

struct Ended {
    forked_at_ms: u64,
    until_ms: u64,
    added: Vec<String>,
    refused: Vec<String>,
}

/// What the loop has seen so far.
struct Run {
    ns: String,
    balanced_at_ms: Option<u64>,
    last_migration_at_ms: Option<u64>,
    migrations: u64,
    failed: u64,
    bytes_moved: u64,
    drained: Vec<Option<u64>>,
    drained_coll: Vec<Option<u64>>,
    blockers: Vec<Blocker>,
    reshard: Option<ReshardPrediction>,
    /// The last round's reasons for this collection.
    why_not: Vec<String>,
}

impl Run {
    fn new(ns: String, drains: usize, reshard: Option<ReshardPrediction>) -> Self {
        Self {
            ns,
            balanced_at_ms: None,
            last_migration_at_ms: None,
            migrations: 0,
            failed: 0,
            bytes_moved: 0,
            drained: vec![None; drains],
            drained_coll: vec![None; drains],
            blockers: Vec::new(),
            reshard,
            why_not: Vec::new(),
        }
    }

    fn blocker(&mut self, what: &'static str, detail: String, at_ms: u64) {
        match self
            .blockers
            .iter_mut()
            .find(|b| b.what == what && b.detail == detail)
        {
            Some(b) => b.times += 1,
            None => self.blockers.push(Blocker {
                what,
                detail,
                first_at_ms: at_ms,
                times: 1,
            }),
        }
    }

    fn observe(&mut self, sim: &Simulator, events: &[crate::cluster::event::Event]) {
        let balanced = self.balanced_at_ms.is_some();
        for e in events {
            match &e.kind {
                EventKind::MigrationCommitted { range, moved, .. } if range.ns == self.ns => {
                    self.migrations += 1;
                    self.bytes_moved += moved.bytes;
                    self.last_migration_at_ms = Some(e.at_ms);
                }
                EventKind::MigrationFailed { range, error } if range.ns == self.ns => {
                    self.failed += 1;
                    self.last_migration_at_ms = Some(e.at_ms);
                    if error.code_name == "ChunkTooBig" {
                        let detail =
                            "a chunk over the size a migration takes (split, or marked jumbo)";
                        self.blocker("chunkTooBig", detail.into(), e.at_ms);
                    } else {
                        // Any other failure is a blocker in the server's words, whole.
                        let detail =
                            format!("{} ({}): {}", error.code_name, error.code, error.message);
                        self.blocker("migrationFailed", detail, e.at_ms);
                    }
                }
                EventKind::JumboMarked { ns, min, shard, .. } if *ns == self.ns => {
                    let detail = format!(
                        "chunk at {} on {} marked jumbo: the balancer never moves it",
                        sim.cluster.bound_text(ns, min),
                        sim.cluster.shard_id(*shard)
                    );
                    self.blocker("jumbo", detail, e.at_ms);
                }
                EventKind::BalancerIdle { why_not } if !balanced => {
                    for w in why_not {
                        let what = if w.contains("window") {
                            "activeWindow"
                        } else {
                            "balancerStopped"
                        };
                        self.blocker(what, w.clone(), e.at_ms);
                    }
                }
                EventKind::BalancerRoundStarted { why_not, .. } => {
                    self.why_not = (why_not.iter())
                        .filter(|w| w.starts_with(self.ns.as_str()))
                        .cloned()
                        .collect();
                }
                EventKind::ReshardingCommitted { ns, .. } if *ns == self.ns => {
                    if let Some(r) = self.reshard.as_mut() {
                        r.committed_at_ms = Some(e.at_ms);
                    }
                }
                EventKind::ReshardingAborted { ns, error, .. } if *ns == self.ns => {
                    if let Some(r) = self.reshard.as_mut() {
                        r.error = Some(format!("aborted: {}", refusal(error)));
                    }
                }
                _ => {}
            }
        }
    }

    /// Balanced and drained, as the simulator's state says now.
    fn check(&mut self, sim: &Simulator, c: usize, drains: &[ShardIdx]) {
        let now = sim.now_ms();
        for (k, &s) in drains.iter().enumerate() {
            if self.drained_coll[k].is_none()
                && sim.cluster.collections[c].table.shard_totals(s).chunks == 0
            {
                self.drained_coll[k] = Some(now);
            }
            if self.drained[k].is_none() && sim.owned_chunks(s).0 == 0 {
                self.drained[k] = Some(now);
            }
        }
        if self.balanced_at_ms.is_none() && balanced(sim, c) {
            self.balanced_at_ms = Some(now);
        }
    }

    /// Every question answered: balanced (so no resharding in flight either) and drained.
    fn done(&self) -> bool {
        self.balanced_at_ms.is_some() && self.drained.iter().all(Option::is_some)
    }

    /// The blockers met, then what holds the collection at the end: the last round's reasons
    /// when it is not balanced, and each shard's jumbo chunks.
    fn blockers_at_end(&self, sim: &Simulator, c: usize) -> Vec<Blocker> {
        let cl = &sim.cluster;
        let coll = &cl.collections[c];
        let mut blockers = self.blockers.clone();
        if self.balanced_at_ms.is_none() {
            // A bucket the policy found balanced holds nothing back.
            for w in self.why_not.iter().filter(|w| !w.contains(": balanced")) {
                blockers.push(Blocker {
                    what: "policy",
                    detail: w.clone(),
                    first_at_ms: sim.now_ms(),
                    times: 1,
                });
            }
        }
        for sh in (0..cl.shards.len()).filter(|&s| !cl.shards[s].removed) {
            let jumbo = coll.table.shard_totals(ShardIdx(sh as u32)).jumbo;
            if jumbo > 0 {
                let draining = cl.shards[sh].shard.draining;
                blockers.push(Blocker {
                    what: "jumbo",
                    detail: format!(
                        "{jumbo} jumbo chunk(s) on {} at the end: the balancer never moves them{}",
                        cl.shard_id(ShardIdx(sh as u32)),
                        if draining {
                            " (the drain waits on them: moveChunk with forceJumbo, or clearJumboFlag)"
                        } else {
                            ""
                        }
                    ),
                    first_at_ms: sim.now_ms(),
                    times: 1,
                });
            }
        }
        blockers
    }

    fn finish(self, sim: &Simulator, c: usize, drains: &[ShardIdx], ended: Ended) -> Prediction {
        let cl = &sim.cluster;
        let coll = &cl.collections[c];
        let not_balanced_why = self.balanced_at_ms.is_none().then(|| {
            let mut why = match sim.balancer_compliance(c) {
                Some(reason) => format!(
                    "not reached by {} s: the policy still moves chunks ({})",
                    ended.until_ms / 1000,
                    reason.as_str()
                ),
                None if coll.resharding.is_some() => "the resharding had not ended".into(),
                None if sim.cluster.balancer.migrating_in(&coll.ns) => {
                    "not reached: a migration was still in flight".into()
                }
                None => "not reached: a draining shard still holds its chunks".into(),
            };
            if !cl.settings.balancer_enabled {
                why.push_str("; the balancer is stopped");
            }
            if !self.why_not.is_empty() {
                why.push_str(&format!("; the last round: {}", self.why_not.join("; ")));
            }
            why
        });
        let blockers = self.blockers_at_end(sim, c);
        let added = &ended.added;
        let shards = (0..cl.shards.len())
            .filter(|&s| !cl.shards[s].removed && !cl.shards[s].unlisted)
            .map(|s| {
                let t = coll.table.shard_totals(ShardIdx(s as u32));
                let id = cl.shard_id(ShardIdx(s as u32)).to_string();
                ShardEnd {
                    added: added.contains(&id),
                    shard: id,
                    chunks: t.chunks,
                    jumbo: t.jumbo,
                    docs: t.stats.docs,
                    bytes: t.stats.bytes,
                    draining: cl.shards[s].shard.draining,
                }
            })
            .collect();
        let drained_at_ms = (drains.iter().zip(&self.drained_coll))
            .map(|(s, at)| (cl.shard_id(*s).to_string(), *at))
            .collect();
        let drain_list = (drains.iter().zip(&self.drained))
            .map(|(s, at)| DrainPrediction {
                shard: cl.shard_id(*s).to_string(),
                drained_at_ms: *at,
                dbs_to_move: sim.dbs_to_move(*s),
            })
            .collect();
        Prediction {
            forked_at_ms: ended.forked_at_ms,
            until_ms: ended.until_ms,
            ended_ms: sim.now_ms(),
            added: ended.added.clone(),
            collection: CollectionPrediction {
                ns: self.ns,
                balanced_at_ms: self.balanced_at_ms,
                not_balanced_why,
                last_migration_at_ms: self.last_migration_at_ms,
                migrations: self.migrations,
                failed: self.failed,
                bytes_moved: self.bytes_moved,
                drained_at_ms,
                blockers,
                shards,
                reshard: self.reshard,
            },
            drains: drain_list,
            refused: ended.refused,
        }
    }
}

#[cfg(test)]
mod tests;
