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
    /// A live migration's changelog entry the line shows (`None` for any other line): what
    /// [`append`] keys one line per migration by.
    pub migration: Option<MigrationEntry>,
    /// The whole of the event(s) behind the line — documents and error — for the detail view
    /// (`None`: the source keeps nothing more than the text, e.g. a trace's warning).
    pub detail: Option<std::sync::Arc<super::event_detail::EventDetail>>,
}

/// A live migration's `config.changelog` entry, in words: the donor's `moveChunk.start`,
/// `moveChunk.commit` or `moveChunk.error` (`src/mongo/db/s/migration_source_manager.cpp`),
/// or the donor's `moveChunk.from` / the recipient's `moveChunk.to` logged when either side's
/// part ends, `note: "success"` or `"aborted"` with `errmsg`
/// (`src/mongo/db/s/move_timing_helper.cpp`). Every one of them carries the migration's `ns`
/// and `details.min`, `details.max`, `details.from`, `details.to`: together its key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MigrationEntry {
    /// Namespace, bounds, donor and recipient: what the entries of one migration share.
    pub key: String,
    pub step: MigrationStep,
    pub ns: String,
    /// The donor and the recipient shards.
    pub from: String,
    pub to: String,
    /// `[min, max)`, and what the start adds (serve's size and reason).
    pub range: String,
    /// What the entry says of the outcome: the commit's counts, the error's message.
    pub outcome: String,
}

/// Which entry of a migration, or (once merged) how the migration ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MigrationStep {
    Start,
    Commit,
    Error,
    /// A `moveChunk.from` or `moveChunk.to` with `note: "success"`.
    Succeeded,
    /// A `moveChunk.from` or `moveChunk.to` with `note: "aborted"`.
    Aborted,
}

impl MigrationEntry {
    /// The line of this entry (or of the migration it completed): the head and the outcome
    /// first, the range last — a cut to the pane's width drops the least important.
    pub fn line(&self, at_ms: u64) -> LogLine {
        let word = self.word();
        let head = format!("{} {} → {}", self.ns, self.from, self.to);
        let text = if word.is_empty() {
            format!("{:<20} {head} {}", "moveChunk.start", self.range)
        } else if self.outcome.is_empty() {
            format!("{:<20} {head} {word} · {}", "moveChunk", self.range)
        } else {
            let (outcome, range) = (&self.outcome, &self.range);
            format!("{:<20} {head} {word}: {outcome} · {range}", "moveChunk")
        };
        let kind = match self.step {
            MigrationStep::Error | MigrationStep::Aborted => LogKind::Error,
            _ => LogKind::Migration,
        };
        LogLine {
            at_ms,
            kind,
            text: crate::units::cut_at_words(&text, 200),
            migration: Some(self.clone()),
            detail: None,
        }
    }

    /// How the migration ended, in a word (empty while only its start is known).
    pub fn word(&self) -> &'static str {
        match self.step {
            MigrationStep::Start => "",
            MigrationStep::Commit => "committed",
            MigrationStep::Error => "failed",
            MigrationStep::Succeeded => "succeeded",
            MigrationStep::Aborted => "aborted",
        }
    }

    /// Whether `self`, a later entry, completes the migration `earlier` shows: a commit or an
    /// error ends a start (or a start the recipient's `moveChunk.to` already said ended the same
    /// way); the donor's or the recipient's last word agrees with the outcome (a
    /// `moveChunk.from` after a commit adds nothing; after an error, its `errmsg`).
    fn completes(&self, earlier: MigrationStep) -> bool {
        use MigrationStep::{Aborted, Commit, Error, Start, Succeeded};
        match self.step {
            Start => false,
            Commit => matches!(earlier, Start | Succeeded),
            Error => matches!(earlier, Start | Aborted),
            Succeeded => matches!(earlier, Start | Commit | Succeeded),
            Aborted => matches!(earlier, Start | Error | Aborted),
        }
    }
}

/// Folds a live migration's later entry into the line of its earlier one; `false` when no line
/// of the same migration is there to complete (the entry is then a line of its own).
fn fold_migration(
    log: &mut std::collections::VecDeque<LogLine>,
    m: &MigrationEntry,
    detail: Option<&std::sync::Arc<super::event_detail::EventDetail>>,
) -> bool {
    let earlier = log
        .iter_mut()
        .rev()
        .take(MIGRATION_LOOKBACK)
        .find(|l| l.migration.as_ref().is_some_and(|e| e.key == m.key));
    let Some(line) = earlier else {
        return false;
    };
    let Some(mut e) = line.migration.clone() else {
        return false;
    };
    if !m.completes(e.step) {
        return false;
    }
    // The commit or the error is the donor's word on the outcome; a later `moveChunk.from` or
    // `moveChunk.to` only adds what is missing (an error's message).
    let decides = matches!(m.step, MigrationStep::Commit | MigrationStep::Error);
    if decides || e.step == MigrationStep::Start {
        e.step = m.step;
    }
    if (decides && !m.outcome.is_empty()) || e.outcome.is_empty() {
        e.outcome.clone_from(&m.outcome);
    }
    let detail = super::event_detail::joined(line.detail.as_ref(), detail);
    *line = LogLine {
        detail,
        ..e.line(line.at_ms)
    };
    true
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
        migration: None,
        detail: None,
    })
}

/// A line's `what` (its first word) and the rest.
fn split_what(text: &str) -> (&str, &str) {
    text.split_once(' ')
        .map_or((text, ""), |(w, rest)| (w, rest.trim_start()))
}

/// An idle balancer round: nothing to move and nothing failed. `Some((round, why))` with the
/// simulator's round number when the line has one and the reason after ` — `.
fn idle_round(line: &LogLine) -> Option<(Option<u64>, String)> {
    if line.kind != LogKind::Balancer {
        return None;
    }
    let (what, detail) = split_what(&line.text);
    if what != "balancer.round" {
        return None;
    }
    let (counts, why) = detail.split_once(" — ").unwrap_or((detail, ""));
    let (round, counts) = match counts.strip_prefix("round ") {
        Some(rest) => {
            let (n, counts) = rest.split_once(": ")?;
            (Some(n.parse().ok()?), counts)
        }
        None => (None, counts),
    };
    let idle = counts.starts_with("0 candidates, 0 moved")
        && (counts == "0 candidates, 0 moved"
            || counts.ends_with(", 0 failed")
            || counts.ends_with(" ms"));
    idle.then(|| (round, why.to_string()))
}

/// A run of idle rounds already collapsed: `(count, first round, last round)`.
fn idle_run(line: &LogLine) -> Option<(u64, Option<(u64, u64)>)> {
    let (what, detail) = split_what(&line.text);
    if what != "balancer.round" || line.kind != LogKind::Balancer {
        return None;
    }
    let (head, _) = detail.split_once(" (0 candidates, 0 moved)")?;
    let (count, rounds) = match head.split_once(": idle ×") {
        Some((rounds, count)) => {
            let (a, b) = rounds.strip_prefix("rounds ")?.split_once('–')?;
            (count, Some((a.parse().ok()?, b.parse().ok()?)))
        }
        None => (head.strip_prefix("idle ×")?, None),
    };
    Some((count.parse().ok()?, rounds))
}

/// A migration's id and the rest of its line: `moveChunk.start #3 …`, `moveChunk.commit #3 …`
/// or `moveChunk.error #3 …`.
fn migration(line: &LogLine) -> Option<(&str, u64, &str)> {
    let (what, detail) = split_what(&line.text);
    let (id, rest) = detail.strip_prefix('#')?.split_once(' ')?;
    matches!(
        what,
        "moveChunk.start" | "moveChunk.commit" | "moveChunk.error"
    )
    .then_some(())?;
    Some((what, id.parse().ok()?, rest))
}

/// How far back a migration's end looks for its start.
const MIGRATION_LOOKBACK: usize = 500;

/// Adds a line to the event log, keeping it short: a run of idle balancer rounds is one counted
/// line (the latest reason kept), and a migration is one line — its start, completed in place
/// by its commit or its error (`#3 ns donor → recipient committed: … · [range) (size, reason)`,
/// `… failed: error · …`).
///
/// A live migration (no id: its entries carry the same namespace, bounds, donor and recipient)
/// is one line the same way: its start, completed by its commit or its error, the donor's
/// duplicate `moveChunk.from` (and the recipient's `moveChunk.to`) folded in.
pub fn append(log: &mut std::collections::VecDeque<LogLine>, line: LogLine) {
    if let Some(m) = &line.migration
        && m.step != MigrationStep::Start
        && fold_migration(log, m, line.detail.as_ref())
    {
        return;
    }
    if let Some((round, why)) = idle_round(&line)
        && let Some(last) = log.back_mut()
    {
        let before = idle_run(last)
            .map(|(n, rounds)| (n, rounds.map(|(a, _)| a)))
            .or_else(|| idle_round(last).map(|(r, _)| (1, r)));
        if let Some((count, first)) = before {
            let count = count + 1;
            let why = if why.is_empty() {
                String::new()
            } else {
                format!(" — {why}")
            };
            let head = match (first, round) {
                (Some(a), Some(b)) => format!("rounds {a}–{b}: idle ×{count}"),
                _ => format!("idle ×{count}"),
            };
            last.text = format!(
                "{:<20} {head} (0 candidates, 0 moved){why}",
                "balancer.round"
            );
            last.at_ms = line.at_ms;
            last.detail = line.detail;
            return;
        }
    }
    if let Some((what, id, rest)) = migration(&line)
        && what != "moveChunk.start"
    {
        let start = log
            .iter_mut()
            .rev()
            .take(MIGRATION_LOOKBACK)
            .find(|l| migration(l).is_some_and(|(w, i, _)| w == "moveChunk.start" && i == id));
        if let Some(start) = start {
            // The end's text repeats the head (`ns from → to:`); keep only its outcome.
            let outcome = rest.split_once(": ").map_or(rest, |(_, o)| o);
            let (word, kind) = if what == "moveChunk.commit" {
                ("committed", LogKind::Migration)
            } else {
                ("failed", LogKind::Error)
            };
            // Head (id, namespace, donor → recipient) and outcome first, the range and the
            // size last: a cut to the pane's width drops the least important.
            let (_, detail) = split_what(&start.text);
            let (head, tail) = detail
                .split_once(" [")
                .map_or((detail, String::new()), |(h, t)| (h, format!(" · [{t}")));
            start.text = format!("{:<20} {head} {word}: {outcome}{tail}", "moveChunk");
            start.kind = kind;
            start.detail = super::event_detail::joined(start.detail.as_ref(), line.detail.as_ref());
            return;
        }
    }
    log.push_back(line);
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    fn line(at_ms: u64, kind: LogKind, text: &str) -> LogLine {
        LogLine {
            at_ms,
            kind,
            text: text.to_string(),
            migration: None,
            detail: None,
        }
    }

    fn round(n: u64, candidates: u64, why: &str) -> LogLine {
        line(
            n * 10_000,
            LogKind::Balancer,
            &format!(
                "{:<20} round {n}: {candidates} candidates, {candidates} moved, 0 failed — {why}",
                "balancer.round"
            ),
        )
    }

    #[test]
    fn idle_rounds_become_one_counted_line_keeping_the_latest_reason() {
        let mut log = VecDeque::new();
        for n in 1..=3 {
            append(&mut log, round(n, 0, &format!("balanced (gap {n} MiB)")));
        }
        assert_eq!(log.len(), 1, "{log:?}");
        assert_eq!(
            log[0].text,
            "balancer.round       rounds 1–3: idle ×3 (0 candidates, 0 moved) — balanced (gap 3 MiB)"
        );
        assert_eq!(log[0].at_ms, 30_000);
        append(&mut log, round(4, 1, "moved"));
        append(&mut log, round(5, 0, "balanced"));
        append(&mut log, round(6, 0, "balanced"));
        assert_eq!(log.len(), 3, "{log:?}");
        assert!(
            log[2].text.contains("rounds 5–6: idle ×2"),
            "{}",
            log[2].text
        );
        // A live round (no round number, its time in ms) collapses the same way.
        let mut log = VecDeque::new();
        for ms in [12, 7] {
            let text = format!("{:<20} 0 candidates, 0 moved, {ms} ms", "balancer.round");
            append(&mut log, line(ms, LogKind::Balancer, &text));
        }
        assert_eq!(log.len(), 1);
        assert!(
            log[0].text.contains("idle ×2 (0 candidates, 0 moved)"),
            "{}",
            log[0].text
        );
        // A round that failed is never idle.
        let failed = format!("{:<20} 0 candidates, 0 moved, 0 failed", "balancer.round");
        append(&mut log, line(20, LogKind::Error, &failed));
        assert_eq!(log.len(), 2);
    }

    #[test]
    fn a_migration_is_one_line_from_start_to_commit_or_error() {
        let mut log = VecDeque::new();
        let start = |id: u64| {
            line(
                40_000,
                LogKind::Migration,
                &format!(
                    "{:<20} #{id} app.events shard0000 → shard0001 [{{_id: 1}}, {{_id: 2}}) (1.0 MiB, chunksImbalance)",
                    "moveChunk.start"
                ),
            )
        };
        append(&mut log, start(1));
        append(&mut log, start(2));
        let commit = format!(
            "{:<20} #1 app.events shard0000 → shard0001: 1051 docs, 1.0 MiB in 1.1s",
            "moveChunk.commit"
        );
        append(&mut log, line(41_100, LogKind::Migration, &commit));
        let failed = format!(
            "{:<20} #2 app.events shard0000 → shard0001: ChunkTooBig: too big",
            "moveChunk.error"
        );
        append(&mut log, line(41_200, LogKind::Error, &failed));
        assert_eq!(log.len(), 2, "{log:?}");
        assert_eq!(
            log[0].text,
            "moveChunk            #1 app.events shard0000 → shard0001 committed: 1051 docs, 1.0 MiB in 1.1s · [{_id: 1}, {_id: 2}) (1.0 MiB, chunksImbalance)"
        );
        assert_eq!(log[0].at_ms, 40_000, "the line keeps its start's time");
        assert!(
            log[1].text.ends_with(
                "→ shard0001 failed: ChunkTooBig: too big · [{_id: 1}, {_id: 2}) (1.0 MiB, chunksImbalance)"
            ),
            "{}",
            log[1].text
        );
        assert_eq!(log[1].kind, LogKind::Error);
        assert_eq!(
            log[0].text.matches("app.events").count(),
            1,
            "the namespace once"
        );
        // An end whose start scrolled out stays a line of its own.
        append(
            &mut log,
            line(50_000, LogKind::Migration, &commit.replace("#1", "#9")),
        );
        assert_eq!(log.len(), 3);
    }
}
