//! What the command being answered waits for ([`Wait`]: a migration, a resharding or the
//! balancer's round) and how the
//! latest migrations and reshardings ended ([`Outcomes`]): data only; `write_path::completion`
//! decides when a waiting command answers.
//!
//! May import nothing of `serve` above `state`.

use std::collections::VecDeque;

use crate::cluster::MongoError;
use crate::cluster::event::{Event, EventKind};

/// Outcomes remembered for waiting commands.
pub const REMEMBERED: usize = 256;
/// What a command waits for before it answers.
#[derive(Clone, Debug)]
pub enum Wait {
    /// A migration (`moveChunk` answers `millis`, `moveRange` nothing).
    Migration { id: u64, millis: bool },
    /// The resharding of `ns` (from its incarnation `incarnation`).
    Resharding { ns: String },
    /// The balancer round in flight (`balancerStop`).
    BalancerRound,
}

/// How the latest migrations and reshardings ended.
#[derive(Debug, Default)]
pub struct Outcomes {
    pub migrations: VecDeque<(u64, Result<u64, MongoError>)>,
    pub reshardings: VecDeque<(String, Result<(), MongoError>)>,
}

impl Outcomes {
    /// Notes the ends among `events`.
    pub fn note(&mut self, events: &[Event]) {
        for e in events {
            match &e.kind {
                EventKind::MigrationCommitted { range, millis, .. } => {
                    self.migrations.push_back((range.id, Ok(*millis)));
                }
                EventKind::MigrationFailed { range, error } => {
                    self.migrations.push_back((range.id, Err(error.clone())));
                }
                EventKind::ReshardingCommitted { ns, .. } => {
                    self.reshardings.push_back((ns.clone(), Ok(())));
                }
                EventKind::ReshardingAborted { ns, error, .. } => {
                    self.reshardings.push_back((ns.clone(), Err(error.clone())));
                }
                _ => {}
            }
        }
        while self.migrations.len() > REMEMBERED {
            self.migrations.pop_front();
        }
        while self.reshardings.len() > REMEMBERED {
            self.reshardings.pop_front();
        }
    }
}
