//! The changes of a what-if applied at the fork, in their order, through the simulator's own
//! commands (`addShard`, `chunksize`, `activeWindow`, `balancerStart`/`Stop`, `removeShard`,
//! `reshardCollection`) with MongoDB's refusals kept: the one step `predict` and the TUI's fork
//! share.
//!
//! Owns: that step. May not touch: I/O, the run that follows it.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use super::{Changes, ReshardPrediction};
use crate::cluster::MongoError;
use crate::model::{KeyPattern, ShardIdx};
use crate::sim::engine::Simulator;

/// How far a what-if runs past the fork when not told: a day of the source's clock.
pub const DEFAULT_SPAN_MS: u64 = 24 * 3600 * 1000;

/// A fork's making or run watched from another thread: the flag that ends it early (checked
/// between two shards added and between two ticks) and how far it got.
#[derive(Debug, Default)]
pub struct Watch {
    pub cancelled: AtomicBool,
    /// Shards added so far.
    pub added: AtomicU64,
}

impl Watch {
    pub fn cancel(&self) {
        self.cancelled.store(true, Ordering::Relaxed);
    }

    pub fn is_cancelled(&self) -> bool {
        self.cancelled.load(Ordering::Relaxed)
    }
}

/// What applying the changes did.
#[derive(Clone, Debug, PartialEq)]
pub struct Applied {
    /// The shards added, by name.
    pub added: Vec<String>,
    /// Changes the cluster refused.
    pub refused: Vec<String>,
    /// The reshard started, when one was asked.
    pub reshard: Option<ReshardPrediction>,
}

/// The changes applied to a fork of collection `c` at its clock, in [`Changes`]' order, through
/// the simulator's own commands (`addShard`, `chunksize`, `activeWindow`, `balancerStart`/`Stop`,
/// `removeShard`, `reshardCollection`): the one step [`predict`] and the TUI's fork share.
pub fn apply_changes(sim: &mut Simulator, c: usize, changes: &Changes) -> Applied {
    apply_watched(sim, c, changes, &Watch::default())
}

/// [`apply_changes`], watched: the shards added counted in `watch`, and no more added once it is
/// cancelled (the caller sees the flag and drops the fork).
pub fn apply_watched(sim: &mut Simulator, c: usize, changes: &Changes, watch: &Watch) -> Applied {
    let mut refused = Vec::new();
    let added = apply(sim, changes, &mut refused, watch);
    let reshard = (changes.reshard.as_ref()).map(|key| start_reshard(sim, c, key));
    Applied {
        added,
        refused,
        reshard,
    }
}

/// The changes, applied through the simulator's own commands (their refusals kept).
fn apply(
    sim: &mut Simulator,
    changes: &Changes,
    refused: &mut Vec<String>,
    watch: &Watch,
) -> Vec<String> {
    let added = add_shards(sim, changes.add_shards, refused, watch);
    if let Some(mb) = changes.chunk_size_mb
        && let Err(e) = sim.set_chunk_size_mb(mb)
    {
        refused.push(format!("chunksize {mb}: {}", e.message));
    }
    if let Some(w) = changes.window {
        sim.cluster.settings.active_window = Some(w);
    }
    if let Some(on) = changes.balancer {
        sim.set_balancer(on);
    }
    for id in &changes.drain {
        if let Err(e) = sim.remove_shard(id) {
            refused.push(format!("removeShard {id}: {}", e.message));
        }
    }
    added
}

/// `count` empty shards added (`added01`, `added02`… skipping names taken), each of the mean
/// capacity of the live shards; stops at the first refusal (past `cluster::MAX_SHARDS`) or once
/// `watch` is cancelled.
fn add_shards(
    sim: &mut Simulator,
    count: u32,
    refused: &mut Vec<String>,
    watch: &Watch,
) -> Vec<String> {
    let mut added = Vec::new();
    let live: Vec<f64> = (sim.cluster.shards.iter())
        .filter(|s| !s.removed && !s.unlisted)
        .map(|s| s.capacity)
        .collect();
    let capacity = if live.is_empty() {
        1.0
    } else {
        live.iter().sum::<f64>() / live.len() as f64
    };
    let taken: HashSet<String> = (sim.cluster.shards.iter())
        .map(|s| s.shard.id.clone())
        .collect();
    let mut n = 0;
    while added.len() < count as usize && !watch.is_cancelled() {
        n += 1;
        let id = format!("added{n:02}");
        if taken.contains(&id) {
            continue;
        }
        match sim.add_shard(&id, capacity) {
            Ok(_) => {
                added.push(id);
                watch.added.fetch_add(1, Ordering::Relaxed);
            }
            Err(e) => {
                refused.push(format!("addShard {id}: {}", e.message));
                break;
            }
        }
    }
    added
}

fn start_reshard(sim: &mut Simulator, c: usize, key: &KeyPattern) -> ReshardPrediction {
    let coll = &sim.cluster.collections[c];
    let (mut docs, mut bytes) = (0, 0);
    for s in 0..sim.cluster.shards.len() {
        let t = coll.table.shard_totals(ShardIdx(s as u32)).stats;
        (docs, bytes) = (docs + t.docs, bytes + t.bytes);
    }
    let settings = &sim.cluster.settings;
    let minimum_duration_ms = settings.resharding.minimum_operation_duration_ms;
    // The cloning phase as `reshard.rs` times it: the data at the migration rate, at least
    // `reshardingMinimumOperationDurationMillis`.
    let clone_ms = (bytes.saturating_mul(1000) / settings.migration_bytes_per_sec.max(1))
        .max(minimum_duration_ms);
    let ns = coll.ns.clone();
    let has_docs = coll.docs.is_some();
    let (error, simulated) = match sim.reshard_collection(&ns, key.clone(), None) {
        Ok(()) if sim.cluster.collections[c].resharding.is_some() => (None, true),
        Ok(()) => (
            Some("the collection already has this shard key".into()),
            false,
        ),
        Err(e) if !has_docs => (Some(format!("not simulated: {}", e.message)), false),
        Err(e) => (Some(refusal(&e)), false),
    };
    ReshardPrediction {
        key: key.server_text(),
        bytes,
        docs,
        clone_ms,
        minimum_duration_ms,
        committed_at_ms: None,
        error,
        simulated,
    }
}

pub(super) fn refusal(e: &MongoError) -> String {
    format!("{}: {}", e.code_name, e.message)
}
