//! `reshardCollection` (5.0+): the collection is rewritten under a new shard key while it stays
//! readable and writable, in virtual time.
//!
//! As in MongoDB: the command is refused before 5.0 (CommandNotFound); a recipient refuses a
//! unique index (other than `_id`) that the new key does not prefix; the operation lasts at least
//! `reshardingMinimumOperationDurationMillis` (300,000 ms) or the time to clone the data at the
//! migration rate, whichever is longer; the balancer does not migrate the collection meanwhile; at
//! the end the donors block writes for a critical section while the recipients apply the last
//! oplog entries, and when that cannot finish within `reshardingCriticalSectionTimeoutMillis`
//! (5,000 ms) the whole operation is aborted and the old layout stays. Committing installs a new
//! incarnation (new uuid, epoch and timestamp) with chunks chosen from the data.
//!
//! Simplified: the new chunks' bounds are exact quantiles of the documents re-keyed to the new
//! pattern (MongoDB samples `numInitialChunks` × 10 documents with `$sample`), and they are dealt
//! out to the shards round-robin; `numInitialChunks` defaults by release line
//! ([`crate::cluster::ServerVersion::resharding_default_initial_chunks`]). The critical section
//! starts only once the recipients' estimated remaining time is under
//! `remainingReshardingOperationTimeThresholdMillis` (2,000 ms; 500 ms from 8.1). The recipients are modelled as
//! lagging one to two seconds behind the donors' oplog and applying 2,000 entries per second each,
//! so the critical section lasts 100 ms plus that backlog's apply time. Zone ranges of the old key
//! are dropped (the command's `zones` option is not simulated). Writes that arrive during the
//! critical section wait and are applied when it ends (to the new layout, or the old one after an
//! abort); none is lost.

use crate::cluster::Placement;
use crate::cluster::error::MongoError;
use crate::cluster::event::EventKind;
use crate::cluster::resharding::{BlockedWrite, CriticalSection, Resharding};
use crate::model::{KeyPattern, KeyValue};
use crate::model::{ShardIdx, ShardKey};
use crate::sim::engine::Simulator;
use crate::sim::resharding::reshard_layout::ReshardRequest;

/// Fixed cost of the critical section: block writes, apply the last batch, commit the metadata.
const CRITICAL_SECTION_BASE_MS: u64 = 100;
/// Oplog entries one recipient applies per second.
const OPLOG_APPLY_PER_SEC_PER_RECIPIENT: u64 = 2_000;

impl Simulator {
    /// `reshardCollection {ns, key, numInitialChunks}`: starts resharding `ns` to `key`.
    pub fn reshard_collection(
        &mut self,
        ns: &str,
        key: KeyPattern,
        num_initial_chunks: Option<u32>,
    ) -> Result<(), MongoError> {
        self.reshard_collection_with(ns, key, num_initial_chunks, false)
    }

    /// `reshardCollection` with `forceRedistribution` (7.2+): to the same key it is a no-op
    /// unless forced, when the data is re-placed over the shards as for a new key.
    // 8.0.10 `db/s/resharding/resharding_coordinator_service.cpp` (same key without
    // `forceRedistribution`: nothing to do); the option is new in 7.2 (IDL: unknown before).
    pub fn reshard_collection_with(
        &mut self,
        ns: &str,
        key: KeyPattern,
        num_initial_chunks: Option<u32>,
        force_redistribution: bool,
    ) -> Result<(), MongoError> {
        self.start_resharding(
            ns,
            ReshardRequest {
                num_initial_chunks,
                force_redistribution,
                ..ReshardRequest::new(key)
            },
        )
    }

    /// Starts resharding `ns` as `req` asks (`reshardCollection`, `moveCollection`,
    /// `unshardCollection`).
    pub fn start_resharding(&mut self, ns: &str, req: ReshardRequest) -> Result<(), MongoError> {
        let ReshardRequest {
            key,
            num_initial_chunks,
            force_redistribution,
            ..
        } = req.clone();
        if force_redistribution && self.cluster.version < crate::cluster::ServerVersion::V7_2 {
            return Err(MongoError::unknown_field(
                "BSON field 'reshardCollection.forceRedistribution' is an unknown field.",
            ));
        }
        if self.cluster.version < crate::cluster::ServerVersion::V5_0 {
            return Err(MongoError::command_not_found(
                "no such command: 'reshardCollection'",
            ));
        }
        let c = if req.provenance.ends_unsplittable() {
            self.cluster.collection_index(ns).ok_or_else(|| {
                MongoError::namespace_not_found(format!(
                    "Collection '{ns}' not found in cluster catalog"
                ))
            })?
        } else {
            self.coll(ns)?
        };
        let coll = &self.cluster.collections[c];
        if coll.resharding.is_some() {
            return Err(MongoError::reshard_collection_in_progress(format!(
                "a resharding operation is already in progress for {ns}"
            )));
        }
        if num_initial_chunks == Some(0) {
            return Err(MongoError::bad_value("numInitialChunks must be at least 1"));
        }
        if key == coll.pattern && !force_redistribution {
            return Ok(());
        }
        self.check_distribution(c, &req)?;
        let coll = &self.cluster.collections[c];
        let Some(store) = coll.docs.as_ref() else {
            return Err(MongoError::illegal_operation(
                "the simulator did not keep this collection's documents (scenario: keepDocuments)",
            ));
        };
        let docs = store.docs.len() as u64;
        if !req.provenance.ends_unsplittable() {
            // One shard keeps any unique index.
            self.refuse_unique_index_conflict(c, ns, &key)?;
        }
        let coll = &self.cluster.collections[c];
        let bytes: u64 = (0..self.cluster.shards.len())
            .map(|s| coll.table.shard_totals(ShardIdx(s as u32)).stats.bytes)
            .sum();
        let rate = self.cluster.settings.migration_bytes_per_sec.max(1);
        let clone_ms = (bytes.saturating_mul(1000) / rate).max(
            self.cluster
                .settings
                .resharding
                .minimum_operation_duration_ms,
        );
        let current = self.cluster.collections[c].table.len();
        let chunks = num_initial_chunks.unwrap_or_else(|| {
            self.cluster
                .version
                .resharding_default_initial_chunks(current)
        });
        let now = self.cluster.now_ms;
        let zones = self.zones_after_resharding(c, &req)?;
        let mut r = Resharding::new(key.clone(), chunks, now, now + clone_ms);
        r.provenance = req.provenance;
        r.distribution = req.distribution;
        r.zones = zones;
        let coll = &mut self.cluster.collections[c];
        coll.resharding = Some(r);
        if req.provenance.ends_unsplittable() && coll.placement == Placement::Untracked {
            // 8.0 `_shardsvrReshardCollection`: an untracked collection is tracked first.
            coll.placement = Placement::Unsplittable;
        }
        self.emit(EventKind::ReshardingStarted {
            ns: ns.to_string(),
            key,
            docs,
            bytes,
            clone_ms,
            num_initial_chunks: chunks,
            provenance: req.provenance,
        });
        Ok(())
    }

    /// A recipient refuses a unique index (other than `_id`) that the new key does not prefix.
    fn refuse_unique_index_conflict(
        &mut self,
        c: usize,
        ns: &str,
        key: &KeyPattern,
    ) -> Result<(), MongoError> {
        let coll = &self.cluster.collections[c];
        let id = KeyPattern::parse_json(r#"{"_id": 1}"#).map_err(|e| MongoError::bad_value(e.0))?;
        let conflict = coll.indexes.iter().find(|i| {
            i.unique && i.key != id && !crate::sim::ops::is_field_name_prefix(key, &i.key)
        });
        if let Some(index) = conflict {
            let recipient = self.recipients().first().copied().unwrap_or(ShardIdx(0));
            let error = MongoError::invalid_options(format!(
                "Recipient shard {} reached an unrecoverable error :: caused by :: can't shard collection '{ns}' with unique index on {}, proposed shard key {} and collation {{}}. Uniqueness can't be maintained unless shard key is a prefix and has simple collation",
                self.cluster.shard_id(recipient),
                index.key.server_text(),
                key.server_text()
            ));
            self.emit(EventKind::ReshardingAborted {
                ns: ns.to_string(),
                key: key.clone(),
                error: error.clone(),
            });
            return Err(error);
        }
        Ok(())
    }

    /// Shards that receive chunks of a new layout: not removed, not draining.
    pub(in crate::sim) fn recipients(&self) -> Vec<ShardIdx> {
        (0..self.cluster.shards.len())
            .filter(|&s| !self.cluster.shards[s].removed && !self.cluster.shards[s].shard.draining)
            .map(|s| ShardIdx(s as u32))
            .collect()
    }

    /// Moves every resharding forward: starts the critical section when cloning is done, commits
    /// or aborts when it ends.
    pub(in crate::sim) fn advance_reshardings(&mut self) {
        let now = self.cluster.now_ms;
        let recipients = self.recipients().len().max(1) as u64;
        let timeout = self.cluster.settings.resharding.critical_section_timeout_ms;
        let threshold = self
            .cluster
            .version
            .resharding_remaining_time_threshold_ms();
        for c in 0..self.cluster.collections.len() {
            let Some(r) = self.cluster.collections[c].resharding.as_mut() else {
                continue;
            };
            match &r.critical_section {
                None if now >= r.ready_ms => {
                    let remaining =
                        r.backlog(now) * 1000 / (OPLOG_APPLY_PER_SEC_PER_RECIPIENT * recipients);
                    if remaining >= threshold {
                        continue;
                    }
                    let needed = CRITICAL_SECTION_BASE_MS + remaining;
                    r.critical_section = Some(CriticalSection {
                        started_ms: now,
                        ends_ms: now + needed.min(timeout),
                        times_out: needed > timeout,
                        blocked: Vec::new(),
                    });
                }
                Some(cs) if now >= cs.ends_ms => {
                    if cs.times_out {
                        let error = MongoError::resharding_critical_section_timeout(
                            "Resharding critical section timed out.",
                        );
                        self.abort_resharding(c, error);
                    } else {
                        self.commit_resharding(c);
                    }
                }
                _ => {}
            }
        }
    }

    /// Ends resharding collection `c` with an error: the old layout stays.
    pub(in crate::sim) fn abort_resharding(&mut self, c: usize, error: MongoError) {
        let coll = &mut self.cluster.collections[c];
        let Some(r) = coll.resharding.take() else {
            return;
        };
        let ns = coll.ns.clone();
        if let Some(path) = self.reshard_origins.remove(&ns) {
            self.action_failed(path, "reshardCollection", error.clone());
        }
        self.emit(EventKind::ReshardingAborted {
            ns,
            key: r.key,
            error,
        });
        self.release_blocked(c, r.critical_section);
    }

    fn commit_resharding(&mut self, c: usize) {
        self.flush_writes(c);
        let recipients = self.recipients();
        let now = self.cluster.now_ms;
        let coll = &mut self.cluster.collections[c];
        let Some(r) = coll.resharding.take() else {
            return;
        };
        let entries: Vec<(ShardKey, u64)> = coll.docs.as_ref().map_or_else(Vec::new, |store| {
            store
                .docs
                .iter()
                .filter_map(|(values, bytes)| {
                    r.key
                        .key_of(store.values_for(&r.key, values))
                        .ok()
                        .map(|k| (k, *bytes))
                })
                .collect()
        });
        coll.keys.rebuild(entries);
        let members = self.zone_members(r.zones.as_deref().unwrap_or_default());
        let coll = &mut self.cluster.collections[c];
        let layout = if splits_like_empty_hashed(self.cluster.version, &r) {
            {
                // Split as an empty hashed collection would be: one chunk per shard not draining.
                let primary = recipients.first().copied().unwrap_or(ShardIdx(0));
                let table = self.initial_table(&r.key, primary, None);
                let coll = &self.cluster.collections[c];
                let mut out = Vec::with_capacity(table.len());
                for ch in table.iter() {
                    out.push((
                        ch.min.clone(),
                        ch.info.shard,
                        coll.keys.stats(ch.min, ch.max),
                    ));
                }
                out
            }
        } else {
            crate::sim::resharding::reshard_layout::new_layout(coll, &r, &recipients, &members)
        };
        let coll = &mut self.cluster.collections[c];
        let zones = r.zones.clone().unwrap_or_default();
        let unsplittable = r.provenance.ends_unsplittable();
        if coll
            .install_resharded(r.key.clone(), &layout, &zones, now / 1000)
            .is_err()
        {
            coll.resharding = Some(r);
            let error = MongoError::illegal_operation("could not build the new routing table");
            self.abort_resharding(c, error);
            return;
        }
        coll.placement = if unsplittable {
            Placement::Unsplittable
        } else {
            Placement::Sharded
        };
        let ns = coll.ns.clone();
        for w in &mut self.workloads {
            if w.coll_ns == ns {
                w.key_sources = crate::sim::scenario::setup::key_sources(&r.key, &w.fields);
            }
        }
        let (critical_ms, blocked) = r
            .critical_section
            .as_ref()
            .map_or((0, 0), |cs| (now - cs.started_ms, cs.blocked.len() as u64));
        self.emit(EventKind::ReshardingCommitted {
            ns,
            key: r.key.clone(),
            layout,
            zones,
            unsplittable,
            millis: now - r.started_ms,
            critical_section_ms: critical_ms,
            blocked_writes: blocked,
        });
        self.release_blocked(c, r.critical_section);
    }

    /// Applies the writes the critical section held back, to the layout now in place.
    fn release_blocked(&mut self, c: usize, cs: Option<CriticalSection>) {
        for b in cs.map(|cs| cs.blocked).unwrap_or_default() {
            let Some(run) = self.workloads.get(b.workload) else {
                continue;
            };
            let key_values = run
                .key_sources
                .iter()
                .map(|s| s.map_or(KeyValue::Null, |k| b.values[k].clone()))
                .collect();
            self.insert(c, key_values, Some(b.values), b.bytes);
        }
    }

    /// Holds back a generated write when its collection is in a resharding critical section;
    /// gives it back otherwise.
    pub(in crate::sim) fn block_if_critical(
        &mut self,
        c: usize,
        write: BlockedWrite,
    ) -> Option<BlockedWrite> {
        let cs = self.cluster.collections[c]
            .resharding
            .as_mut()
            .and_then(|r| r.critical_section.as_mut());
        match cs {
            Some(cs) => {
                cs.blocked.push(write);
                None
            }
            None => Some(write),
        }
    }
}

/// From 8.2 a resharding to a key whose first field is hashed, with no `shardDistribution` and no
/// zones, ignores `numInitialChunks` and splits as `shardCollection` splits an empty hashed
/// collection (one chunk per shard not draining, from 8.0).
// Seed 003's 9.0.2 output (a 90-chunk request ends as 3 chunks on 3 shards); the 8.2 boundary is
// the issue's reading, not read on a release tag. The split itself: 8.0.10
// `db/s/config/initial_split_policy.cpp` (`SplitPointsBasedSplitPolicy`).
fn splits_like_empty_hashed(version: crate::cluster::ServerVersion, r: &Resharding) -> bool {
    version >= crate::cluster::ServerVersion::V8_2
        && r.key.hashed_field() == Some(0)
        && r.distribution.is_empty()
        && r.zones.as_ref().is_none_or(Vec::is_empty)
}
