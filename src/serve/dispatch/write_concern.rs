//! The write concern of a write, as a shard answers it and a mongos forwards it: each shard of
//! `serve` is a replica set of one data-bearing member (`config.shards` lists one host), so
//!
//! - `w` a mode other than `"majority"` is UnknownReplWriteConcern (79), "No write concern mode
//!   named 'X' found in replica set configuration" (`db/repl/repl_set_config.cpp`,
//!   `findCustomWriteMode`);
//! - `w` a number above 1 is UnsatisfiableWriteConcern (100), "Not enough data-bearing nodes"
//!   (`repl_set_config.cpp`, `checkIfWriteConcernCanBeSatisfied`);
//!
//! and, as on a server, the write is applied first and the error reported beside it in
//! `writeConcernError` (`ok: 1`; the read-write-concern specification's example: `n: 1` with
//! the error). The mongos adds " at <shard>" to the shard's message; several shards make one
//! WriteConcernFailed (64), "multiple errors reported : <code name>: <message> at <shard> :: and
//! :: …"; a batch whose statements all failed (ordered: any failed) reports none
//! (`s/write_ops/batch_write_op.cpp`, `buildClientResponse`). `findAndModify` forwards the
//! shard's error with its `errInfo` (`s/cluster_commands_helpers.cpp`,
//! `appendWriteConcernErrorToCmdResponse`).
//!
//! The shards are those the write is routed to: by each document's shard key (insert) or each
//! statement's filter (update, delete, findAndModify) over the routing table; the database's
//! primary for a collection the simulator does not shard.
//!
//! Not modelled: `w` as a tag document, `j`, `wtimeout` (nothing waits: one member), the parse
//! errors of a malformed `writeConcern`; a write inside a transaction is left alone (its write
//! concern is the commit's).

use bson::{Bson, Document, doc};

use crate::cluster::MongoError;
use crate::model::ShardIdx;
use crate::serve::reply::raw_reply::Reply;
use crate::serve::state::State;
use crate::serve::state::sessions::Current;

/// The shard's write concern error for `cmd`'s `writeConcern`, when it cannot be satisfied by a
/// one-member replica set.
pub fn shard_error(cmd: &Document) -> Option<MongoError> {
    let w = cmd.get_document("writeConcern").ok()?.get("w")?;
    match w {
        Bson::String(mode) if mode != "majority" => Some(MongoError {
            code: 79,
            code_name: "UnknownReplWriteConcern",
            message: format!(
                "No write concern mode named '{mode}' found in replica set configuration"
            ),
        }),
        Bson::Int32(_) | Bson::Int64(_) | Bson::Double(_) => {
            let n = match w {
                Bson::Int32(n) => i64::from(*n),
                Bson::Int64(n) => *n,
                Bson::Double(f) => *f as i64,
                _ => 0,
            };
            (n > 1).then(|| MongoError {
                code: 100,
                code_name: "UnsatisfiableWriteConcern",
                message: "Not enough data-bearing nodes".to_string(),
            })
        }
        _ => None,
    }
}

/// Adds `writeConcernError` to a write command's reply when its write concern cannot be met.
pub fn apply(
    state: &State,
    name: &str,
    db: &str,
    cmd: &Document,
    result: Result<Reply, MongoError>,
) -> Result<Reply, MongoError> {
    let mut reply = match result {
        Ok(Reply::Doc(reply)) => reply,
        other => return other,
    };
    let batch = match name {
        "insert" => Some("documents"),
        "update" => Some("updates"),
        "delete" => Some("deletes"),
        "findAndModify" | "findandmodify" => None,
        _ => return Ok(Reply::Doc(reply)),
    };
    if matches!(state.sessions.current, Current::Txn(_)) {
        return Ok(Reply::Doc(reply));
    }
    let Some(e) = shard_error(cmd) else {
        return Ok(Reply::Doc(reply));
    };
    let Some(Bson::String(coll)) = cmd.get(name) else {
        return Ok(Reply::Doc(reply));
    };
    let ns = format!("{db}.{coll}");
    if let Some(field) = batch {
        let statements = cmd.get_array(field).map_or(0, Vec::len);
        let failed = reply.get_array("writeErrors").map_or(0, Vec::len);
        let ordered = !matches!(cmd.get("ordered"), Some(Bson::Boolean(false)));
        if failed > 0 && (ordered || failed >= statements) {
            return Ok(Reply::Doc(reply));
        }
    }
    let shards = targets(state, db, &ns, name, cmd);
    let names: Vec<String> = shards
        .iter()
        .filter_map(|s| state.sim.cluster.shards.get(s.index()))
        .map(|s| s.shard.id.clone())
        .collect();
    let wce = match names.as_slice() {
        [] => return Ok(Reply::Doc(reply)),
        [one] => {
            let mut d = doc! { "code": e.code, "codeName": e.code_name,
            "errmsg": format!("{} at {one}", e.message) };
            if batch.is_none() {
                let w = cmd
                    .get_document("writeConcern")
                    .ok()
                    .and_then(|wc| wc.get("w"))
                    .cloned()
                    .unwrap_or(Bson::Int32(1));
                d.insert(
                    "errInfo",
                    doc! { "writeConcern": { "w": w, "wtimeout": 0, "provenance": "clientSupplied" } },
                );
            }
            d
        }
        many => {
            let parts: Vec<String> = many
                .iter()
                .map(|s| format!("{}: {} at {s}", e.code_name, e.message))
                .collect();
            doc! { "code": 64, "codeName": "WriteConcernFailed",
            "errmsg": format!("multiple errors reported : {}", parts.join(" :: and :: ")) }
        }
    };
    reply.insert("writeConcernError", wce);
    Ok(Reply::Doc(reply))
}

/// The shards a write to `ns` is routed to, sorted, without repeats.
fn targets(state: &State, db: &str, ns: &str, name: &str, cmd: &Document) -> Vec<ShardIdx> {
    let cluster = &state.sim.cluster;
    let Some(coll) = cluster.collection(ns) else {
        return vec![cluster.databases.get(db).copied().unwrap_or(ShardIdx(0))];
    };
    let filters: Vec<Document> = match name {
        "insert" => cmd
            .get_array("documents")
            .map(|docs| {
                docs.iter()
                    .filter_map(Bson::as_document)
                    .map(|d| {
                        let mut f = Document::new();
                        for field in coll.pattern.fields() {
                            let v = crate::serve::query::get_path(d, &field.path)
                                .cloned()
                                .unwrap_or(Bson::Null);
                            f.insert(field.path.to_string(), v);
                        }
                        f
                    })
                    .collect()
            })
            .unwrap_or_default(),
        "update" | "delete" => cmd
            .get_array(if name == "update" {
                "updates"
            } else {
                "deletes"
            })
            .map(|s| {
                s.iter()
                    .filter_map(Bson::as_document)
                    .map(|s| s.get_document("q").cloned().unwrap_or_default())
                    .collect()
            })
            .unwrap_or_default(),
        _ => vec![cmd.get_document("query").cloned().unwrap_or_default()],
    };
    let mut shards: Vec<ShardIdx> = filters
        .iter()
        .flat_map(|f| crate::model::targeting::target(&coll.pattern, &coll.table, f).shards)
        .collect();
    shards.sort_unstable();
    shards.dedup();
    shards
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_mode_or_a_number_a_one_member_set_cannot_meet() {
        let unknown = shard_error(&doc! { "writeConcern": { "w": "blah" } }).unwrap();
        assert_eq!(
            (unknown.code, unknown.code_name),
            (79, "UnknownReplWriteConcern")
        );
        assert_eq!(
            unknown.message,
            "No write concern mode named 'blah' found in replica set configuration"
        );
        let two = shard_error(&doc! { "writeConcern": { "w": 2 } }).unwrap();
        assert_eq!(
            (two.code, two.code_name),
            (100, "UnsatisfiableWriteConcern")
        );
        assert!(shard_error(&doc! { "writeConcern": { "w": "majority" } }).is_none());
        assert!(shard_error(&doc! { "writeConcern": { "w": 1 } }).is_none());
        assert!(shard_error(&doc! { "writeConcern": { "w": 0 } }).is_none());
        assert!(shard_error(&doc! {}).is_none());
    }
}
