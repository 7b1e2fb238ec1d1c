//! Building a simulator from a scenario, and carrying out its scheduled actions.

use crate::cluster::event::SplitCause;
use crate::cluster::version::ServerVersion;
use crate::cluster::{Cluster, Settings};
use crate::model::{KeyPattern, Shard};
use crate::sim::engine::{Simulator, WorkloadRun};
use crate::sim::ops::ShardCollectionOptions;
use crate::sim::rng::Rng;
use crate::sim::scenario::keygen::KeyGen;
use crate::sim::scenario::{
    Action, CollectionSpec, DocSize, Op, Scenario, ShardsSpec, WorkloadSpec,
};

/// Chooses the generated field for each shard-key field (`None`: the field is absent → null).
pub fn key_sources(pattern: &KeyPattern, fields: &[(String, KeyGen)]) -> Vec<Option<usize>> {
    pattern
        .fields()
        .iter()
        .map(|f| fields.iter().position(|(n, _)| **n == *f.path))
        .collect()
}

pub(in crate::sim) fn pattern_of(
    value: &serde_json::Value,
    at: &str,
) -> Result<KeyPattern, String> {
    KeyPattern::parse_json(&value.to_string()).map_err(|e| format!("field `{at}`: {e}"))
}

pub(in crate::sim) fn document_of(
    value: &serde_json::Value,
    at: &str,
) -> Result<bson::Document, String> {
    match bson::Bson::try_from(value.clone()) {
        Ok(bson::Bson::Document(d)) => Ok(d),
        Ok(_) => Err(format!("field `{at}`: expected a document")),
        Err(e) => Err(format!("field `{at}`: not valid Extended JSON: {e}")),
    }
}

/// The scenario's resharding server parameters (MongoDB's defaults where it gives none).
fn resharding_params(
    sc: &Scenario,
) -> Result<crate::cluster::resharding::ReshardingParams, String> {
    let mut p = crate::cluster::resharding::ReshardingParams::default();
    if let Some(ms) = sc.resharding_minimum_operation_duration_millis {
        p.minimum_operation_duration_ms = ms;
    }
    if let Some(ms) = sc.resharding_critical_section_timeout_millis {
        if ms == 0 {
            return Err(
                "field `reshardingCriticalSectionTimeoutMillis`: must be at least 1".into(),
            );
        }
        p.critical_section_timeout_ms = ms;
    }
    Ok(p)
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
            (None, Some(text)) => ServerVersion::from_user_text(text)
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
            auto_split_only: false,
            active_window: None,
            window_rejected: None,
            auto_merge: true,
            attempt_to_balance_jumbo_chunks: false,
            migration_bytes_per_sec: (speed * f64::from(1u32 << 20)) as u64,
            migration_overhead_ms: 1000,
            resharding: resharding_params(sc)?,
            orphan_cleanup_delay_secs: None,
            balancer_migrations_throttling_ms: None,
        };
        let cluster = Cluster {
            version,
            before_6_0_3: false,
            shards: Vec::new(),
            settings,
            databases: std::collections::BTreeMap::default(),
            collections: Vec::new(),
            pending_zones: Vec::new(),
            now_ms: 0,
            balancer: crate::cluster::balancer::BalancerState::default(),
            next_migration_id: 1,
            failed_actions: Vec::new(),
            poll_notes: Vec::new(),
        };
        let mut sim = Self::empty(cluster);
        sim.seed = seed;
        if let Some(secs) = sc.auto_merger_interval_secs {
            sim.auto_merger.interval_secs = secs;
        }
        if let Some(ms) = sc.auto_merger_throttling_ms {
            sim.auto_merger.throttling_ms = ms;
        }
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
        let early = zones_first_actions(sc);
        for &i in &early {
            sim.apply_action(&sc.actions[i])
                .map_err(|e| format!("field `actions[{i}]`: {e}"))?;
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
        let mut actions: Vec<Action> = sc
            .actions
            .iter()
            .enumerate()
            .filter(|(i, _)| !early.contains(i))
            .map(|(_, a)| a.clone())
            .collect();
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
        if spec.unsharded {
            return self.setup_unsharded(sc, spec, &key, &at);
        }
        let opts = ShardCollectionOptions {
            unique: spec.unique,
            num_initial_chunks: spec.num_initial_chunks,
            presplit_hashed_zones: spec.presplit_hashed_zones,
        };
        self.shard_collection(&spec.ns, key.clone(), &opts)
            .map_err(|e| format!("field `{at}`: {e}"))?;
        for (k, index) in spec.indexes.iter().enumerate() {
            let ikey = pattern_of(&index.key, &format!("{at}.indexes[{k}].key"))?;
            self.create_index(&spec.ns, ikey, index.unique)
                .map_err(|e| format!("field `{at}.indexes[{k}]`: {e}"))?;
        }
        self.keep_documents_if_needed(sc, spec, &at)?;
        if let Some(layout) = &spec.initial_layout {
            self.apply_layout(&spec.ns, &key, layout, &at)?;
        }
        Ok(())
    }

    /// Keeps the collection's documents when the scenario asks, or when an action needs them
    /// (refine, reshard, moveCollection, unshardCollection, a shard-key update).
    fn keep_documents_if_needed(
        &mut self,
        sc: &Scenario,
        spec: &CollectionSpec,
        at: &str,
    ) -> Result<(), String> {
        let refines = sc.actions.iter().any(|a| match &a.op {
            Op::RefineCollectionShardKey { ns, .. }
            | Op::ReshardCollection { ns, .. }
            | Op::MoveCollection { ns, .. }
            | Op::UnshardCollection { ns, .. }
            | Op::UpdateShardKey { ns, .. } => *ns == spec.ns,
            _ => false,
        });
        if spec.keep_documents || refines {
            let fields = sc
                .workloads
                .iter()
                .filter(|w| w.ns == spec.ns)
                .flat_map(|w| w.fields.keys().cloned())
                .collect();
            let c = self
                .cluster
                .collection_index(&spec.ns)
                .ok_or_else(|| format!("field `{at}`: no collection {}", spec.ns))?;
            self.keep_documents(c, fields);
        }
        Ok(())
    }

    /// An unsharded collection on its database's primary, untracked.
    fn setup_unsharded(
        &mut self,
        sc: &Scenario,
        spec: &CollectionSpec,
        key: &KeyPattern,
        at: &str,
    ) -> Result<(), String> {
        if key.to_string() != r#"{"_id":1}"# {
            return Err(format!(
                "field `{at}.key`: an unsharded collection's key is {{\"_id\": 1}}"
            ));
        }
        if spec.initial_layout.is_some() || spec.num_initial_chunks.is_some() {
            return Err(format!(
                "field `{at}.unsharded`: an unsharded collection has one chunk (no initialLayout, no numInitialChunks)"
            ));
        }
        self.create_unsharded(&spec.ns)
            .map_err(|e| format!("field `{at}`: {e}"))?;
        for (k, index) in spec.indexes.iter().enumerate() {
            let ikey = pattern_of(&index.key, &format!("{at}.indexes[{k}].key"))?;
            self.create_index(&spec.ns, ikey, index.unique)
                .map_err(|e| format!("field `{at}.indexes[{k}]`: {e}"))?;
        }
        self.keep_documents_if_needed(sc, spec, at)
    }

    /// Splits the new collection at the layout's points and places each chunk, instantly.
    fn apply_layout(
        &mut self,
        ns: &str,
        key: &KeyPattern,
        layout: &crate::sim::scenario::InitialLayout,
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
            .cluster
            .collection_index(&w.ns)
            .ok_or_else(|| format!("field `{at}.ns`: no collection {} in the scenario", w.ns))?;
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
        while let Some(action) = self.take_due_action() {
            self.run_action(&action);
        }
    }
}

/// The time-0 zone actions that run before the collections are sharded: every
/// `addShardToZone`, and the `updateZoneKeyRange` of collections marked `zonesFirst`.
fn zones_first_actions(sc: &Scenario) -> Vec<usize> {
    let first: Vec<&str> = sc
        .collections
        .iter()
        .filter(|c| c.zones_first)
        .map(|c| c.ns.as_str())
        .collect();
    if first.is_empty() {
        return Vec::new();
    }
    sc.actions
        .iter()
        .enumerate()
        .filter(|(_, a)| a.at == 0.0)
        .filter(|(_, a)| match &a.op {
            Op::AddShardToZone { .. } => true,
            Op::UpdateZoneKeyRange { ns, .. } => first.contains(&ns.as_str()),
            _ => false,
        })
        .map(|(i, _)| i)
        .collect()
}
