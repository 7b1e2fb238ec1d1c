//! What a poll reads of the balancer: `balancerStatus` (mode, rounds, a round in progress),
//! `balancerCollectionStatus` of each collection (why it is not balanced), and the migrations in
//! flight as `$currentOp` shows the donors' commands.

use bson::{Document, doc};

use super::client::{LiveClient, LiveError};
use super::refusals::Refusals;
use crate::cluster::Cluster;
use crate::cluster::balancer::{BalancerState, RoundInProgress};

/// What a poll read of the balancer, for [`install`].
pub(super) struct BalancerRead<'a> {
    pub status: &'a Document,
    /// The migrations `$currentOp` shows in flight.
    pub ops: &'a [Document],
    /// `balancerCollectionStatus`'s answers, in words (`compliance.rs`).
    pub compliance: Vec<String>,
    /// The `(ns, shard)` pairs whose data size was read.
    pub sized: &'a std::collections::HashSet<(String, String)>,
    pub drains: Vec<crate::cluster::drain::DrainStatus>,
}

/// Puts what a poll read of the balancer in `state`: its state and mode, its answers per
/// collection, the migrations in flight with their reasons, why it is or is not balancing, the
/// drains and the window now. `(now_ms, origin_ms)`: the poll's clock and the wall-clock time of
/// its 0.
pub(super) fn install(
    state: &mut Cluster,
    read: BalancerRead,
    logs: &super::logs::LogTails,
    (now_ms, origin_ms): (u64, u64),
) {
    state.balancer = self::state(read.status, logs, (now_ms, origin_ms));
    state.balancer.compliance = super::compliance::answers(&read.compliance);
    if let Some(mode) = mode(read.status) {
        state.set_balancer_mode(mode);
    }
    let known = (read.compliance.as_slice(), read.sized);
    state.balancer.in_flight = (read.ops.iter().enumerate())
        .filter_map(|(k, op)| in_flight(state, op, now_ms, k as u64 + 1, known))
        .collect();
    let mut why_not = super::in_flight::why(state, &read.compliance);
    if let Some(e) = &logs.round_error {
        why_not.push(format!("the last balancer round failed: {e}"));
    }
    state.balancer.why_not = why_not;
    state.balancer.drains = read.drains;
    state.balancer.window_now = state.settings.active_window.map(|w| {
        let rounds: Vec<u64> = logs.round_times_ms.iter().copied().collect();
        let wall_ms = now_ms + origin_ms;
        crate::cluster::balancing_window::infer(w.start_minute, w.stop_minute, &rounds, wall_ms)
    });
}

/// The balancer's state from `balancerStatus` and the logs' counts of migrations and outcomes;
/// its next round one interval after the last round the actionlog holds (the round schedule a
/// fork keeps), at the poll when none is held. `origin_ms` is the wall-clock time of the poll's
/// clock 0.
pub(super) fn state(
    status: &Document,
    logs: &super::logs::LogTails,
    (now_ms, origin_ms): (u64, u64),
) -> BalancerState {
    let (completed, from) = logs.moved();
    // 8.0 `db/s/balancer/balancer.cpp`: `kBalanceRoundDefaultInterval` after a round.
    // A round logged after the poll's own time (a server whose clock runs ahead of ours, as
    // serve's virtual one does) tells nothing of the schedule: the next round is then now.
    let next_round_ms = (logs.round_times_ms.back())
        .map(|&t| t.saturating_sub(origin_ms))
        .filter(|&t| t <= now_ms)
        .map_or(now_ms, |t| {
            (t + crate::cluster::balancer::ROUND_INTERVAL_MS).max(now_ms)
        });
    BalancerState {
        rounds: status
            .get_i64("numBalancerRounds")
            .or_else(|_| status.get_i32("numBalancerRounds").map(i64::from))
            .unwrap_or(0) as u64,
        round: status
            .get_bool("inBalancerRound")
            .unwrap_or(false)
            .then_some(RoundInProgress {
                number: 0,
                started_ms: now_ms,
                candidates: 0,
                migration_ids: Vec::new(),
                moved: 0,
                failed: 0,
            }),
        next_round_ms,
        completed,
        completed_from: Some(from),
        failed: logs.failed,
        outcomes: logs.outcomes.clone(),
        ..BalancerState::default()
    }
}

/// The mode `balancerStatus` reports (`full`, `autoSplitOnly`, `off`): the config server's own
/// reading of its settings, which wins over the documents. `None` when it says none.
// 8.0 `db/s/config/configsvr_balancer_control_command.cpp` (`mode` of the reply).
pub(super) fn mode(status: &Document) -> Option<crate::cluster::balancer::BalancerMode> {
    status
        .get_str("mode")
        .ok()
        .and_then(crate::cluster::balancer::BalancerMode::parse)
}

/// Migrations in flight, as `$currentOp` shows the donors' `moveChunk` /
/// `_shardsvrMoveRange` commands; any refusal is the caller's to note (the balancer pane then
/// says why it shows none).
pub(super) async fn current_migrations(client: &LiveClient) -> Result<Vec<Document>, LiveError> {
    let cmd = doc! {"aggregate": 1, "pipeline": [
        {"$currentOp": {"allUsers": true, "localOps": false}},
        {"$match": {"$or": [
            {"command.moveChunk": {"$exists": true}},
            {"command._shardsvrMoveRange": {"$exists": true}},
        ]}},
    ], "cursor": {}};
    client.drain("admin", cmd).await
}

/// `balancerCollectionStatus` of each collection, in words. A cluster without the command
/// (version) gives no reason; one that refuses it to this user (it needs `enableSharding`, which
/// clusterMonitor lacks) is noted once and not asked again this poll.
pub(super) async fn compliance(
    client: &LiveClient,
    names: Vec<String>,
    refused: &mut Refusals,
) -> Vec<String> {
    let mut out = Vec::new();
    for ns in names {
        let r = match client
            .command("admin", doc! {"balancerCollectionStatus": ns.as_str()})
            .await
        {
            Ok(r) => r,
            Err(e) if e.unauthorized => {
                refused.note(&super::privileges::balancer_collection_status(&ns));
                break;
            }
            Err(e) => {
                if e.code.is_some() {
                    refused.failed(&super::privileges::balancer_collection_status(&ns), &e);
                }
                continue;
            }
        };
        if r.get_bool("balancerCompliant").unwrap_or(true) {
            out.push(format!("{ns}: balanced (balancerCompliant)"));
        } else {
            let why = r
                .get_str("firstComplianceViolation")
                .unwrap_or("not compliant");
            out.push(format!("{ns}: {why}"));
        }
    }
    out
}

/// One `$currentOp` migration as a `Migration` in flight; its end is unknown, so
/// `finish_ms` = `started_ms` (the view shows no progress). Its reason and size are what
/// `in_flight` can tell from `compliance` (the `balancerCollectionStatus` lines) and the data
/// sizes read (`sized`: `(ns, shard)`), else unknown.
pub(super) fn in_flight(
    state: &Cluster,
    op: &Document,
    now_ms: u64,
    id: u64,
    (compliance, sized): (&[String], &std::collections::HashSet<(String, String)>),
) -> Option<crate::cluster::balancer::Migration> {
    let cmd = op.get_document("command").ok()?;
    let ns = cmd
        .get_str("moveChunk")
        .or_else(|_| cmd.get_str("_shardsvrMoveRange"))
        .ok()?;
    let c = state.collection(ns)?;
    let min = c
        .pattern
        .bound_from_document(cmd.get_document("min").ok()?)
        .ok()?;
    let max = match cmd.get_document("max") {
        Ok(d) => c.pattern.bound_from_document(d).ok()?,
        Err(_) => c.table.chunk(c.table.route(&min)).max.clone(),
    };
    let from = state.shard_index(cmd.get_str("fromShard").ok()?)?;
    let to = state.shard_index(cmd.get_str("toShard").ok()?)?;
    let secs = op
        .get_i64("secs_running")
        .or_else(|_| op.get_i32("secs_running").map(i64::from))
        .unwrap_or(0)
        .max(0) as u64;
    let started_ms = now_ms.saturating_sub(secs * 1000);
    let violation = super::in_flight::violation_of(compliance, ns);
    // A moveRange given only `min` (6.0+): the donor picks the end, so the size is not known.
    let bytes = cmd
        .get_document("max")
        .is_ok()
        .then(|| super::in_flight::size(state, ns, (&min, &max), from, sized))
        .flatten();
    Some(crate::cluster::balancer::Migration {
        id,
        ns: ns.to_string(),
        min,
        end: None,
        max,
        from,
        to,
        started_ms,
        finish_ms: started_ms,
        bytes,
        bytes_estimated: true,
        reason: super::in_flight::reason(cmd, state, ns, from, violation),
    })
}
