//! Scheduled actions that failed: each is emitted as an event and kept in the cluster's state
//! ([`crate::cluster::failed_actions`]), as a refused command is part of the story a scenario
//! tells (the `reshard` scenario's first attempt).

use crate::cluster::failed_actions::FailedAction;
use crate::cluster::{EventKind, MongoError};
use crate::sim::engine::Simulator;
use crate::sim::scenario::Action;

impl Simulator {
    /// Carries out `action`; a refusal is kept and emitted.
    pub(in crate::sim) fn run_action(&mut self, action: &Action) {
        if let Err(error) = self.apply_action(action) {
            self.action_failed(action.path(), action.name(), error);
        }
    }

    /// Keeps and emits the failure of the action at `path`.
    pub(in crate::sim) fn action_failed(&mut self, path: String, command: &str, error: MongoError) {
        self.emit(EventKind::ActionFailed {
            path: path.clone(),
            command: command.to_string(),
            error: error.clone(),
        });
        self.cluster.record_failed_action(FailedAction {
            path,
            command: command.to_string(),
            at_ms: self.cluster.now_ms,
            error,
        });
    }

    /// The scheduled actions that failed, in order (the first
    /// [`crate::cluster::failed_actions::KEPT`]).
    pub fn failed_actions(&self) -> &[FailedAction] {
        &self.cluster.failed_actions
    }

    /// [`Simulator::failed_actions`] as text lines (`t=120s reshardCollection
    /// (actions[2].do.reshardCollection): …`).
    pub fn action_errors(&self) -> Vec<String> {
        self.cluster
            .failed_actions
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    /// The next action due at the current time, if any, its repetition (`every`) scheduled.
    pub(in crate::sim) fn take_due_action(&mut self) -> Option<Action> {
        let action = self.actions.get(self.next_action)?;
        if action.at_ms() > self.cluster.now_ms {
            return None;
        }
        let action = action.clone();
        self.next_action += 1;
        if let Some(every) = action.every.filter(|e| e.is_finite() && *e > 0.0) {
            let mut again = action.clone();
            again.at += every;
            let at = self.next_action
                + self.actions[self.next_action..].partition_point(|a| a.at_ms() <= again.at_ms());
            self.actions.insert(at, again);
        }
        Some(action)
    }
}
