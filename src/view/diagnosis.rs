//! The diagnosis as a frame shows it: the selected collection's status, cause, evidence, next move
//! and estimate in the diagnosis's own words (`diagnosis::report`), and each drain's estimate —
//! the same words the JSON, `explain` and `H` give, never worked out again here.
//!
//! Owns: picking the selected collection's diagnosis and placing its lines in the frame. May not
//! touch: the answers (`diagnosis`), ratatui, I/O.

use crate::diagnosis::{Diagnoses, Status};

use super::ClusterView;

/// The selected collection's diagnosis in words.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DiagnosisView {
    pub ns: String,
    /// `balanced`, `balancing`, `draining`, `stalled`, `blocked`, `disabled`, `unknown`.
    pub status: &'static str,
    /// The status and its cause, whole: `stalled: the recipient still holds … — OperationFailed (96): …`.
    pub status_line: String,
    /// The rule, and the MongoDB source file it follows.
    pub rule: String,
    /// The rule alone (`jumbo`, `rangeDeletionPending`, `chunksImbalance`).
    pub rule_name: &'static str,
    /// The cause in plain words, then in MongoDB's words when they differ — whole.
    pub cause: String,
    /// The events the cause rests on, whole, each with its time.
    pub events: Vec<String>,
    /// `next: shard0001 → shard0000 [{ ts: 1 }, { ts: 5 }) (drain) at 1m10s`, or why none.
    pub next: String,
    /// Why the next round moves nothing of it, when it moves nothing.
    pub next_why: Option<String>,
    /// `balanced at 1m40s (in 30.0 s, simulated)`, or why there is no estimate.
    pub eta: String,
    /// The diagnosis is of an earlier instant than the frame (it is worked out on a thread of
    /// its own): that instant.
    pub of_earlier_ms: Option<u64>,
    /// Whether the state is one an on-call engineer must act on (stalled, blocked).
    pub alarming: bool,
}

/// Puts the diagnosis of the frame's collection in `v`, and each drain's estimate in its drain
/// lines (`H`); `None` leaves the frame without one (the source has none yet).
pub fn attach(v: &mut ClusterView, d: Option<&Diagnoses>, ns: Option<&str>) {
    let Some(d) = d else {
        return;
    };
    let unix = !v.clock.virtual_time;
    let shown = |ms: u64| crate::units::clock_time(v.clock.shown_ms(ms), unix);
    if let Some(one) = ns.and_then(|ns| d.of(ns)) {
        v.diagnosis = Some(DiagnosisView {
            ns: one.ns.clone(),
            status: one.status.as_str(),
            status_line: one.status_line(),
            rule_name: one.cause.rule,
            cause: match one.cause.clears_at_ms {
                Some(t) => format!(
                    "{} · it goes at {} (the range deleter runs)",
                    one.cause_text(),
                    shown(t)
                ),
                None => one.cause_text(),
            },
            rule: match one.cause.source {
                Some(src) => format!("{} [{src}]", one.cause.rule),
                None => one.cause.rule.to_string(),
            },
            events: (one.cause.events.iter())
                .map(|e| format!("{} {}", shown(e.at_ms), e.text))
                .collect(),
            next: one.next_text(&shown),
            next_why: match &one.next {
                crate::diagnosis::Next::Nothing(why) => Some(why.clone()),
                crate::diagnosis::Next::Move(_) => None,
            },
            eta: one.eta.text(one.at_ms, &shown),
            of_earlier_ms: (one.at_ms != v.clock.time_ms).then_some(one.at_ms),
            alarming: matches!(one.status, Status::Stalled | Status::Blocked),
        });
    }
    if let Some(h) = v.history.as_mut() {
        for p in &mut h.progress {
            let Some(shard) = p.what.strip_prefix("draining ") else {
                continue;
            };
            if let Some(drain) = d.drains.iter().find(|x| x.shard == shard) {
                p.detail = format!("{} · {}", p.detail, drain.eta.text(d.at_ms, &shown));
            }
        }
    }
    v.drain_estimates = (d.drains.iter()).map(|x| x.text(d.at_ms, &shown)).collect();
}
