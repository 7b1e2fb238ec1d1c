//! What a poll may say of the migrations in flight and of why the balancer is or is not
//! balancing: each migration's reason as far as the server tells it (else `unknown`), its range's
//! size estimate (else unknown), and the "why" lines made consistent with the balancer's mode,
//! each collection's own balancing settings and what is in flight.
//!
//! Owns: these pure rules over a [`Cluster`] and the documents a poll read. May not touch: the
//! connection (the poller reads), the simulator's rules.

use std::collections::HashSet;

use bson::{Bson, Document};

use crate::cluster::Cluster;
use crate::cluster::event::MigrationReason;
use crate::model::{ShardIdx, ShardKey};

/// The `firstComplianceViolation` `balancerCollectionStatus` gave for `ns`, from the compliance
/// lines (`"<ns>: <violation>"`); `None` when compliant or not asked.
pub fn violation_of<'a>(compliance: &'a [String], ns: &str) -> Option<&'a str> {
    compliance
        .iter()
        .find_map(|l| l.strip_prefix(ns)?.strip_prefix(": "))
        .filter(|v| !v.starts_with("balanced"))
}

/// The `forceJumbo` of a donor's `moveChunk` / `_shardsvrMoveRange` command: 0 = do not force,
/// 1 = a manual `moveChunk` / `moveRange` with `forceJumbo: true`, 2 = the balancer forcing.
// 4.4 `s/request_types/move_chunk_request.h` (`MoveChunkRequest::ForceJumbo`), 8.0
// `s/request_types/move_range_request.idl` (`ForceJumbo`).
fn force_jumbo(cmd: &Document) -> i64 {
    match cmd.get("forceJumbo") {
        Some(Bson::Int32(n)) => i64::from(*n),
        Some(Bson::Int64(n)) => *n,
        Some(Bson::Boolean(true)) => 1,
        _ => 0,
    }
}

/// Why a migration of `ns` off shard `from` is running, from what is known: a manual move that
/// forces a jumbo chunk says so in its command; a draining donor is being emptied; a
/// collection being defragmented moves small chunks; otherwise `balancerCollectionStatus`'s
/// violation — when the balancer would act on it — else `unknown` (a balancer move and a
/// manual `moveChunk` / `moveRange` look the same in `$currentOp`).
// 8.0 `db/s/balancer/balancer.cpp` (`getBalancerStatusForNs`: `draining`, `zoneViolation`,
// `chunksImbalance`, `defragmentingChunks`), `balancer_policy.cpp` (the draining loop first).
pub fn reason(
    cmd: &Document,
    cluster: &Cluster,
    ns: &str,
    from: ShardIdx,
    violation: Option<&str>,
) -> MigrationReason {
    if force_jumbo(cmd) == 1 {
        return MigrationReason::ManualForce;
    }
    if cluster
        .shards
        .get(from.index())
        .is_some_and(|s| s.shard.draining)
    {
        return MigrationReason::Drain;
    }
    let Some(c) = cluster.collection(ns) else {
        return MigrationReason::Unknown;
    };
    if c.defragmentation.is_some() || violation == Some("defragmentingChunks") {
        return MigrationReason::Defragmentation;
    }
    let balancer_acts = cluster.balancer_mode().migrates()
        && !c.balancing.no_balance
        && !c.balancing.migrations_blocked;
    match violation {
        Some("zoneViolation") if balancer_acts => MigrationReason::ZoneViolation,
        Some("chunksImbalance") if balancer_acts => MigrationReason::ChunksImbalance,
        Some("draining") if balancer_acts => MigrationReason::Drain,
        _ => MigrationReason::Unknown,
    }
}

/// The size of the range `[min, max)` of `ns` on shard `from`, estimated from the donor's owned
/// bytes spread over its chunks, when the range is made of whole chunks of the donor and the
/// donor's size of the collection was read (`sized` holds `(ns, shard)`); `None` otherwise.
pub fn size<S: std::hash::BuildHasher>(
    cluster: &Cluster,
    ns: &str,
    (min, max): (&ShardKey, &ShardKey),
    from: ShardIdx,
    sized: &HashSet<(String, String), S>,
) -> Option<u64> {
    if !sized.contains(&(ns.to_string(), cluster.shard_id(from).to_string())) {
        return None;
    }
    let table = &cluster.collection(ns)?.table;
    let mut i = table.route(min);
    if table.chunk(i).min != min {
        return None;
    }
    let mut bytes = 0u64;
    while i < table.len() {
        let chunk = table.chunk(i);
        if chunk.info.shard != from || chunk.max > max {
            return None;
        }
        bytes = bytes.saturating_add(chunk.info.stats.bytes);
        if chunk.max == max {
            return Some(bytes);
        }
        i += 1;
    }
    None
}

/// The "why" lines: `balancerCollectionStatus`'s answer per collection (`compliance`), told
/// with what makes it so or not so — the balancer's mode, `noBalance`, `permitMigrations:
/// false`, a defragmentation, a migration in flight.
pub fn why(cluster: &Cluster, compliance: &[String]) -> Vec<String> {
    let mode = cluster.balancer_mode();
    let mut out = Vec::new();
    for c in &cluster.collections {
        let line = compliance
            .iter()
            .find_map(|l| l.strip_prefix(c.ns.as_str())?.strip_prefix(": "));
        let compliant = line.is_some_and(|l| l.starts_with("balanced"));
        let moving = cluster.balancer.migrating_in(&c.ns);
        let mut parts: Vec<String> = Vec::new();
        if c.balancing.no_balance {
            parts.push("noBalance (the balancer skips it)".into());
        }
        if c.balancing.migrations_blocked {
            parts.push("permitMigrations: false (no migration commits)".into());
        }
        if let Some(p) = c.defragmentation {
            parts.push(format!("defragmenting (phase {})", p.as_str()));
        }
        match line {
            Some(_) if compliant && moving => parts.push(
                "a migration in flight (balancerCollectionStatus said balancerCompliant)".into(),
            ),
            Some(l) if compliant => parts.push(l.to_string()),
            Some(l) => {
                let mut text = l.to_string();
                let issue = matches!(l, "chunksImbalance" | "zoneViolation" | "draining");
                if issue && !mode.migrates() && parts.is_empty() {
                    text.push_str(&format!(", but balancer {}: no migrations", mode.as_str()));
                } else if issue && !parts.is_empty() {
                    text = format!("{l} left as is");
                }
                parts.push(text);
            }
            None if moving => parts.push("a migration in flight".into()),
            None => {}
        }
        if !parts.is_empty() {
            out.push(format!("{}: {}", c.ns, parts.join("; ")));
        }
    }
    // Lines about collections this state does not hold are kept as they were.
    out.extend(
        compliance
            .iter()
            .filter(|l| {
                !cluster.collections.iter().any(|c| {
                    l.strip_prefix(c.ns.as_str())
                        .is_some_and(|r| r.starts_with(": "))
                })
            })
            .cloned(),
    );
    out
}
