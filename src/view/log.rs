//! Event-log lines: a simulator or trace event in words, with the kind the log filters by.

use crate::cluster::Cluster;
use crate::cluster::{Event, EventKind};

/// What the event log can be filtered to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LogKind {
    Split,
    Migration,
    Jumbo,
    Zone,
    Balancer,
    Shard,
    Error,
    Other,
}

impl LogKind {
    pub const ALL: [Self; 8] = [
        Self::Split,
        Self::Migration,
        Self::Jumbo,
        Self::Zone,
        Self::Balancer,
        Self::Shard,
        Self::Error,
        Self::Other,
    ];

    pub fn label(self) -> &'static str {
        match self {
            Self::Split => "splits",
            Self::Migration => "migrations",
            Self::Jumbo => "jumbo",
            Self::Zone => "zones",
            Self::Balancer => "balancer",
            Self::Shard => "shards",
            Self::Error => "errors",
            Self::Other => "other",
        }
    }
}

/// One line of the event log.
#[derive(Clone, Debug, PartialEq)]
pub struct LogLine {
    pub at_ms: u64,
    pub kind: LogKind,
    pub text: String,
}

/// The log line of an event, or `None` for events the log leaves out (write batches, round
/// starts — their round's end is logged).
pub fn log_line(cluster: &Cluster, e: &Event) -> Option<LogLine> {
    let kind = match &e.kind {
        EventKind::Writes { .. } | EventKind::BalancerRoundStarted { .. } => return None,
        EventKind::Split { .. } | EventKind::Merge { .. } => LogKind::Split,
        EventKind::SplitFailed { .. }
        | EventKind::MigrationFailed { .. }
        | EventKind::ReshardingAborted { .. }
        | EventKind::ActionFailed { .. } => LogKind::Error,
        EventKind::MigrationStarted { .. } | EventKind::MigrationCommitted { .. } => {
            LogKind::Migration
        }
        EventKind::JumboMarked { .. } | EventKind::JumboCleared { .. } => LogKind::Jumbo,
        EventKind::RangeDeleted { .. } => LogKind::Migration,
        EventKind::ShardZoneSet { .. }
        | EventKind::ZoneRangeSet { .. }
        | EventKind::PendingZoneRangeSet { .. } => LogKind::Zone,
        EventKind::BalancerRound { .. }
        | EventKind::BalancerSet { .. }
        | EventKind::AutoMergerSet { .. }
        | EventKind::AttemptToBalanceJumboChunksSet { .. }
        | EventKind::DefragmentationPhaseSet { .. }
        | EventKind::BalancerIdle { .. } => LogKind::Balancer,
        EventKind::ShardAdded { .. }
        | EventKind::ShardDraining { .. }
        | EventKind::ShardRemoved { .. }
        | EventKind::ShardDrainingStopped { .. }
        | EventKind::PrimaryMoved { .. } => LogKind::Shard,
        _ => LogKind::Other,
    };
    Some(LogLine {
        at_ms: e.at_ms,
        kind,
        text: format!("{:<20} {}", e.kind.what(), cluster.describe_detail(e)),
    })
}
