//! Building a simulator from a scenario, and carrying out its scheduled actions.

use super::cluster::{Cluster, Settings};
use super::engine::{Simulator, WorkloadRun};
use super::error::SimError;
use super::event::SplitCause;
use super::keygen::KeyGen;
use super::ops::ShardCollectionOptions;
use super::rng::Rng;
use super::scenario::{Action, CollectionSpec, DocSize, Op, Scenario, ShardsSpec, WorkloadSpec};
use super::version::ServerVersion;
use crate::model::{KeyPattern, Shard, ShardKey};

/// Chooses the generated field for each shard-key field (`None`: the field is absent → null).
pub fn key_sources(pattern: &KeyPattern, fields: &[(String, KeyGen)]) -> Vec<Option<usize>> {
    pattern
        .fields()
        .iter()
        .map(|f| fields.iter().position(|(n, _)| **n == *f.path))
        .collect()
}

fn pattern_of(value: &serde_json::Value, at: &str) -> Result<KeyPattern, String> {
    KeyPattern::parse_json(&value.to_string()).map_err(|e| format!("field `{at}`: {e}"))
}

fn document_of(value: &serde_json::Value, at: &str) -> Result<bson::Document, String> {
    match bson::Bson::try_from(value.clone()) {
        Ok(bson::Bson::Document(d)) => Ok(d),
        Ok(_) => Err(format!("field `{at}`: expected a document")),
        Err(e) => Err(format!("field `{at}`: not valid Extended JSON: {e}")),
    }
}

impl Simulator {
    /// A simulator at time 0 with the scenario's shards, collections, workloads and actions.
    /// Errors name the scenario field at fault.
    pub fn from_scenario(
        sc: &Scenario,
        seed: u64,
        version: Option<ServerVersion>,
    ) -> Result<Self, String> {
        let version = match (version, &sc.server_version) {
            (Some(v), _) => v,
            (None, Some(text)) => text
                .parse()
                .map_err(|e| format!("field `serverVersion`: {e}"))?,
            (None, None) => ServerVersion::DEFAULT,
        };
        let chunk_size_bytes = match sc.chunk_size_mb {
            Some(mb) if (1..=1024).contains(&mb) => mb << 20,
            Some(_) => return Err("field `chunkSizeMb`: must be between 1 and 1024".into()),
            None => version.default_chunk_size_bytes(),
        };
        let speed = sc.migration_mb_per_sec.unwrap_or(32.0);
        if !(speed.is_finite() && speed > 0.0) {
            return Err("field `migrationMbPerSec`: must be a positive number".into());
        }
        let settings = Settings {
            chunk_size_bytes,
            balancer_enabled: sc.balancer,
            active_window: None,
            migration_bytes_per_sec: (speed * f64::from(1u32 << 20)) as u64,
            migration_overhead_ms: 1000,
        };
        let cluster = Cluster {
            version,
            shards: Vec::new(),
            settings,
            databases: std::collections::BTreeMap::default(),
            collections: Vec::new(),
        };
        let mut sim = Self::empty(cluster);
        let shards: Vec<(String, f64)> = match &sc.shards {
            ShardsSpec::Count(n) if *n > 0 => (0..*n as usize)
                .map(|i| (Shard::default_name(i), 1.0))
                .collect(),
            ShardsSpec::Count(_) => return Err("field `shards`: at least one shard".into()),
            ShardsSpec::List(list) => list.iter().map(|s| (s.id.clone(), s.capacity)).collect(),
        };
        for (i, (id, capacity)) in shards.iter().enumerate() {
            sim.add_shard(id, *capacity)
                .map_err(|e| format!("field `shards[{i}]`: {e}"))?;
        }
        for (i, spec) in sc.collections.iter().enumerate() {
            sim.setup_collection(sc, spec, i)?;
        }
        for (i, w) in sc.workloads.iter().enumerate() {
            let run = sim.workload(w, i, seed)?;
            sim.workloads.push(run);
        }
        for (i, a) in sc.actions.iter().enumerate() {
            if !a.at.is_finite() || a.at < 0.0 {
                return Err(format!(
                    "field `actions[{i}].at`: must be a time in seconds, ≥ 0"
                ));
            }
        }
        let mut actions = sc.actions.clone();
        actions.sort_by_key(Action::at_ms);
        sim.actions = actions;
        sim.run_due_actions_at_zero();
        Ok(sim)
    }

    fn setup_collection(
        &mut self,
        sc: &Scenario,
        spec: &CollectionSpec,
        i: usize,
    ) -> Result<(), String> {
        let at = format!("collections[{i}]");
        let key = pattern_of(&spec.key, &format!("{at}.key"))?;
        if let Some(primary) = &spec.primary {
            let idx = self
                .cluster
                .shard_index(primary)
                .ok_or_else(|| format!("field `{at}.primary`: no shard {primary}"))?;
            let db = spec
                .ns
                .split_once('.')
                .map_or(spec.ns.as_str(), |(d, _)| d)
                .to_string();
            self.cluster.databases.insert(db, idx);
        }
        let opts = ShardCollectionOptions {
            unique: spec.unique,
            num_initial_chunks: spec.num_initial_chunks,
        };
        self.shard_collection(&spec.ns, key.clone(), &opts)
            .map_err(|e| format!("field `{at}`: {e}"))?;
        for (k, index) in spec.indexes.iter().enumerate() {
            let ikey = pattern_of(&index.key, &format!("{at}.indexes[{k}].key"))?;
            self.create_index(&spec.ns, ikey, index.unique)
                .map_err(|e| format!("field `{at}.indexes[{k}]`: {e}"))?;
        }
        let refines = sc
            .actions
            .iter()
            .any(|a| matches!(&a.op, Op::RefineCollectionShardKey { ns, .. } if *ns == spec.ns));
        if spec.keep_documents || refines {
            let fields = sc
                .workloads
                .iter()
                .filter(|w| w.ns == spec.ns)
                .flat_map(|w| w.fields.keys().cloned())
                .collect();
            let c = self.coll(&spec.ns).map_err(|e| e.to_string())?;
            self.keep_documents(c, fields);
        }
        if let Some(layout) = &spec.initial_layout {
            self.apply_layout(&spec.ns, &key, layout, &at)?;
        }
        Ok(())
    }

    /// Splits the new collection at the layout's points and places each chunk, instantly.
    fn apply_layout(
        &mut self,
        ns: &str,
        key: &KeyPattern,
        layout: &super::scenario::InitialLayout,
        at: &str,
    ) -> Result<(), String> {
        if layout.shards.len() != layout.split_points.len() + 1 {
            return Err(format!(
                "field `{at}.initialLayout.shards`: give one shard per chunk ({})",
                layout.split_points.len() + 1
            ));
        }
        let mut points = Vec::new();
        for (k, p) in layout.split_points.iter().enumerate() {
            let doc = document_of(p, &format!("{at}.initialLayout.splitPoints[{k}]"))?;
            points.push(
                key.bound_from_document(&doc)
                    .map_err(|e| format!("field `{at}.initialLayout.splitPoints[{k}]`: {e}"))?,
            );
        }
        let c = self.coll(ns).map_err(|e| e.to_string())?;
        if !points.is_empty() {
            self.split_chunk(c, 0, points, SplitCause::Command)
                .map_err(|e| format!("field `{at}.initialLayout.splitPoints`: {e}"))?;
        }
        for (k, id) in layout.shards.iter().enumerate() {
            let to = self
                .cluster
                .shard_index(id)
                .ok_or_else(|| format!("field `{at}.initialLayout.shards[{k}]`: no shard {id}"))?;
            let table = &mut self.cluster.collections[c].table;
            if table.chunk(k).info.shard != to {
                table.move_chunk(k, to, 0).map_err(|e| e.to_string())?;
            }
        }
        Ok(())
    }

    fn workload(&mut self, w: &WorkloadSpec, i: usize, seed: u64) -> Result<WorkloadRun, String> {
        let at = format!("workloads[{i}]");
        let c = self
            .coll(&w.ns)
            .map_err(|e| format!("field `{at}.ns`: {e}"))?;
        let mut rng = Rng::fork(seed, 100 + i as u64);
        let mut fields = Vec::new();
        for (name, spec) in &w.fields {
            let g = KeyGen::build(spec, &mut rng)
                .map_err(|e| format!("field `{at}.fields.{name}`: {e}"))?;
            fields.push((name.clone(), g));
        }
        if !(w.rate.is_finite() && w.rate >= 0.0) {
            return Err(format!(
                "field `{at}.rate`: must be a non-negative number of inserts per second"
            ));
        }
        let doc_bytes = match w.doc_size {
            DocSize::Fixed(n) => (n, n),
            DocSize::Range { min, max } if min <= max => (min, max),
            DocSize::Range { .. } => {
                return Err(format!("field `{at}.docSize`: min must not exceed max"));
            }
        };
        let pattern = &self.cluster.collections[c].pattern;
        Ok(WorkloadRun {
            coll_ns: w.ns.clone(),
            key_sources: key_sources(pattern, &fields),
            fields,
            rate_per_sec: w.rate,
            remaining: w.count,
            start_ms: (w.start.max(0.0) * 1000.0) as u64,
            stop_ms: w.stop.map(|s| (s.max(0.0) * 1000.0) as u64),
            doc_bytes,
            carry: 0.0,
            rng,
        })
    }

    fn run_due_actions_at_zero(&mut self) {
        while self
            .actions
            .get(self.next_action)
            .is_some_and(|a| a.at_ms() == 0)
        {
            let action = self.actions[self.next_action].clone();
            self.next_action += 1;
            if let Err(e) = self.apply_action(&action) {
                self.action_errors
                    .push(format!("t=0s {}: {e}", action.name()));
            }
        }
    }

    /// Carries out one scheduled action.
    pub(super) fn apply_action(&mut self, action: &Action) -> Result<(), SimError> {
        match &action.op {
            Op::AddShard { id, capacity } => self.add_shard(id, *capacity).map(|_| ()),
            Op::BalancerStart {} => {
                self.set_balancer(true);
                Ok(())
            }
            Op::BalancerStop {} => {
                self.set_balancer(false);
                Ok(())
            }
            Op::SetChunkSize { mb } => self.set_chunk_size_mb(*mb),
            Op::Split { ns, middle } => {
                let key = self.bound(ns, middle)?;
                self.split_at(ns, key)
            }
            Op::SplitFind { ns, find } => {
                let key = self.extracted(ns, find)?;
                self.split_find(ns, &key)
            }
            Op::MoveChunk {
                ns,
                find,
                to,
                force_jumbo,
            } => {
                let key = self.extracted(ns, find)?;
                if *force_jumbo {
                    self.move_chunk_forced(ns, &key, to)
                } else {
                    self.move_chunk(ns, &key, None, to)
                }
            }
            Op::RemoveShard { id } => self.remove_shard(id).map(|_| ()),
            Op::MoveZoneLowerBoundToNow { ns, zone } => self.move_zone_lower_bound_to_now(ns, zone),
            Op::MoveRange { ns, min, max, to } => {
                let key = self.bound(ns, min)?;
                let upto = max.as_ref().map(|m| self.bound(ns, m)).transpose()?;
                self.move_chunk(ns, &key, upto.as_ref(), to)
            }
            Op::MergeChunks { ns, bounds } => {
                let (min, max) = (self.bound(ns, &bounds[0])?, self.bound(ns, &bounds[1])?);
                self.merge_chunks(ns, &min, &max)
            }
            Op::CreateIndex { ns, key, unique } => {
                let key = pattern_of(key, "key").map_err(SimError::bad_value)?;
                self.create_index(ns, key, *unique)
            }
            Op::AddShardToZone { shard, zone } => self.add_shard_to_zone(shard, zone),
            Op::RemoveShardFromZone { shard, zone } => self.remove_shard_from_zone(shard, zone),
            Op::UpdateZoneKeyRange { ns, min, max, zone } => {
                let min = document_of(min, "min").map_err(SimError::bad_value)?;
                let max = document_of(max, "max").map_err(SimError::bad_value)?;
                self.update_zone_key_range(ns, &min, &max, zone.as_deref())
            }
            Op::RefineCollectionShardKey { ns, key } => {
                let key = pattern_of(key, "key").map_err(SimError::bad_value)?;
                self.refine_shard_key(ns, key)
            }
        }
    }

    fn bound(&self, ns: &str, value: &serde_json::Value) -> Result<ShardKey, SimError> {
        let c = self.coll(ns)?;
        let doc = document_of(value, "bound").map_err(SimError::bad_value)?;
        self.cluster.collections[c]
            .pattern
            .bound_from_document(&doc)
            .map_err(|e| SimError::bad_value(e.0))
    }

    fn extracted(&self, ns: &str, value: &serde_json::Value) -> Result<ShardKey, SimError> {
        let c = self.coll(ns)?;
        let doc = document_of(value, "find").map_err(SimError::bad_value)?;
        self.cluster.collections[c]
            .pattern
            .extract(&doc)
            .map_err(|e| SimError::bad_value(e.0))
    }
}
