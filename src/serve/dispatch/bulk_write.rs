//! The client-level `bulkWrite` (8.0+, on `admin`), as `s/commands/cluster_bulk_write_cmd.cpp`
//! answers it: `ops` (`insert`, `update`, `delete`, each naming its namespace by its index in
//! `nsInfo`), run in order through the write commands' own handlers (`ordered` stops at the first
//! error, `errorsOnly` leaves the successes out), answered with a cursor of one reply item per
//! op (`ok`, `idx`, `n`, `nModified`, `upserted`, or the error's `code`, `codeName`, `errmsg`)
//! and the totals `nErrors`, `nInserted`, `nMatched`, `nModified`, `nUpserted`, `nDeleted`
//! (int32s, as `BulkWriteCommandReply` declares them). Before 8.0 a mongos has no such command
//! (CommandNotFound).
//!
//! Lives beside the registry because it answers through the `insert`, `update` and `delete`
//! handlers, as a mongos turns the command into per-shard write batches. Simplified: a retried
//! `bulkWrite` (`txnNumber`) is run again rather than answered from its first reply, and it may
//! not run inside a transaction.

use bson::{Bson, Document, doc};

use crate::cluster::{MongoError, ServerVersion};
use crate::serve::commands::{insert, updates};
use crate::serve::reply::{self, Answer, ok};
use crate::serve::state::State;

fn bad(m: impl Into<String>) -> MongoError {
    MongoError::bad_value(m)
}

/// One op as the single-statement write command it is, and which kind it is.
fn as_command(
    op: &Document,
    idx: usize,
    namespaces: &[String],
) -> Result<(String, Document, &'static str), MongoError> {
    let (kind, at) = ["insert", "update", "delete"]
        .iter()
        .find_map(|k| op.get(*k).map(|v| (*k, v)))
        .ok_or_else(|| {
            bad(format!(
                "BulkWrite ops entry {idx} must have exactly one of insert, update or delete"
            ))
        })?;
    let at = match at {
        Bson::Int32(n) => usize::try_from(*n).ok(),
        Bson::Int64(n) => usize::try_from(*n).ok(),
        _ => None,
    };
    let Some(ns) = at.and_then(|i| namespaces.get(i)) else {
        return Err(bad(format!(
            "BulkWrite ops entry {idx} has an invalid nsInfo index."
        )));
    };
    let (db, coll) = ns
        .split_once('.')
        .ok_or_else(|| reply::invalid_namespace(format!("Invalid namespace specified '{ns}'")))?;
    let cmd = match kind {
        "insert" => {
            let d = reply::doc_arg(op, "document")?;
            doc! { "insert": coll, "documents": [d.clone()] }
        }
        "update" => {
            let mut stmt = doc! {
                "q": reply::doc_arg(op, "filter")?.clone(),
                "u": op.get("updateMods").cloned().unwrap_or(Bson::Document(Document::new())),
                "multi": reply::flag(op, "multi"),
                "upsert": reply::flag(op, "upsert"),
            };
            for f in ["arrayFilters", "hint", "collation", "sort"] {
                if let Some(v) = op.get(f) {
                    stmt.insert(f, v.clone());
                }
            }
            doc! { "update": coll, "updates": [stmt] }
        }
        _ => {
            let limit = i32::from(!reply::flag(op, "multi"));
            doc! { "delete": coll, "deletes": [{ "q": reply::doc_arg(op, "filter")?.clone(), "limit": limit }] }
        }
    };
    Ok((db.to_string(), cmd, kind))
}

/// The totals over the ops.
#[derive(Default)]
struct Totals {
    errors: i32,
    inserted: i32,
    matched: i32,
    modified: i32,
    upserted: i32,
    deleted: i32,
}

/// The name of a write error's code (a write command's `writeErrors` carry none).
fn code_name(code: i32) -> &'static str {
    match code {
        2 => "BadValue",
        9 => "FailedToParse",
        11000 => "DuplicateKey",
        14 => "TypeMismatch",
        15 => "Overflow",
        28 => "PathNotViable",
        66 => "ImmutableField",
        72 => "InvalidOptions",
        13 => "Unauthorized",
        17419 => "BSONObjectTooLarge",
        _ => "UnknownError",
    }
}

fn failed(idx: usize, code: i32, name: &str, message: &str, t: &mut Totals) -> Document {
    t.errors += 1;
    doc! { "ok": 0.0, "idx": idx as i32, "code": code, "codeName": name, "errmsg": message, "n": 0 }
}

/// One op's reply item from its write command's answer, its totals counted.
fn item(idx: usize, kind: &str, answer: Answer, t: &mut Totals) -> Document {
    let reply = match answer {
        Ok(r) => r,
        Err(e) => return failed(idx, e.code, e.code_name, &e.message, t),
    };
    if let Ok(errors) = reply.get_array("writeErrors")
        && let Some(Bson::Document(w)) = errors.first()
    {
        let code = w.get_i32("code").unwrap_or(2);
        let message = w.get_str("errmsg").unwrap_or_default();
        return failed(idx, code, code_name(code), message, t);
    }
    let n = reply.get_i32("n").unwrap_or(0);
    let mut out = doc! { "ok": 1.0, "idx": idx as i32, "n": n };
    match kind {
        "insert" => t.inserted += n,
        "delete" => t.deleted += n,
        _ => {
            let modified = reply.get_i32("nModified").unwrap_or(0);
            out.insert("nModified", modified);
            t.modified += modified;
            match reply
                .get_array("upserted")
                .ok()
                .and_then(|u| u.first())
                .and_then(|u| u.as_document())
            {
                Some(u) => {
                    t.upserted += 1;
                    out.insert(
                        "upserted",
                        doc! { "_id": u.get("_id").cloned().unwrap_or(Bson::Null) },
                    );
                }
                None => t.matched += n,
            }
        }
    }
    out
}

/// `bulkWrite`.
pub fn bulk_write(state: &mut State, cmd: &Document) -> Answer {
    if state.sim.cluster.version < ServerVersion::V8_0 {
        return Err(MongoError {
            code: 59,
            code_name: "CommandNotFound",
            message: "no such command: 'bulkWrite'".into(),
        });
    }
    let Some(Bson::Array(ops)) = cmd.get("ops") else {
        return Err(reply::type_mismatch(
            "BSON field 'bulkWrite.ops' is missing but a required field",
        ));
    };
    let Some(Bson::Array(ns_info)) = cmd.get("nsInfo") else {
        return Err(reply::type_mismatch(
            "BSON field 'bulkWrite.nsInfo' is missing but a required field",
        ));
    };
    let namespaces: Vec<String> = ns_info
        .iter()
        .map(|n| match n {
            Bson::Document(d) => d.get_str("ns").map(str::to_string).map_err(|_| {
                reply::type_mismatch(
                    "BSON field 'bulkWrite.nsInfo.ns' is missing but a required field",
                )
            }),
            _ => Err(reply::type_mismatch("nsInfo entries must be objects")),
        })
        .collect::<Result<_, _>>()?;
    let ordered = !matches!(cmd.get("ordered"), Some(Bson::Boolean(false)));
    let errors_only = reply::flag(cmd, "errorsOnly");
    let mut parsed = Vec::with_capacity(ops.len());
    for (i, op) in ops.iter().enumerate() {
        let Bson::Document(op) = op else {
            return Err(reply::type_mismatch("ops entries must be objects"));
        };
        parsed.push(as_command(op, i, &namespaces)?);
    }
    let mut totals = Totals::default();
    let mut items = Vec::new();
    for (i, (db, one, kind)) in parsed.into_iter().enumerate() {
        let answer = match kind {
            "insert" => insert::insert(state, &db, &one),
            "update" => updates::update(state, &db, &one),
            _ => updates::delete(state, &db, &one),
        };
        let before = totals.errors;
        let it = item(i, kind, answer, &mut totals);
        let failed = totals.errors > before;
        if failed || !errors_only {
            items.push(Bson::Document(it));
        }
        if failed && ordered {
            break;
        }
    }
    Ok(ok(doc! {
        "cursor": { "id": 0_i64, "firstBatch": items, "ns": "admin.$cmd.bulkWrite" },
        "nErrors": totals.errors,
        "nInserted": totals.inserted,
        "nMatched": totals.matched,
        "nModified": totals.modified,
        "nUpserted": totals.upserted,
        "nDeleted": totals.deleted,
    }))
}
