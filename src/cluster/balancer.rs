//! The balancer's state at one instant: its counters, the round in progress, the migrations in
//! flight, and why it is not balancing more. How rounds are run is `sim::balancer`'s.

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
    pub bytes: u64,
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

/// The balancer's state and counters.
#[derive(Clone, Debug, Default)]
pub struct BalancerState {
    pub rounds: u64,
    pub next_round_ms: u64,
    pub round: Option<RoundInProgress>,
    pub in_flight: Vec<Migration>,
    pub completed: u64,
    pub failed: u64,
    /// Why the last round (or the last check) did not balance more, per collection.
    pub why_not: Vec<String>,
    /// A live cluster's balancing window now, as far as its logged rounds tell.
    pub window_now: Option<super::balancing_window::WindowNow>,
    /// A live cluster's shard drains.
    pub drains: Vec<super::drain::DrainStatus>,
}
