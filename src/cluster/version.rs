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
    pub const V8_1: Self = Self::new(8, 1);
    pub const V8_2: Self = Self::new(8, 2);
    pub const V8_3: Self = Self::new(8, 3);
    pub const V9_0: Self = Self::new(9, 0);
    /// The newest release line shardtop knows; a newer one is refused.
    pub const NEWEST: Self = Self::V9_0;
    /// What `sim`, `demo` and `serve` simulate unless told otherwise.
    pub const DEFAULT: Self = Self::V8_0;

    pub const fn new(major: u8, minor: u8) -> Self {
        Self { major, minor }
    }

    /// The first patch release of the line the simulator answers for: 0, and 3 for 6.0, which
    /// is simulated as from 6.0.3 (no auto-splitter, `$shardedDataDistribution`: 6.0.0–6.0.2
    /// had neither change). `serve` reports it unless asked for a later patch.
    pub fn first_simulated_patch(self) -> u32 {
        if self == Self::V6_0 { 3 } else { 0 }
    }

    /// The patch number of a version as a user writes it (`8.0.10`, `6.0.3-ent`), `None` when it
    /// gives none (`8.0`, `8`). The text must already parse as a release line.
    pub fn patch_of(text: &str) -> Option<u32> {
        let numeric = text.trim().split(['-', '+']).next()?;
        numeric.split('.').nth(2)?.parse().ok()
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

    /// The pause before the next balancer round, in milliseconds, after a round that selected
    /// `candidates` migrations of which `processed` committed (or failed ChunkTooBig, below). 10 s
    /// after an idle round (`kBalanceRoundDefaultInterval`). Before 6.0, 1 s after a round that
    /// moved a chunk
    /// (4.4.6 `db/s/balancer/balancer.cpp`, `kShortBalanceRoundInterval`); from 6.0 the next round
    /// starts at once but its migrations wait until `balancerMigrationsThrottlingMs` (1,000) has
    /// passed since the previous batch ended (6.0 `db/s/sharding_config_server_parameters.idl`;
    /// 7.0 and 8.0 `db/s/balancer/balancer.cpp` main loop): either way 1 s.
    ///
    /// `processed` counts the round's migrations that moved a chunk and, before 6.0, those that
    /// failed ChunkTooBig (4.4.6 and 5.0.7 `balancer.cpp`, `_moveChunks`: `numChunksProcessed++`
    /// on `ErrorCodes::ChunkTooBig` before splitting or marking the chunk jumbo), so such a round
    /// is followed by another after 1 s.
    pub fn round_pause_ms(self, candidates: usize, processed: usize) -> u64 {
        const DEFAULT_INTERVAL_MS: u64 = 10_000;
        const SHORT_INTERVAL_MS: u64 = 1_000;
        let busy = if self < Self::V6_0 {
            processed > 0
        } else {
            candidates > 0
        };
        if busy {
            SHORT_INTERVAL_MS
        } else {
            DEFAULT_INTERVAL_MS
        }
    }

    /// `reshardCollection`'s `numInitialChunks` when the command does not give it: the
    /// collection's current chunk count in 5.0 (5.0.7 `db/s/resharding/resharding_coordinator_service.cpp`),
    /// 90 from 6.0 (SERVER-92762; in which 6.0/7.0 patch it landed is not verified here).
    pub fn resharding_default_initial_chunks(self, current_chunks: usize) -> u32 {
        if self < Self::V6_0 {
            u32::try_from(current_chunks.max(1)).unwrap_or(u32::MAX)
        } else {
            90
        }
    }

    /// `remainingReshardingOperationTimeThresholdMillis`: the coordinator engages the critical
    /// section only once the recipients' estimated remaining time is below it — 2,000 ms up to
    /// 8.0 (8.0.10 `db/s/resharding/resharding_server_parameters.idl`,
    /// `resharding_coordinator_commit_monitor.cpp`), 500 ms from 8.1 (the newer idl; 8.0.13 and
    /// 8.1.2 patch releases also have 500, which a release line cannot express).
    pub fn resharding_remaining_time_threshold_ms(self) -> u64 {
        if self < Self::V8_1 { 2_000 } else { 500 }
    }

    /// 7.0+: the data-size donor must hold more than the ideal (7.0-era and 8.0.10
    /// `db/s/balancer/balancer_policy.cpp`; 6.0 checks the 3 × chunk size gap only).
    pub fn donor_must_exceed_average(self) -> bool {
        self >= Self::V7_0
    }

    /// 8.0+: the data-size receiver must hold less than the ideal (8.0.10
    /// `db/s/balancer/balancer_policy.cpp`; a late 6.0.x may have it by backport, unverified).
    pub fn receiver_must_be_below_ideal(self) -> bool {
        self >= Self::V8_0
    }

    /// Initial chunks per shard for a hashed key on an empty collection: 2, and 1 from 7.2.
    pub fn hashed_chunks_per_shard(self) -> u32 {
        if self < Self::V7_2 { 2 } else { 1 }
    }

    /// `orphanCleanupDelaySecs`: how long a donor keeps a migrated range before the range deleter
    /// removes it — 900 s, 3,600 s from 8.2 (`sharding_runtime_d_params.idl`).
    pub fn orphan_cleanup_delay_secs(self) -> u64 {
        if self < Self::V8_2 { 900 } else { 3_600 }
    }

    /// 7.0+: drains and zone violations move a chunk-size range from a chunk's lower bound
    /// (moveRange without max), as imbalance moves do from 6.0 (7.0-era and 8.0.10
    /// `db/s/balancer/balancer_policy.cpp`).
    pub fn moves_chunk_size_ranges_everywhere(self) -> bool {
        self >= Self::V7_0
    }

    /// The `maxWireVersion` a mongos of this line reports (`db/wire_version.h`: 4.4 = 9,
    /// 5.0 = 13, 6.0 = 17, 7.0 = 21, 8.0 = 25, each rapid release one more; 8.1 = 26, 8.2 = 27,
    /// 8.3 = 28 and 9.0 = 29 as the drivers' wire-version tables have them, e.g. the C# driver's
    /// `Core/Misc/WireVersion.cs`: no 8.1+ server header was readable here).
    pub fn max_wire_version(self) -> i32 {
        match (self.major, self.minor) {
            (4, _) => 9,
            (5, m) => 13 + i32::from(m),
            (6, m) => 17 + i32::from(m),
            (7, m) => 21 + i32::from(m),
            (8, m) => 25 + i32::from(m),
            _ => 29,
        }
    }

    /// Whether `major.minor` is a release line MongoDB shipped: 4.4, then 5.0 to 8.3 (with the
    /// rapid releases x.1–x.3), then 9.0.
    fn is_known_line(self) -> bool {
        match self.major {
            4 => self.minor == 4,
            5..=8 => self.minor <= 3,
            9 => self.minor == 0,
            _ => false,
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

impl ServerVersion {
    /// A release line as a user writes it (`--server-version`, the configuration, a scenario
    /// file): as `FromStr`, and a bare major (`8`) is that major's first line (`8.0`). A server's
    /// own version string always has a minor, so `FromStr` keeps refusing a bare major.
    pub fn from_user_text(text: &str) -> Result<Self, String> {
        let t = text.trim();
        if !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) {
            return format!("{t}.0").parse().map_err(|_| {
                format!(
                    "unknown server version {text:?}: give a release line from 4.4 to {} (4.4, 5.0 … 8.3, 9.0), e.g. 7.0",
                    Self::NEWEST
                )
            });
        }
        text.parse()
    }
}

impl FromStr for ServerVersion {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || {
            format!(
                "unknown server version {s:?}: give a release line from 4.4 to {} (4.4, 5.0 … 8.3, 9.0), e.g. 7.0",
                Self::NEWEST
            )
        };
        // A vendor build or a pre-release names its release line first: Percona's `7.0.40-22`,
        // `8.0.4-2`, `-rc1`, `-alpha`, an `-ent` or `+…` build tag. MongoDB's own version
        // strings are `major.minor.patch[-rcN]` (`src/mongo/util/version.cpp`).
        let numeric = s.trim().split(['-', '+']).next().unwrap_or_default();
        let mut parts = numeric.split('.');
        let major: u8 = parts.next().and_then(|p| p.parse().ok()).ok_or_else(bad)?;
        let minor: u8 = parts.next().and_then(|p| p.parse().ok()).ok_or_else(bad)?;
        if parts.next().is_some_and(|p| p.parse::<u32>().is_err()) || parts.next().is_some() {
            return Err(bad());
        }
        let v = Self::new(major, minor);
        if !v.is_known_line() {
            return Err(bad());
        }
        Ok(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vendor_and_pre_release_strings_map_to_their_release_line() {
        for (text, line) in [
            ("7.0.40-22", "7.0"),
            ("8.0.4-2", "8.0"),
            ("7.0.2-ent", "7.0"),
            ("8.0.0-rc1", "8.0"),
            ("6.0.3", "6.0"),
            ("4.4.1", "4.4"),
            ("8.2.0-alpha0-1234-gabcdef", "8.2"),
            ("7.0.5+build.3", "7.0"),
            ("7.0", "7.0"),
        ] {
            let v: ServerVersion = text.parse().unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(v.to_string(), line, "{text}");
        }
        for (text, line) in [("8", "8.0"), ("7", "7.0"), (" 5 ", "5.0"), ("6.0", "6.0")] {
            let v = ServerVersion::from_user_text(text).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(v.to_string(), line, "{text}");
        }
        for bad in ["4", "3", "10", "", "x"] {
            assert!(ServerVersion::from_user_text(bad).is_err(), "{bad:?}");
        }
        for bad in ["", "-22", "7", "7.x", "7.0.x", "7.0.1.2", "3.6.8", "10.0.0"] {
            assert!(bad.parse::<ServerVersion>().is_err(), "{bad:?}");
        }
    }
}

#[cfg(test)]
mod patch_tests {
    use super::ServerVersion;

    #[test]
    fn the_patch_of_a_version_as_written() {
        for (text, patch) in [
            ("8.0.10", Some(10)),
            ("6.0.3-ent", Some(3)),
            ("7.0.40-22", Some(40)),
            ("8.0", None),
            ("8", None),
        ] {
            assert_eq!(ServerVersion::patch_of(text), patch, "{text}");
        }
        assert_eq!(ServerVersion::V6_0.first_simulated_patch(), 3);
        assert_eq!(ServerVersion::V8_0.first_simulated_patch(), 0);
    }
}
