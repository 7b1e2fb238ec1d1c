//! The whole of a simulator's or a trace's event for the event log's detail view: the log line
//! the view makes of it, with the event in the trace format's JSON (`trace::event_codec`, the
//! form `sim --record` writes) and its error — code, code name and message — whole.
//!
//! Owns: attaching that detail to a line. May not touch: the terminal, the line's words (the
//! view's `log_line` makes them).

use crate::cluster::{Cluster, Event, EventKind, MongoError};
use crate::trace::event_codec::{Names, encode};
use crate::view::{self, EventDetail, EventDocument, EventError, LogLine};

/// Where a line's event comes from, as the detail view names it.
pub const SIMULATOR: &str = "simulator event";
pub const TRACE: &str = "trace event";

/// The log line of `e` (emitted from `state`), with its detail; `None` for events the log leaves
/// out.
pub fn log_line(state: &Cluster, e: &Event, origin: &str) -> Option<LogLine> {
    let mut line = view::log_line(state, e)?;
    let json = encode(e, &Names { state }).to_string();
    let error = error_of(&e.kind).map(|m| EventError {
        code: Some(m.code),
        code_name: Some(m.code_name.to_string()),
        errmsg: m.message.clone(),
    });
    line.detail = Some(EventDetail::of(EventDocument::new(origin, &json), error));
    Some(line)
}

/// The error an event reports.
fn error_of(kind: &EventKind) -> Option<&MongoError> {
    match kind {
        EventKind::SplitFailed { error, .. }
        | EventKind::MigrationFailed { error, .. }
        | EventKind::ReshardingAborted { error, .. }
        | EventKind::ActionFailed { error, .. } => Some(error),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::sim::{Simulator, scenario};

    #[test]
    fn a_simulator_event_carries_its_trace_json_and_a_failed_one_its_error_whole() {
        // `manual`: a move back onto a shard holding the range's orphans fails at 74 s.
        let sc = scenario::built_in("manual").unwrap().unwrap();
        let mut sim = Simulator::from_scenario(&sc, sc.seed, None).unwrap();
        let mut lines = Vec::new();
        while sim.now_ms() < 600_000
            && !lines
                .iter()
                .any(|l: &LogLine| l.kind == view::LogKind::Error)
        {
            sim.step();
            for e in sim.take_events() {
                lines.extend(log_line(&sim.cluster, &e, SIMULATOR));
            }
        }
        let first = lines[0].detail.as_ref().unwrap();
        let doc: serde_json::Value = serde_json::from_str(&first.documents[0].json).unwrap();
        assert!(doc.get("what").is_some() && doc.get("t").is_some(), "{doc}");
        assert_eq!(first.documents[0].origin, SIMULATOR);
        let failed = lines
            .iter()
            .find(|l| l.kind == view::LogKind::Error)
            .unwrap();
        let error = failed.detail.as_ref().unwrap().error.as_ref().unwrap();
        assert_eq!(error.code, Some(96));
        assert_eq!(error.code_name.as_deref(), Some("OperationFailed"));
        let cause = error.cause().unwrap();
        assert_eq!(
            cause.cause,
            "orphans of the range are still on the recipient"
        );
        assert!(
            failed.detail.as_ref().unwrap().documents[0]
                .json
                .contains(&error.errmsg.replace('"', "\\\"")),
            "the document holds the whole message"
        );
    }
}
