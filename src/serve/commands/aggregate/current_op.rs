//! `$currentOp` (the first stage of `aggregate: 1` on admin): the operations the shards report to
//! a mongos asked with `localOps: false` — one per migration in flight (the simulator balancer's
//! `in_flight`: the donor shard's `moveChunk` command before 6.0, `_shardsvrMoveRange` from 6.0)
//! and, per collection being resharded, its coordinator, donors and recipients
//! (`current_op_resharding`).
//! `localOps: true` asks for the mongos' own operations: there are none to show.
//!
//! The fields follow MongoDB's `$currentOp` output (`shard`, `host`, `desc`, `type: "op"`,
//! `active`, `opid`, `secs_running`, `microsecs_running`, `op: "command"`, `ns`, `command`);
//! `desc` and `opid` are shardtop's (the simulator has no connections), and `shardtop` carries
//! the simulator's own figures (bytes, expected end).

use bson::{Bson, DateTime, Document, doc};

use crate::cluster::{MongoError, ServerVersion};
use crate::serve::state::State;

/// `$currentOp` with its options document.
pub fn current_op(state: &State, options: &Bson) -> Result<Vec<Document>, MongoError> {
    let Bson::Document(options) = options else {
        return Err(MongoError {
            code: 40602,
            code_name: "Location40602",
            message: "$currentOp options must be specified in an object".into(),
        });
    };
    if matches!(options.get("localOps"), Some(Bson::Boolean(true))) {
        return Ok(Vec::new());
    }
    let mut ops = migrations(state);
    ops.extend(crate::serve::commands::aggregate::current_op_resharding::entries(state));
    Ok(ops)
}

fn host(id: &str) -> String {
    format!("{id}.shardtop.sim:27018")
}

/// Seconds and microseconds since `started_ms` on the simulator's clock.
fn running(state: &State, started_ms: u64) -> (i64, i64) {
    let ms = state.sim.now_ms().saturating_sub(started_ms) as i64;
    (ms / 1000, ms * 1000)
}

fn migrations(state: &State) -> Vec<Document> {
    let cluster = &state.sim.cluster;
    let v = cluster.version;
    state
        .sim
        .cluster
        .balancer
        .in_flight
        .iter()
        .filter_map(|m| {
            let index = cluster.collection_index(&m.ns)?;
            let c = &cluster.collections[index];
            // The collection's own chunk size (configureCollectionBalancing) or the cluster's.
            let chunk_bytes = cluster.chunk_size_of(index) as i64;
            let (from, to) = (cluster.shard_id(m.from), cluster.shard_id(m.to));
            let min = c.pattern.bound_to_document(&m.min);
            let max = c
                .pattern
                .bound_to_document(m.end.as_ref().unwrap_or(&m.max));
            let msg = format!("moving [{min}, {max}) from {from} to {to}");
            // `ForceJumbo`: 0 do not force, 1 a manual move with `forceJumbo: true`, 2 the
            // balancer forcing (a drain).
            // 8.0 `s/request_types/move_range_request.idl`, 4.4 `move_chunk_request.h`.
            let force_jumbo: i32 = match m.reason {
                crate::cluster::event::MigrationReason::ManualForce => 1,
                r if r.is_forced() => 2,
                _ => 0,
            };
            let command = if v < ServerVersion::V6_0 {
                doc! {
                    "moveChunk": &m.ns, "fromShard": from, "toShard": to, "min": min, "max": max,
                    "maxChunkSizeBytes": chunk_bytes, "waitForDelete": false,
                    "forceJumbo": force_jumbo, "$db": "admin",
                }
            } else {
                doc! {
                    "_shardsvrMoveRange": &m.ns, "fromShard": from, "toShard": to, "min": min,
                    "max": max, "maxChunkSizeBytes": chunk_bytes, "waitForDelete": false,
                    "forceJumbo": force_jumbo, "secondaryThrottle": false, "$db": "admin",
                }
            };
            let (secs, micros) = running(state, m.started_ms);
            let now = state.unix_secs_at(state.sim.now_ms() / 1000) as i64 * 1000;
            Some(doc! {
                "shard": from,
                "host": host(from),
                "desc": format!("migration-{}", m.id),
                "type": "op",
                "active": true,
                "currentOpTime": DateTime::from_millis(now),
                "opid": format!("{from}:{}", m.id),
                "secs_running": secs,
                "microsecs_running": micros,
                "op": "command",
                "ns": &m.ns,
                "command": command,
                "msg": msg,
                "shardtop": {
                    "bytes": m.bytes.unwrap_or(0) as i64,
                    "startedMs": m.started_ms as i64,
                    "finishMs": m.finish_ms as i64,
                    "reason": m.reason.as_str(),
                },
            })
        })
        .collect()
}
