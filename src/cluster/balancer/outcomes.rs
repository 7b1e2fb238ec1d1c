//! The recent outcomes of each collection's migrations — committed, or failed with the server's
//! error — kept the same way whatever the source: the simulator's events, a replay's events, a
//! live cluster's `config.changelog` entries. They are the evidence a diagnosis names when
//! migrations fail again and again (a stall).
//!
//! Owns: the bounded record and how an event or a changelog entry adds to it. May not touch:
//! what a run of failures means (the diagnosis floor), I/O.

use std::collections::{BTreeMap, VecDeque};

use crate::cluster::Cluster;
use crate::cluster::event::{Event, EventKind};

/// Two failure entries of one migration are logged this close together at most.
pub const SAME_FAILURE_MS: u64 = 2_000;

/// Outcomes kept per collection (the newest; older ones go first).
pub const KEPT_PER_COLLECTION: usize = 16;

/// A failed migration's error as the server gave it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutcomeError {
    /// The code, when the source gives one (a changelog entry gives only `errmsg`).
    pub code: Option<i32>,
    /// The code's name (`OperationFailed`), when known.
    pub code_name: Option<String>,
    /// The whole message, never cut.
    pub message: String,
}

impl OutcomeError {
    /// `OperationFailed (96): …`, or the message alone when the code is not known.
    pub fn text(&self) -> String {
        match (&self.code_name, self.code) {
            (Some(name), Some(code)) => format!("{name} ({code}): {}", self.message),
            (Some(name), None) => format!("{name}: {}", self.message),
            _ => self.message.clone(),
        }
    }
}

/// One migration's end.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub at_ms: u64,
    pub from: String,
    pub to: String,
    /// `[min, max)` as the screen writes bounds.
    pub range: String,
    /// `None`: committed.
    pub error: Option<OutcomeError>,
}

/// The newest outcomes per namespace, oldest first.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outcomes {
    by_ns: BTreeMap<String, VecDeque<Outcome>>,
}

impl Outcomes {
    /// Adds an outcome of `ns`; one more failure of the same migration (the same range between
    /// the same shards within [`SAME_FAILURE_MS`], as a changelog's `moveChunk.error` and
    /// `moveChunk.from` both tell it) fills in what the first lacked instead of counting twice.
    /// A retry of the range is another failure (the balancer's next try comes a round later).
    pub fn push(&mut self, ns: &str, o: Outcome) {
        let kept = self.by_ns.entry(ns.to_string()).or_default();
        if let Some(last) = kept.back_mut()
            && last.error.is_some()
            && o.error.is_some()
            && last.range == o.range
            && last.from == o.from
            && last.to == o.to
            && o.at_ms.abs_diff(last.at_ms) <= SAME_FAILURE_MS
        {
            if let (Some(a), Some(b)) = (last.error.as_mut(), o.error)
                && a.message.len() < b.message.len()
            {
                *a = b;
            }
            return;
        }
        kept.push_back(o);
        if kept.len() > KEPT_PER_COLLECTION {
            kept.pop_front();
        }
    }

    /// The outcomes of `ns`, oldest first.
    pub fn of(&self, ns: &str) -> impl DoubleEndedIterator<Item = &Outcome> {
        self.by_ns.get(ns).into_iter().flatten()
    }

    /// Every namespace with its outcomes.
    pub fn iter(&self) -> impl Iterator<Item = (&String, &VecDeque<Outcome>)> {
        self.by_ns.iter()
    }

    /// Forgets the namespaces not in `keep` (dropped collections).
    pub fn retain(&mut self, keep: impl Fn(&str) -> bool) {
        self.by_ns.retain(|ns, _| keep(ns));
    }
}

impl Cluster {
    /// Adds a migration's end (a commit or a failure) to the balancer's outcomes; other events
    /// are not outcomes.
    pub fn note_outcome(&mut self, e: &Event) {
        let (range, error) = match &e.kind {
            EventKind::MigrationCommitted { range, .. } => (range, None),
            EventKind::MigrationFailed { range, error } => (
                range,
                Some(OutcomeError {
                    code: Some(error.code),
                    code_name: Some(error.code_name.to_string()),
                    message: error.message.clone(),
                }),
            ),
            _ => return,
        };
        let o = Outcome {
            at_ms: e.at_ms,
            from: self.shard_id(range.from).to_string(),
            to: self.shard_id(range.to).to_string(),
            range: format!(
                "[{}, {})",
                self.bound_text(&range.ns, &range.min),
                self.bound_text(&range.ns, &range.max)
            ),
            error,
        };
        self.balancer.outcomes.push(&range.ns, o);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failed(at_ms: u64, message: &str) -> Outcome {
        Outcome {
            at_ms,
            from: "shard0001".into(),
            to: "shard0000".into(),
            range: "[{ ts: 1 }, { ts: 5 })".into(),
            error: Some(OutcomeError {
                code: None,
                code_name: None,
                message: message.into(),
            }),
        }
    }

    #[test]
    fn a_failure_told_twice_counts_once_and_keeps_the_whole_message() {
        let mut o = Outcomes::default();
        o.push("app.events", failed(1_000, ""));
        o.push(
            "app.events",
            failed(1_200, "migrate failed: the whole message"),
        );
        let kept: Vec<&Outcome> = o.of("app.events").collect();
        assert_eq!(kept.len(), 1);
        let e = kept[0].error.as_ref().map(|e| e.message.as_str());
        assert_eq!(e, Some("migrate failed: the whole message"));
        // Ten seconds later (the next round's try) it is another failure.
        o.push("app.events", failed(11_200, "again"));
        assert_eq!(o.of("app.events").count(), 2);
    }

    #[test]
    fn only_the_newest_are_kept() {
        let mut o = Outcomes::default();
        for k in 0..40u64 {
            let mut f = failed(k * 100_000, "x");
            f.range = format!("[{k}, {})", k + 1);
            o.push("a.b", f);
        }
        assert_eq!(o.of("a.b").count(), KEPT_PER_COLLECTION);
        assert_eq!(o.of("a.b").next().map(|f| f.at_ms), Some(24 * 100_000));
    }
}
