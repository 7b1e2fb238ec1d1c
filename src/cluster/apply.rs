//! Applying recorded events to a cluster state: how a replay reproduces a recorded state from a
//! keyframe, with no simulator. Every transition here is the one the simulator made when it
//! emitted the event.

use super::Cluster;
use super::balancer::{Migration, RoundInProgress};
use super::collection::Placement;
use super::event::{Event, EventKind, MigrationReason};
use super::resharding::Resharding;
use super::{Collection, Index, ShardState};
use crate::model::{ChunkInfo, ChunkVersion, RoutingTable, Shard, ShardKey};

/// A recorded event that does not fit the state it is applied to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApplyError(pub String);

impl std::fmt::Display for ApplyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ApplyError {}

fn fail<T>(msg: impl Into<String>) -> Result<T, ApplyError> {
    Err(ApplyError(msg.into()))
}

impl Cluster {
    fn coll_mut(&mut self, ns: &str) -> Result<&mut Collection, ApplyError> {
        match self.collection_index(ns) {
            Some(c) => Ok(&mut self.collections[c]),
            None => fail(format!("unknown collection {ns}")),
        }
    }

    fn chunk_at(coll: &Collection, min: &ShardKey) -> Result<usize, ApplyError> {
        coll.table.find_by_min(min).ok_or_else(|| {
            let at = crate::model::shell_text::document(&coll.pattern.bound_to_document(min));
            ApplyError(format!("{}: no chunk starts at {at}", coll.ns))
        })
    }

    /// Moves the clock to `at_ms`, closing the writes of earlier ticks into the windows (a replay
    /// before each event, a live poll at each poll).
    pub fn advance_clock(&mut self, at_ms: u64) {
        if at_ms > self.now_ms {
            self.close_open_ticks();
            self.now_ms = at_ms;
        }
    }

    /// Closes the open tick of every collection (writes recorded but not yet in the window).
    pub fn close_open_ticks(&mut self) {
        for coll in &mut self.collections {
            coll.close_tick(self.now_ms);
        }
    }

    /// Applies one recorded event.
    #[allow(clippy::too_many_lines)] // one arm per event kind
    pub fn apply(&mut self, e: &Event) -> Result<(), ApplyError> {
        self.advance_clock(e.at_ms);
        self.note_outcome(e);
        match &e.kind {
            EventKind::ShardAdded { id, .. } => {
                self.shards.push(ShardState {
                    shard: Shard::new(id.clone()),
                    capacity: 1.0,
                    removed: false,
                    unlisted: false,
                });
            }
            EventKind::CollectionSharded { .. }
            | EventKind::SplitFailed { .. }
            | EventKind::IndexCreated { .. }
            | EventKind::IndexDropped { .. }
            | EventKind::CollectionDropped { .. }
            | EventKind::PendingZoneRangeSet { .. }
            | EventKind::ShardKeyUpdated { .. }
            | EventKind::DocumentDeleted { .. }
            | EventKind::ReshardingStarted { .. }
            | EventKind::ReshardingCommitted { .. }
            | EventKind::ReshardingAborted { .. } => self.apply_catalog(e)?,
            EventKind::Split {
                ns,
                min,
                points,
                pieces,
                ..
            } => {
                let coll = self.coll_mut(ns)?;
                let i = Self::chunk_at(coll, min)?;
                coll.table
                    .split(i, points, pieces)
                    .map_err(|err| ApplyError(err.to_string()))?;
            }
            EventKind::Merge { ns, min, max, .. } => {
                let coll = self.coll_mut(ns)?;
                let first = Self::chunk_at(coll, min)?;
                let end = if max == coll.table.global_max() {
                    coll.table.len()
                } else {
                    Self::chunk_at(coll, max)?
                };
                coll.table
                    .merge(first..end)
                    .map_err(|err| ApplyError(err.to_string()))?;
            }
            EventKind::JumboMarked { ns, min, .. } => {
                let coll = self.coll_mut(ns)?;
                let i = Self::chunk_at(coll, min)?;
                coll.table.set_jumbo(i, true);
            }
            EventKind::RangeDeleted {
                ns,
                min,
                max,
                shard,
                ..
            } => {
                let coll = self.coll_mut(ns)?;
                if !coll.finish_deletion(*shard, min, max) {
                    return fail(format!("no orphaned range to delete on {shard}"));
                }
            }
            EventKind::JumboCleared { ns, min, .. } => {
                let coll = self.coll_mut(ns)?;
                let i = Self::chunk_at(coll, min)?;
                coll.table.clear_jumbo(i);
            }
            EventKind::MigrationStarted { .. }
            | EventKind::MigrationCommitted { .. }
            | EventKind::MigrationFailed { .. } => {
                self.apply_migration(e)?;
            }
            EventKind::BalancerRoundStarted {
                round,
                candidates,
                why_not,
            } => {
                self.balancer.rounds = *round;
                self.balancer.why_not.clone_from(why_not);
                self.balancer.round = Some(RoundInProgress {
                    number: *round,
                    started_ms: e.at_ms,
                    candidates: *candidates,
                    migration_ids: Vec::new(),
                    moved: 0,
                    failed: 0,
                });
            }
            EventKind::BalancerRound { .. } => self.balancer.round = None,
            EventKind::BalancerIdle { why_not } => self.balancer.why_not.clone_from(why_not),
            EventKind::ActionFailed {
                path,
                command,
                error,
            } => self.record_failed_action(super::failed_actions::FailedAction {
                path: path.clone(),
                command: command.clone(),
                at_ms: e.at_ms,
                error: error.clone(),
            }),
            EventKind::BalancerSet { enabled } => self.settings.balancer_enabled = *enabled,
            EventKind::AutoMergerSet { enabled } => self.settings.auto_merge = *enabled,
            EventKind::AttemptToBalanceJumboChunksSet { enabled } => {
                self.settings.attempt_to_balance_jumbo_chunks = *enabled;
            }
            EventKind::ChunkSizeSet { bytes } => self.settings.chunk_size_bytes = *bytes,
            EventKind::CollectionBalancingSet {
                ns,
                max_chunk_size_bytes,
                auto_merge,
                no_balance,
                migrations_blocked,
            } => {
                self.coll_mut(ns)?.balancing = super::CollectionBalancing {
                    max_chunk_size_bytes: *max_chunk_size_bytes,
                    auto_merge: *auto_merge,
                    no_balance: *no_balance,
                    migrations_blocked: *migrations_blocked,
                };
            }
            EventKind::DefragmentationPhaseSet { ns, phase } => {
                self.coll_mut(ns)?.defragmentation = *phase;
            }
            EventKind::KeyRefined { ns, key } => {
                let coll = self.coll_mut(ns)?;
                coll.refine_key(key.clone())
                    .map_err(|err| ApplyError(err.to_string()))?;
            }
            EventKind::ShardDraining { shard } | EventKind::ShardRemoved { shard } => {
                let removed = matches!(e.kind, EventKind::ShardRemoved { .. });
                let Some(state) = self.shards.get_mut(shard.index()) else {
                    return fail(format!("unknown shard {shard}"));
                };
                state.shard.draining = !removed;
                state.removed = removed;
                if removed {
                    self.reassign_primaries(*shard);
                }
            }
            EventKind::ShardDrainingStopped { shard } => {
                let Some(state) = self.shards.get_mut(shard.index()) else {
                    return fail(format!("unknown shard {shard}"));
                };
                state.shard.draining = false;
            }
            EventKind::PrimaryMoved { db, to, .. } => {
                if self.shards.get(to.index()).is_none() {
                    return fail(format!("unknown shard {to}"));
                }
                self.databases.insert(db.clone(), *to);
                self.move_untracked_collections(db, *to);
            }
            EventKind::ShardZoneSet {
                shard,
                zone,
                member,
            } => {
                let Some(s) = self.shards.get_mut(shard.index()) else {
                    return fail(format!("unknown shard {shard}"));
                };
                if *member {
                    s.shard.zones.insert(zone.clone());
                } else {
                    s.shard.zones.remove(zone);
                }
            }
            EventKind::ZoneRangeSet { ns, min, max, zone } => {
                let coll = self.coll_mut(ns)?;
                let done = match zone {
                    Some(z) => coll.zones.add(min.clone(), max.clone(), z.clone()),
                    None => coll.zones.remove(min, max).map(|_| ()),
                };
                done.map_err(|err| ApplyError(err.to_string()))?;
            }
            EventKind::Writes { ns, chunks } => {
                let coll = self.coll_mut(ns)?;
                for w in chunks {
                    let i = Self::chunk_at(coll, &w.min)?;
                    let shard = coll.table.chunk(i).info.shard;
                    coll.table.add_stats(i, w.stats);
                    coll.count_routed_writes(shard, w.stats.writes);
                    coll.pending
                        .record_reported(w.sample.clone(), shard, w.stats.writes);
                }
            }
        }
        Ok(())
    }

    fn apply_catalog(&mut self, e: &Event) -> Result<(), ApplyError> {
        match &e.kind {
            EventKind::CollectionSharded {
                ns, key, layout, ..
            } => {
                let chunks: Vec<(ShardKey, ChunkInfo)> = layout
                    .iter()
                    .enumerate()
                    .map(|(i, (min, shard))| {
                        (
                            min.clone(),
                            ChunkInfo::new(*shard, ChunkVersion::new(1, i as u32)),
                        )
                    })
                    .collect();
                let table = RoutingTable::from_chunks(chunks, key.global_max())
                    .map_err(|err| ApplyError(err.to_string()))?;
                let at = self
                    .collections
                    .partition_point(|c| c.ns.as_str() < ns.as_str());
                let mut coll = Collection::new(ns, key.clone(), table);
                coll.zones = super::zones::zones_for(&self.pending_zones, ns, key)
                    .map_err(|err| ApplyError(err.to_string()))?;
                self.pending_zones.retain(|r| r.ns != *ns);
                self.collections.insert(at, coll);
            }
            EventKind::IndexCreated { ns, key, unique } => {
                let coll = self.coll_mut(ns)?;
                if !coll.indexes.iter().any(|i| i.key == *key) {
                    coll.indexes.push(Index {
                        key: key.clone(),
                        unique: *unique,
                    });
                }
            }
            EventKind::PendingZoneRangeSet { ns, min, max, zone } => match zone {
                Some(z) => {
                    self.pending_zones.push(super::zones::PendingZoneRange {
                        ns: ns.clone(),
                        min: (**min).clone(),
                        max: (**max).clone(),
                        zone: z.clone(),
                    });
                }
                None => {
                    self.pending_zones
                        .retain(|r| !(r.ns == *ns && r.min == **min && r.max == **max));
                }
            },
            EventKind::ShardKeyUpdated {
                ns,
                from,
                to,
                bytes,
            } => self.coll_mut(ns)?.move_document(from, to, *bytes),
            EventKind::DocumentDeleted { ns, key, bytes } => {
                self.coll_mut(ns)?.delete_document(key, *bytes);
            }
            EventKind::IndexDropped { ns, key } => {
                self.coll_mut(ns)?.indexes.retain(|i| i.key != *key);
            }
            EventKind::CollectionDropped { ns } => {
                self.coll_mut(ns)?;
                self.collections.retain(|c| c.ns != *ns);
                self.pending_zones.retain(|r| r.ns != *ns);
                self.balancer.in_flight.retain(|m| m.ns != *ns);
            }
            EventKind::ReshardingStarted { .. } | EventKind::ReshardingCommitted { .. } => {
                self.apply_resharding(e)?;
            }
            EventKind::ReshardingAborted { ns, .. } => self.coll_mut(ns)?.resharding = None,
            _ => {}
        }
        Ok(())
    }

    fn apply_resharding(&mut self, e: &Event) -> Result<(), ApplyError> {
        match &e.kind {
            EventKind::ReshardingStarted {
                ns,
                key,
                clone_ms,
                num_initial_chunks,
                provenance,
                ..
            } => {
                let coll = self.coll_mut(ns)?;
                let mut r = Resharding::new(
                    key.clone(),
                    *num_initial_chunks,
                    e.at_ms,
                    e.at_ms + clone_ms,
                );
                r.provenance = *provenance;
                coll.resharding = Some(r);
                if provenance.ends_unsplittable() && coll.placement == Placement::Untracked {
                    coll.placement = Placement::Unsplittable;
                }
            }
            EventKind::ReshardingCommitted {
                ns,
                key,
                layout,
                zones,
                unsplittable,
                ..
            } => {
                let coll = self.coll_mut(ns)?;
                coll.install_resharded(key.clone(), layout, zones, e.at_ms / 1000)
                    .map_err(ApplyError)?;
                coll.placement = if *unsplittable {
                    Placement::Unsplittable
                } else {
                    Placement::Sharded
                };
            }
            _ => {}
        }
        Ok(())
    }

    fn apply_migration(&mut self, e: &Event) -> Result<(), ApplyError> {
        match &e.kind {
            EventKind::MigrationStarted {
                range: r,
                reason,
                bytes,
            } => {
                let coll = self.coll_mut(&r.ns)?;
                let i = Self::chunk_at(coll, &r.min)?;
                let end = (r.max != *coll.table.chunk(i).max).then(|| r.max.clone());
                self.balancer.in_flight.push(Migration {
                    id: r.id,
                    ns: r.ns.clone(),
                    min: r.min.clone(),
                    end,
                    max: r.max.clone(),
                    from: r.from,
                    to: r.to,
                    started_ms: e.at_ms,
                    finish_ms: u64::MAX,
                    bytes: Some(*bytes),
                    bytes_estimated: false,
                    reason: *reason,
                });
                if let Some(round) = self
                    .balancer
                    .round
                    .as_mut()
                    .filter(|_| *reason != MigrationReason::Manual)
                {
                    round.migration_ids.push(r.id);
                }
                self.next_migration_id = self.next_migration_id.max(r.id + 1);
            }
            EventKind::MigrationCommitted {
                range: r, moved, ..
            } => {
                let forced = self
                    .balancer
                    .in_flight
                    .iter()
                    .any(|m| m.id == r.id && m.reason == MigrationReason::ManualForce);
                self.balancer.in_flight.retain(|m| m.id != r.id);
                let now_secs = e.at_ms / 1000;
                let coll = self.coll_mut(&r.ns)?;
                let i = Self::chunk_at(coll, &r.min)?;
                let end = (r.max != *coll.table.chunk(i).max).then_some(&r.max);
                coll.table
                    .move_range(i, end, *moved, r.to, now_secs)
                    .map_err(|err| ApplyError(err.to_string()))?;
                if forced {
                    coll.table.set_jumbo(i, false);
                }
                self.balancer.completed += 1;
                if let Some(c) = self.collection_index(&r.ns) {
                    self.leave_orphans(c, (r.from, &r.min, &r.max), *moved, e.at_ms);
                }
            }
            EventKind::MigrationFailed { range: r, .. } => {
                self.balancer.in_flight.retain(|m| m.id != r.id);
                self.balancer.failed += 1;
            }
            _ => {}
        }
        Ok(())
    }
}
