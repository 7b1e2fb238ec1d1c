//! Shards as the cluster knows them (`config.shards`): names, zones, draining.

use std::collections::BTreeSet;
use std::fmt;

/// The position of a shard in the cluster's shard list; routing tables refer to shards by it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct ShardIdx(pub u32);

impl ShardIdx {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for ShardIdx {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}", self.0)
    }
}

/// One shard: its id (`shard0000`), the zones it carries, whether `removeShard` is draining it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shard {
    pub id: String,
    pub zones: BTreeSet<String>,
    pub draining: bool,
}

impl Shard {
    pub fn new(id: impl Into<String>) -> Self {
        Self {
            id: id.into(),
            zones: BTreeSet::new(),
            draining: false,
        }
    }

    /// Whether this is the config server acting as a shard (8.0+ "config shard", embedded config
    /// server: `transitionFromDedicatedConfigServer`): its shard id is always `config`.
    // mongo `src/mongo/s/shard_id.cpp` (later `db/sharding_environment/shard_id.cpp`):
    // `ShardId::kConfigServerId("config")`.
    pub fn is_config_shard(&self) -> bool {
        self.id == "config"
    }

    /// MongoDB's default shard names: `shard0000`, `shard0001`, …
    pub fn default_name(i: usize) -> String {
        format!("shard{i:04}")
    }
}
