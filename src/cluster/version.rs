//! MongoDB release lines and the sharding behaviour each selects (reference §0): default chunk
//! size, balancing metric, auto-splitting, hashed initial chunks per shard, wire version.

use std::fmt;
use std::str::FromStr;

/// A MongoDB release line `major.minor` (a patch number, if given, is ignored).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ServerVersion {
    pub major: u8,
    pub minor: u8,
}

/// The balancer's policy generation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BalancingMetric {
    /// Before 6.0: chunk counts are evened (imbalance threshold 1 chunk).
    ChunkCount,
    /// 6.0 and later: data size is evened (threshold 3 × chunk size).
    DataSize,
}

impl ServerVersion {
    pub const V4_4: Self = Self::new(4, 4);
    pub const V5_0: Self = Self::new(5, 0);
    pub const V6_0: Self = Self::new(6, 0);
    pub const V7_0: Self = Self::new(7, 0);
    pub const V7_2: Self = Self::new(7, 2);
    pub const V8_0: Self = Self::new(8, 0);
    /// What `sim`, `demo` and `serve` simulate unless told otherwise.
    pub const DEFAULT: Self = Self::V8_0;

    pub const fn new(major: u8, minor: u8) -> Self {
        Self { major, minor }
    }

    /// 64 MB before 6.0, 128 MB from 6.0.
    pub fn default_chunk_size_bytes(self) -> u64 {
        if self < Self::V6_0 {
            64 << 20
        } else {
            128 << 20
        }
    }

    pub fn balancing_metric(self) -> BalancingMetric {
        if self < Self::V6_0 {
            BalancingMetric::ChunkCount
        } else {
            BalancingMetric::DataSize
        }
    }

    /// The auto-splitter runs before 6.0 (it was removed in 6.0.3; 6.0 is simulated without it).
    pub fn auto_splits(self) -> bool {
        self < Self::V6_0
    }

    /// 7.0+: the data-size donor must hold more than the average.
    pub fn donor_must_exceed_average(self) -> bool {
        self >= Self::V7_0
    }

    /// Initial chunks per shard for a hashed key on an empty collection: 2, and 1 from 7.2.
    pub fn hashed_chunks_per_shard(self) -> u32 {
        if self < Self::V7_2 { 2 } else { 1 }
    }

    /// The `maxWireVersion` a mongos of this line reports.
    pub fn max_wire_version(self) -> i32 {
        match (self.major, self.minor) {
            (4, _) => 9,
            (5, m) => 13 + i32::from(m),
            (6, m) => 17 + i32::from(m),
            (7, m) => 21 + i32::from(m),
            _ => 25,
        }
    }

    /// `config.chunks` documents carry the collection uuid (5.0+) instead of `ns`.
    pub fn chunks_by_uuid(self) -> bool {
        self >= Self::V5_0
    }
}

impl fmt::Display for ServerVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

impl FromStr for ServerVersion {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || {
            format!("unknown server version {s:?}: give a release line from 4.4 to 8.0, e.g. 7.0")
        };
        let mut parts = s.trim().split('.');
        let major: u8 = parts.next().and_then(|p| p.parse().ok()).ok_or_else(bad)?;
        let minor: u8 = parts.next().and_then(|p| p.parse().ok()).ok_or_else(bad)?;
        if parts.next().is_some_and(|p| p.parse::<u32>().is_err()) || parts.next().is_some() {
            return Err(bad());
        }
        let v = Self::new(major, minor);
        if v < Self::V4_4 || v.major > 8 {
            return Err(bad());
        }
        Ok(v)
    }
}
