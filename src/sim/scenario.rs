//! Scenario files: JSON documents describing a cluster, its sharded collections, workloads and
//! scheduled actions. The built-in ones live in `assets/scenarios/` and are embedded in the binary.

//!
//! The scenario group: the commands an action names (`op`), the bounds a file must keep
//! (`limits`), building a simulator from a scenario (`setup`), the workloads' key generators
//! (`keygen`) and carrying out scheduled actions (`actions`, and their refusals). Builds on the
//! engine, `cluster` and `model`; may not touch the terminal, I/O or the wall clock.

mod action_errors;
pub mod actions;
pub mod keygen;
pub mod limits;
mod op;
pub mod setup;

pub use op::Op;

use std::collections::BTreeMap;

use serde::Deserialize;

use super::scenario::keygen::GenSpec;

/// A scenario.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Scenario {
    pub name: String,
    /// One line saying what the scenario shows.
    pub description: String,
    /// What the scenario teaches, in one sentence (`shardtop scenarios` prints it).
    #[serde(default)]
    pub lesson: Option<String>,
    /// Where the scenario comes from (the built-in ones: the passage of the book they reproduce,
    /// credited in docs/scenarios.md); optional, never shown.
    #[serde(default)]
    pub seed_passage: String,
    /// The release line simulated unless `--server-version` says otherwise.
    #[serde(default)]
    pub server_version: Option<String>,
    #[serde(default = "default_seed")]
    pub seed: u64,
    pub shards: ShardsSpec,
    /// Chunk size in MB (default: the server version's).
    #[serde(default)]
    pub chunk_size_mb: Option<u64>,
    #[serde(default = "yes")]
    pub balancer: bool,
    /// Simulated migration throughput (default 32 MB/s).
    #[serde(default)]
    pub migration_mb_per_sec: Option<f64>,
    /// `reshardingMinimumOperationDurationMillis` (default 300,000).
    #[serde(default)]
    pub resharding_minimum_operation_duration_millis: Option<u64>,
    /// `reshardingCriticalSectionTimeoutMillis` (default 5,000).
    #[serde(default)]
    pub resharding_critical_section_timeout_millis: Option<u64>,
    /// `autoMergerIntervalSecs` (default 3,600; 7.0+).
    #[serde(default)]
    pub auto_merger_interval_secs: Option<u64>,
    /// `autoMergerThrottlingMS` (default 15,000; 7.0+).
    #[serde(default, rename = "autoMergerThrottlingMS")]
    pub auto_merger_throttling_ms: Option<u64>,
    pub collections: Vec<CollectionSpec>,
    #[serde(default)]
    pub workloads: Vec<WorkloadSpec>,
    #[serde(default)]
    pub actions: Vec<Action>,
    /// Where the scenario ends, in virtual seconds.
    pub until: f64,
}

fn default_seed() -> u64 {
    1
}

fn yes() -> bool {
    true
}

/// A number of shards (`shard0000`, …) or an explicit list.
#[derive(Clone, Debug, Deserialize)]
#[serde(untagged)]
pub enum ShardsSpec {
    Count(u32),
    List(Vec<ShardSpec>),
}

/// One shard of an explicit list.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ShardSpec {
    pub id: String,
    #[serde(default = "unit")]
    pub capacity: f64,
}

fn unit() -> f64 {
    1.0
}

/// A collection sharded at time 0.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CollectionSpec {
    pub ns: String,
    /// The shard key pattern, e.g. `{"_id": 1}`.
    pub key: serde_json::Value,
    #[serde(default)]
    pub unique: bool,
    /// The database's primary shard (default: the first shard).
    #[serde(default)]
    pub primary: Option<String>,
    /// `numInitialChunks` for a hashed key.
    #[serde(default)]
    pub num_initial_chunks: Option<u32>,
    /// Keep documents' field values (needed to refine the key later; implied by such actions).
    #[serde(default)]
    pub keep_documents: bool,
    /// An unsharded collection on its database's primary (`key` must be `{"_id": 1}`).
    #[serde(default)]
    pub unsharded: bool,
    /// Start already split and distributed, like a collection that has lived for a while.
    #[serde(default)]
    pub initial_layout: Option<InitialLayout>,
    /// Secondary indexes present from the start.
    #[serde(default)]
    pub indexes: Vec<IndexSpec>,
    /// Define the zones first: the scenario's time-0 `addShardToZone` actions and this
    /// collection's time-0 `updateZoneKeyRange` actions run before it is sharded, so its initial
    /// chunks follow the zones (SingleChunkPerTag, or `presplitHashedZones`).
    #[serde(default)]
    pub zones_first: bool,
    /// `shardCollection`'s `presplitHashedZones` (needs `zonesFirst` and a hashed field).
    #[serde(default)]
    pub presplit_hashed_zones: bool,
}

/// Split points (shard-key documents) and the owner of each resulting chunk.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct InitialLayout {
    pub split_points: Vec<serde_json::Value>,
    pub shards: Vec<String>,
}

/// An index.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct IndexSpec {
    pub key: serde_json::Value,
    #[serde(default)]
    pub unique: bool,
}

/// An insert stream.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct WorkloadSpec {
    pub ns: String,
    /// Inserts per virtual second.
    pub rate: f64,
    /// Total inserts (unbounded if absent).
    #[serde(default)]
    pub count: Option<u64>,
    #[serde(default)]
    pub start: f64,
    #[serde(default)]
    pub stop: Option<f64>,
    /// Document size in bytes: a number or `{"min": …, "max": …}`.
    pub doc_size: DocSize,
    /// Generators of the documents' fields (at least the shard key's).
    pub fields: BTreeMap<String, GenSpec>,
}

/// A document size or range of sizes.
#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(untagged)]
pub enum DocSize {
    Fixed(u64),
    Range { min: u64, max: u64 },
}

/// An operation at a virtual time.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Action {
    /// Virtual seconds.
    pub at: f64,
    /// Repeat every this many virtual seconds (a periodic job).
    #[serde(default)]
    pub every: Option<f64>,
    #[serde(rename = "do")]
    pub op: Op,
    /// Its place in the scenario's `actions` (set when the file is read).
    #[serde(skip)]
    pub index: usize,
}

impl Action {
    /// Where the action is in the scenario file: `actions[3].do.split`.
    pub fn path(&self) -> String {
        format!("actions[{}].do.{}", self.index, self.name())
    }

    pub fn at_ms(&self) -> u64 {
        (self.at.max(0.0) * 1000.0) as u64
    }

    pub fn name(&self) -> &'static str {
        match &self.op {
            Op::AddShard { .. } => "addShard",
            Op::BalancerStart {} => "balancerStart",
            Op::BalancerStop {} => "balancerStop",
            Op::StartAutoMerger {} => "startAutoMerger",
            Op::DisableBalancing { .. } => "disableBalancing",
            Op::AttemptToBalanceJumboChunks { .. } => "attemptToBalanceJumboChunks",
            Op::EnableBalancing { .. } => "enableBalancing",
            Op::StopAutoMerger {} => "stopAutoMerger",
            Op::SetChunkSize { .. } => "setChunkSize",
            Op::Split { .. } => "split",
            Op::SplitFind { .. } => "splitFind",
            Op::MoveChunk { .. } => "moveChunk",
            Op::MoveRange { .. } => "moveRange",
            Op::ConfigureCollectionBalancing { .. } => "configureCollectionBalancing",
            Op::MergeChunks { .. } => "mergeChunks",
            Op::CreateIndex { .. } => "createIndex",
            Op::RefineCollectionShardKey { .. } => "refineCollectionShardKey",
            Op::AddShardToZone { .. } => "addShardToZone",
            Op::RemoveShard { .. } => "removeShard",
            Op::StartShardDraining { .. } => "startShardDraining",
            Op::StopShardDraining { .. } => "stopShardDraining",
            Op::CommitShardRemoval { .. } => "commitShardRemoval",
            Op::MovePrimary { .. } => "movePrimary",
            Op::ClearJumboFlag { .. } => "clearJumboFlag",
            Op::MoveZoneLowerBoundToNow { .. } => "moveZoneLowerBoundToNow",
            Op::RemoveShardFromZone { .. } => "removeShardFromZone",
            Op::UpdateZoneKeyRange { .. } => "updateZoneKeyRange",
            Op::DropIndex { .. } => "dropIndex",
            Op::UpdateShardKey { .. } => "updateShardKey",
            Op::ReshardCollection { .. } => "reshardCollection",
            Op::MoveCollection { .. } => "moveCollection",
            Op::UnshardCollection { .. } => "unshardCollection",
        }
    }
}

/// The built-in scenarios, in display order.
pub const BUILT_IN: &[(&str, &str)] = &[
    (
        "ascending",
        include_str!("../../assets/scenarios/ascending.json"),
    ),
    ("random", include_str!("../../assets/scenarios/random.json")),
    ("hashed", include_str!("../../assets/scenarios/hashed.json")),
    (
        "low-cardinality",
        include_str!("../../assets/scenarios/low-cardinality.json"),
    ),
    (
        "loglevel",
        include_str!("../../assets/scenarios/loglevel.json"),
    ),
    (
        "hot-customer",
        include_str!("../../assets/scenarios/hot-customer.json"),
    ),
    (
        "reshard",
        include_str!("../../assets/scenarios/reshard.json"),
    ),
    (
        "add-shard",
        include_str!("../../assets/scenarios/add-shard.json"),
    ),
    ("manual", include_str!("../../assets/scenarios/manual.json")),
    (
        "zones-ip",
        include_str!("../../assets/scenarios/zones-ip.json"),
    ),
    (
        "multi-hotspot",
        include_str!("../../assets/scenarios/multi-hotspot.json"),
    ),
    ("gridfs", include_str!("../../assets/scenarios/gridfs.json")),
    ("drain", include_str!("../../assets/scenarios/drain.json")),
    (
        "drain-orphans",
        include_str!("../../assets/scenarios/drain-orphans.json"),
    ),
    (
        "auto-merge",
        include_str!("../../assets/scenarios/auto-merge.json"),
    ),
    (
        "orphans",
        include_str!("../../assets/scenarios/orphans.json"),
    ),
    (
        "defragment",
        include_str!("../../assets/scenarios/defragment.json"),
    ),
    (
        "move-collection",
        include_str!("../../assets/scenarios/move-collection.json"),
    ),
    (
        "firehose",
        include_str!("../../assets/scenarios/firehose.json"),
    ),
    (
        "zones-gdpr",
        include_str!("../../assets/scenarios/zones-gdpr.json"),
    ),
];

/// Parses scenario text; the error names the field (path) and position.
pub fn parse(text: &str) -> Result<Scenario, String> {
    let de = &mut serde_json::Deserializer::from_str(text);
    let mut sc: Scenario = serde_path_to_error::deserialize(&mut *de).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        format!("field `{path}`: {inner}")
    })?;
    de.end()
        .map_err(|e| format!("after the scenario's closing brace: {e}"))?;
    for (i, a) in sc.actions.iter_mut().enumerate() {
        a.index = i;
    }
    super::scenario::limits::check(&sc)?;
    Ok(sc)
}

/// A built-in scenario by name.
pub fn built_in(name: &str) -> Option<Result<Scenario, String>> {
    BUILT_IN
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, text)| parse(text))
}

/// The names of the built-in scenarios.
pub fn names() -> Vec<&'static str> {
    BUILT_IN.iter().map(|(n, _)| *n).collect()
}
