//! A `reshardCollection` in flight, as part of a collection's state: the new key, when it started
//! and when its critical section may start, the donors' critical section with the writes it holds
//! back, and the server parameters that govern it. The rules that advance it are
//! `sim::resharding`'s.

use crate::model::{ChunkStats, KeyPattern, KeyValue, ShardIdx, ShardKey};

/// The server parameters of resharding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReshardingParams {
    /// `reshardingMinimumOperationDurationMillis`.
    pub minimum_operation_duration_ms: u64,
    /// `reshardingCriticalSectionTimeoutMillis`.
    pub critical_section_timeout_ms: u64,
}

impl Default for ReshardingParams {
    fn default() -> Self {
        Self {
            minimum_operation_duration_ms: 300_000,
            critical_section_timeout_ms: 5_000,
        }
    }
}

/// A write held back by the critical section: the workload that generated it, its fields, size.
#[derive(Clone, Debug)]
pub struct BlockedWrite {
    pub workload: usize,
    pub values: Vec<KeyValue>,
    pub bytes: u64,
}

/// The donors' critical section.
#[derive(Clone, Debug)]
pub struct CriticalSection {
    pub started_ms: u64,
    /// When it ends: the commit, or the abort when it times out.
    pub ends_ms: u64,
    pub times_out: bool,
    pub blocked: Vec<BlockedWrite>,
}

/// Which command started a resharding (`provenance`, 8.0): `moveCollection` and
/// `unshardCollection` are reshardings to `{_id: 1}` whose result is an unsplittable collection.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Provenance {
    #[default]
    ReshardCollection,
    MoveCollection,
    UnshardCollection,
}

impl Provenance {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::ReshardCollection => "reshardCollection",
            Self::MoveCollection => "moveCollection",
            Self::UnshardCollection => "unshardCollection",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        [
            Self::ReshardCollection,
            Self::MoveCollection,
            Self::UnshardCollection,
        ]
        .into_iter()
        .find(|p| p.as_str() == s)
    }

    /// Whether the collection ends unsharded (tracked, `unsplittable: true`).
    pub fn ends_unsplittable(self) -> bool {
        self != Self::ReshardCollection
    }
}

/// One `shardDistribution` entry: a shard and, when every entry has one, the range it gets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShardKeyRange {
    pub shard: ShardIdx,
    pub range: Option<(ShardKey, ShardKey)>,
}

/// A resharding operation in progress on a collection.
#[derive(Clone, Debug)]
pub struct Resharding {
    pub key: KeyPattern,
    pub num_initial_chunks: u32,
    pub provenance: Provenance,
    /// `shardDistribution`: where the new chunks go (empty: every shard that may receive).
    pub distribution: Vec<ShardKeyRange>,
    /// `zones`: the zone ranges of the new key (`None`: none).
    pub zones: Option<Vec<crate::model::zones::ZoneRange>>,
    pub started_ms: u64,
    /// When cloning is done and the minimum duration has passed: the critical section starts.
    pub ready_ms: u64,
    pub critical_section: Option<CriticalSection>,
    /// Writes to the collection in the current second and the one before (the recipients' lag).
    second: u64,
    this_second: u64,
    last_second: u64,
}

impl Resharding {
    pub fn new(key: KeyPattern, num_initial_chunks: u32, started_ms: u64, ready_ms: u64) -> Self {
        Self {
            key,
            num_initial_chunks,
            provenance: Provenance::ReshardCollection,
            distribution: Vec::new(),
            zones: None,
            started_ms,
            ready_ms,
            critical_section: None,
            second: started_ms / 1000,
            this_second: 0,
            last_second: 0,
        }
    }

    /// Counts a write the recipients will have to apply from the oplog.
    pub fn record_write(&mut self, now_ms: u64) {
        let s = now_ms / 1000;
        if s != self.second {
            self.last_second = if s == self.second + 1 {
                self.this_second
            } else {
                0
            };
            self.this_second = 0;
            self.second = s;
        }
        self.this_second += 1;
    }

    /// Oplog entries the recipients have not applied yet at `now_ms`.
    pub fn backlog(&self, now_ms: u64) -> u64 {
        if now_ms / 1000 > self.second + 1 {
            return 0;
        }
        if now_ms / 1000 == self.second + 1 {
            return self.this_second;
        }
        self.this_second + self.last_second
    }
}

/// One chunk of the new layout: its lower bound, shard and contents.
pub type NewChunk = (ShardKey, ShardIdx, ChunkStats);

/// A resharding in flight on a live cluster, as `$currentOp` reports it (the coordinator's and
/// each recipient's entry; mongo `src/mongo/db/s/resharding/resharding_metrics.cpp`,
/// `reportForCurrentOp`). Every figure is the server's; what it did not report is `None`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReshardingProgress {
    /// `originatingCommand.key`, as relaxed Extended JSON.
    pub key: Option<String>,
    /// `provenance` (8.0: `reshardCollection`, `moveCollection`, `unshardCollection`).
    pub provenance: Option<String>,
    /// The coordinator's `coordinatorState`.
    pub coordinator_state: Option<String>,
    /// The coordinator's `allShardsHighestRemainingOperationTimeEstimatedSecs` (7.0+).
    pub highest_remaining_secs: Option<u64>,
    /// `totalOperationTimeElapsedSecs`, the largest reported.
    pub elapsed_secs: Option<u64>,
    pub recipients: Vec<RecipientProgress>,
}

/// One recipient shard's entry.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RecipientProgress {
    pub shard: String,
    /// `recipientState`: `awaiting-fetch-timestamp`, `creating-collection`, `cloning`,
    /// `applying`, `strict-consistency`, `done`, `error`…
    pub state: String,
    pub documents_copied: Option<u64>,
    pub approx_documents_to_copy: Option<u64>,
    pub bytes_copied: Option<u64>,
    pub approx_bytes_to_copy: Option<u64>,
    /// `remainingOperationTimeEstimatedSecs` (`-1`, "not estimated yet", is `None`).
    pub remaining_secs: Option<u64>,
}

impl ReshardingProgress {
    /// The recipients' states, each once, in order: `cloning`, `cloning, applying`; the
    /// coordinator's when no recipient reported.
    pub fn phase(&self) -> Option<String> {
        let mut states: Vec<&str> = Vec::new();
        for r in &self.recipients {
            if !states.contains(&r.state.as_str()) {
                states.push(&r.state);
            }
        }
        if states.is_empty() {
            return self.coordinator_state.clone();
        }
        Some(states.join(", "))
    }

    /// Bytes copied and approximately to copy, over every recipient (`None` when one did not
    /// say).
    pub fn bytes(&self) -> Option<(u64, u64)> {
        sum(&self.recipients, |r| {
            r.bytes_copied.zip(r.approx_bytes_to_copy)
        })
    }

    /// Documents copied and approximately to copy, over every recipient.
    pub fn documents(&self) -> Option<(u64, u64)> {
        sum(&self.recipients, |r| {
            r.documents_copied.zip(r.approx_documents_to_copy)
        })
    }

    /// The server's estimate of the time left: the coordinator's highest over all shards, else
    /// the slowest recipient's (the operation ends with its last recipient).
    pub fn remaining_secs(&self) -> Option<u64> {
        self.highest_remaining_secs.or_else(|| {
            self.recipients
                .iter()
                .filter_map(|r| r.remaining_secs)
                .max()
        })
    }
}

impl ReshardingProgress {
    /// One line: what runs, its phase, what is copied of what, the server's estimate.
    pub fn text(&self) -> String {
        let what = match self.provenance.as_deref() {
            Some(p) if p != "reshardCollection" => format!("{p} under way"),
            _ => match &self.key {
                Some(k) => format!("resharding to {k}"),
                None => "resharding".to_string(),
            },
        };
        let mut parts = vec![what];
        if let Some(phase) = self.phase() {
            parts.push(phase);
        }
        match (self.bytes(), self.documents()) {
            (Some((done, total)), _) => parts.push(format!(
                "{} of ~{} copied",
                crate::units::human_bytes(done),
                crate::units::human_bytes(total)
            )),
            (None, Some((done, total))) => parts.push(format!("{done} of ~{total} docs copied")),
            (None, None) => parts.push("copied: unknown".to_string()),
        }
        parts.push(match self.remaining_secs() {
            Some(s) => format!("~{} left (server's estimate)", duration_text(s)),
            None => "time left: not estimated yet".to_string(),
        });
        parts.join(" · ")
    }
}

/// `45 s`, `12 min`, `3 h 05 min`.
fn duration_text(secs: u64) -> String {
    match secs {
        0..60 => format!("{secs} s"),
        60..3600 => format!("{} min", secs / 60),
        _ => format!("{} h {:02} min", secs / 3600, secs % 3600 / 60),
    }
}

fn sum(
    recipients: &[RecipientProgress],
    each: impl Fn(&RecipientProgress) -> Option<(u64, u64)>,
) -> Option<(u64, u64)> {
    if recipients.is_empty() {
        return None;
    }
    recipients.iter().try_fold((0u64, 0u64), |(a, b), r| {
        let (x, y) = each(r)?;
        Some((a.saturating_add(x), b.saturating_add(y)))
    })
}
