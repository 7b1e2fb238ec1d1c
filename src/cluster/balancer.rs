//! The balancer's state at one instant: its counters, the round in progress, the migrations in
//! flight, and why it is not balancing more. How rounds are run is `sim::balancer`'s.

pub mod outcomes;

/// Time between two balancer rounds (`kBalanceRoundDefaultInterval`, 10 s), in milliseconds.
// 4.4–8.0 `src/mongo/db/s/balancer/balancer.cpp`.
pub const ROUND_INTERVAL_MS: u64 = 10_000;

/// The balancer's mode as MongoDB means it (`config.settings` `{_id: "balancer"}` `mode` and
/// `stopped`, `balancerStatus` `mode`): `full` balances; `autoSplitOnly` (before 7.1) lets the
/// auto-splitter run but never migrates (`shouldBalance()` is false for it); `off` does neither.
/// `stopped: true` means `off` whatever `mode` says; a mode the server does not know is `off`.
// 4.4 and 8.0 `s/balancer_configuration.cpp` (`BalancerSettingsType::fromBSON`,
// `BalancerConfiguration::shouldBalance`, `shouldBalanceForAutoSplit`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BalancerMode {
    #[default]
    Full,
    AutoSplitOnly,
    Off,
}

impl BalancerMode {
    /// MongoDB's name of the mode.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Full => "full",
            Self::AutoSplitOnly => "autoSplitOnly",
            Self::Off => "off",
        }
    }

    /// The mode a `mode` string names (`None` for a string no release knows).
    pub fn parse(s: &str) -> Option<Self> {
        [Self::Full, Self::AutoSplitOnly, Self::Off]
            .into_iter()
            .find(|m| m.as_str() == s)
    }

    /// Whether the balancer issues migrations in this mode (only `full`).
    pub fn migrates(self) -> bool {
        self == Self::Full
    }
}

/// A migration in flight.
#[derive(Clone, Debug)]
pub struct Migration {
    pub id: u64,
    pub ns: String,
    pub min: crate::model::ShardKey,
    /// The end of a moveRange inside the chunk; `None` moves the whole chunk.
    pub end: Option<crate::model::ShardKey>,
    pub max: crate::model::ShardKey,
    pub from: crate::model::ShardIdx,
    pub to: crate::model::ShardIdx,
    pub started_ms: u64,
    pub finish_ms: u64,
    /// The range's size: the simulator's exact figure, a live cluster's estimate (the donor's
    /// owned bytes over its chunks), or `None` when nothing tells it.
    pub bytes: Option<u64>,
    /// `bytes` is an estimate (a live cluster's), not a measured size.
    pub bytes_estimated: bool,
    pub reason: super::event::MigrationReason,
}

impl Migration {
    /// What its events name.
    pub fn range(&self) -> super::event::MigrationRange {
        super::event::MigrationRange {
            id: self.id,
            ns: self.ns.clone(),
            min: self.min.clone(),
            max: self.max.clone(),
            from: self.from,
            to: self.to,
        }
    }
}

/// A balancer round whose migrations are still running.
#[derive(Clone, Debug)]
pub struct RoundInProgress {
    pub number: u64,
    pub started_ms: u64,
    pub candidates: usize,
    pub migration_ids: Vec<u64>,
    pub moved: usize,
    pub failed: usize,
}

impl BalancerState {
    /// Whether a migration of collection `ns` is in flight.
    pub fn migrating_in(&self, ns: &str) -> bool {
        self.in_flight.iter().any(|m| m.ns == ns)
    }

    /// Whether the chunk of `ns` starting at `min` is being migrated.
    pub fn migrating(&self, ns: &str, min: &crate::model::ShardKey) -> bool {
        self.in_flight.iter().any(|m| m.ns == ns && m.min == *min)
    }
}

/// The log a live cluster's count of completed migrations is read from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MovedFrom {
    /// `moveChunk.commit` entries of `config.changelog`.
    Changelog,
    /// `chunksMoved` of the `balancer.round` entries of `config.actionlog` read (when they say
    /// more than the changelog holds: the changelog lost or never kept those entries).
    Actionlog,
}

impl MovedFrom {
    /// The collection's name, as the pane, the summaries and traces say it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Changelog => "changelog",
            Self::Actionlog => "actionlog",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "changelog" => Some(Self::Changelog),
            "actionlog" => Some(Self::Actionlog),
            _ => None,
        }
    }
}

/// The balancer's state and counters.
#[derive(Clone, Debug, Default)]
pub struct BalancerState {
    pub rounds: u64,
    pub next_round_ms: u64,
    pub round: Option<RoundInProgress>,
    pub in_flight: Vec<Migration>,
    pub completed: u64,
    pub failed: u64,
    /// Where a live cluster's `completed` comes from (`None`: the simulator's own count). Both
    /// logs are capped, so either is what the log still holds, not every migration ever made.
    pub completed_from: Option<MovedFrom>,
    /// Why the last round (or the last check) did not balance more, per collection.
    pub why_not: Vec<String>,
    /// A live cluster's balancing window now, as far as its logged rounds tell.
    pub window_now: Option<super::balancing_window::WindowNow>,
    /// A live cluster's shard drains.
    pub drains: Vec<super::drain::DrainStatus>,
    /// A live cluster's own `balancerCollectionStatus` answers, per namespace asked: `None`
    /// compliant, else its `firstComplianceViolation`.
    pub compliance: std::collections::BTreeMap<String, Option<String>>,
    /// Each collection's recent migration outcomes (commits, failures with their error): the
    /// simulator's and a replay's events, a live cluster's changelog entries.
    pub outcomes: outcomes::Outcomes,
}
