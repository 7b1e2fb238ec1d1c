//! The scheduled actions of a scenario that MongoDB refused, as part of the cluster's state (so a
//! replay at any time knows them as the simulator did): the summaries' `errors` and "scheduled
//! action failed" lines. The first [`KEPT`] are kept.

use serde_json::{Value, json};

use super::{Cluster, MongoError};

/// Failed actions kept (a repeating action that always fails adds one per run).
pub const KEPT: usize = 1_000;

/// A scheduled action MongoDB refused.
#[derive(Clone, Debug, PartialEq)]
pub struct FailedAction {
    /// Where the action is in the scenario file: `actions[3].do.split`.
    pub path: String,
    /// The command's name.
    pub command: String,
    /// When, in the source's milliseconds.
    pub at_ms: u64,
    pub error: MongoError,
}

impl std::fmt::Display for FailedAction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "t={}s {} ({}): {}",
            self.at_ms / 1000,
            self.command,
            self.path,
            self.error
        )
    }
}

impl FailedAction {
    /// The JSON of the summary's `errors` list (and of keyframes).
    pub fn json(&self) -> Value {
        json!({
            "path": self.path,
            "command": self.command,
            "atSeconds": self.at_ms as f64 / 1000.0,
            "code": self.error.code,
            "codeName": self.error.code_name,
            "errmsg": self.error.message,
        })
    }
}

impl Cluster {
    /// Keeps a failed action (the first [`KEPT`]).
    pub fn record_failed_action(&mut self, failed: FailedAction) {
        if self.failed_actions.len() < KEPT {
            self.failed_actions.push(failed);
        }
    }
}
