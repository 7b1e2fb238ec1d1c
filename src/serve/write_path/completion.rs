//! Commands a server answers only once their work is done: `moveChunk` and `moveRange` when the
//! migration commits or fails, `reshardCollection`, `moveCollection` and `unshardCollection` when
//! the resharding commits or aborts, `balancerStop` when the balancer's round in flight (and the
//! migrations it started) has ended (`joinCurrentRound`). The handler starts the work and leaves a [`Wait`]; the
//! connection holds its reply until the work is done, taking the lock only to look, so other
//! clients are answered meanwhile. With the clock paused (`--paused`) nothing would ever finish,
//! so the waiting command runs the simulator forward itself until its work is done.
// 8.0 `s/commands/cluster_move_chunk_cmd.cpp` (`millis` of the whole command),
// `cluster_move_range_cmd.cpp`, `cluster_reshard_collection_cmd.cpp` (blocks on the
// coordinator's completion); 4.4 to 8.0 `db/s/config/configsvr_control_balancer_command.cpp`
// (`balancerStop` stops the balancer, then `joinCurrentRound`: "Blocks the caller until the
// current balancing round completes", `db/s/balancer/balancer.h`).

use std::collections::VecDeque;

use bson::{Document, doc};

use crate::cluster::MongoError;
use crate::serve::reply::ok;
use crate::serve::state::State;
use crate::serve::state::waits::Wait;

/// Ticks a paused server runs for one command at most (about 28 virtual hours).
const MAX_PAUSED_TICKS: u64 = 1_000_000;

/// The answer to a waiting command once its work is done; `None` while it runs.
pub fn outcome(state: &State, wait: &Wait) -> Option<Result<Document, MongoError>> {
    match wait {
        Wait::Migration { id, millis } => {
            if migrating(state, *id) {
                return None;
            }
            let ended = latest(&state.outcomes.migrations, id);
            Some(match ended {
                Some(Ok(ms)) if *millis => {
                    Ok(ok(doc! { "millis": crate::serve::reply::number(ms) }))
                }
                Some(Err(e)) => Err(e),
                _ => Ok(ok(Document::new())),
            })
        }
        Wait::BalancerRound => state
            .sim
            .cluster
            .balancer
            .round
            .is_none()
            .then(|| Ok(ok(Document::new()))),
        Wait::Resharding { ns } => {
            let running = state
                .sim
                .cluster
                .collection(ns)
                .is_some_and(|c| c.resharding.is_some());
            if running {
                return None;
            }
            let ended = latest(&state.outcomes.reshardings, ns);
            Some(match ended {
                Some(Err(e)) => Err(e),
                _ => Ok(ok(Document::new())),
            })
        }
    }
}

/// The latest outcome noted for `key`.
fn latest<K: PartialEq, T: Clone>(list: &VecDeque<(K, T)>, key: &K) -> Option<T> {
    list.iter()
        .rev()
        .find(|(k, _)| k == key)
        .map(|(_, r)| r.clone())
}

/// A paused server: runs the simulator until `wait`'s work is done.
pub fn run_to_end(state: &mut State, wait: &Wait) -> Result<Document, MongoError> {
    for _ in 0..MAX_PAUSED_TICKS {
        if let Some(answer) = outcome(state, wait) {
            return answer;
        }
        state.sim.step();
        crate::serve::write_path::changelog::record(state);
    }
    Err(MongoError::exceeded_time_limit(
        "operation exceeded time limit: the work did not finish within 100,000 virtual seconds",
    ))
}

/// Whether migration `id` is still running.
fn migrating(state: &State, id: u64) -> bool {
    state
        .sim
        .cluster
        .balancer
        .in_flight
        .iter()
        .any(|m| m.id == id)
}

/// After a command started a migration: its reply waits for it (`millis`: `moveChunk`'s field).
pub fn wait_for_migration(state: &mut State, millis: bool) {
    let id = state.sim.cluster.next_migration_id.saturating_sub(1);
    if migrating(state, id) {
        state.wait = Some(Wait::Migration { id, millis });
    }
}

/// After `balancerStop`: its reply waits for the round in flight, when there is one.
pub fn wait_for_balancer_round(state: &mut State) {
    if state.sim.cluster.balancer.round.is_some() {
        state.wait = Some(Wait::BalancerRound);
    }
}

/// After a command started resharding `ns`: its reply waits for the commit or the abort.
pub fn wait_for_resharding(state: &mut State, ns: &str) {
    if state
        .sim
        .cluster
        .collection(ns)
        .is_some_and(|c| c.resharding.is_some())
    {
        state.wait = Some(Wait::Resharding { ns: ns.to_string() });
    }
}
