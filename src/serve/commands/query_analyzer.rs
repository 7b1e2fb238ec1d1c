//! Query sampling (7.0+): `configureQueryAnalyzer` turns it on or off per collection, the reads
//! (`find`, `aggregate`, `count`, `distinct`) and writes (`update`, `delete`, `findAndModify`
//! statements) of that collection are then sampled at up to `samplesPerSecond` on the wall
//! clock, and `$listSampledQueries` (first stage of `aggregate: 1` on admin) lists the samples
//! in the documented shape: `{_id: UUID, ns, collectionUuid, cmdName, cmd, expireAt}` — reads
//! carry `cmd: {filter, collation, let}`; writes carry the command with the one sampled
//! statement (`{update, updates: [stmt]}`, `{delete, deletes: [stmt]}`, or the findAndModify
//! command) — that write shape is unverified. Inserts are never sampled (as in MongoDB).
//! Samples expire after `queryAnalysisSampleExpirationSecs` (default 7 days); the newest
//! `KEEP` are kept.

use bson::{Bson, Document, doc};

use crate::cluster::{MongoError, ServerVersion};
use crate::serve::catalog::sampled_queries::collection_uuid;
use crate::serve::reply::{self, Answer, ok};
use crate::serve::state::State;
use crate::serve::state::analyzers::Sampled;
use crate::serve::state::analyzers::{Analyzer, EXPIRE_SECS, KEEP};

/// `configureQueryAnalyzer: ns, mode: "full"|"off", samplesPerSecond`.
pub fn configure(state: &mut State, cmd: &Document) -> Answer {
    if state.sim.cluster.version < ServerVersion::V7_0 {
        return Err(MongoError::command_not_found(
            "no such command: 'configureQueryAnalyzer'",
        ));
    }
    let ns = reply::first_string(cmd, "configureQueryAnalyzer")?;
    if !ns.contains('.') {
        return Err(reply::invalid_namespace(format!(
            "Invalid namespace specified '{ns}'"
        )));
    }
    // 7.0/8.0 `s/analyze_shard_key_util.cpp` (`validateCollectionOptions`, which the config
    // server's `configure_query_analyzer_cmd.cpp` runs): a collection that does not exist is
    // NamespaceNotFound.
    if state.sim.cluster.collection(&ns).is_none() && !state.unsharded.contains_key(&ns) {
        return Err(MongoError::namespace_not_found(
            "The namespace does not exist",
        ));
    }
    let old = state.analyzers.on.get(&ns).map(|a| config_doc(Some(a)));
    let new = match reply::string_arg(cmd, "mode")?.as_str() {
        "off" => {
            if cmd.contains_key("samplesPerSecond") {
                return Err(MongoError::invalid_options(
                    "Cannot specify 'samplesPerSecond' when 'mode' is 'off'",
                ));
            }
            state.analyzers.on.remove(&ns);
            config_doc(None)
        }
        "full" => {
            let rate = match cmd.get("samplesPerSecond") {
                Some(Bson::Double(r)) => *r,
                Some(Bson::Int32(r)) => f64::from(*r),
                Some(Bson::Int64(r)) => *r as f64,
                _ => {
                    return Err(MongoError::invalid_options(
                        "Missing 'samplesPerSecond' when 'mode' is 'full'",
                    ));
                }
            };
            if !(rate > 0.0 && rate <= 50.0) {
                return Err(MongoError::invalid_options(
                    "'samplesPerSecond' must be greater than 0 and at most 50",
                ));
            }
            let a = Analyzer {
                samples_per_second: rate,
                tokens: rate.max(1.0),
                last_ms: state.now_millis(),
            };
            let d = config_doc(Some(&a));
            state.analyzers.on.insert(ns, a);
            d
        }
        other => {
            return Err(MongoError::bad_value(format!(
                "Enumeration value '{other}' for field 'configureQueryAnalyzer.mode' is not a valid value."
            )));
        }
    };
    let mut r = doc! {"newConfiguration": new};
    if let Some(old) = old {
        r.insert("oldConfiguration", old);
    }
    Ok(ok(r))
}

fn config_doc(a: Option<&Analyzer>) -> Document {
    if let Some(a) = a {
        doc! {"mode": "full", "samplesPerSecond": a.samples_per_second}
    } else {
        doc! {"mode": "off"}
    }
}

/// Samples a command of a collection with an analyzer, while the rate allows.
pub fn observe(state: &mut State, sampled: Sampled, name: &str, db: &str, cmd: &Document) {
    if state.analyzers.on.is_empty() {
        return;
    }
    let Some(Bson::String(coll)) = cmd.get(name) else {
        return;
    };
    let ns = format!("{db}.{coll}");
    if !state.analyzers.on.contains_key(&ns) {
        return;
    }
    let (cmd_name, sampled): (&str, Vec<Document>) = match sampled {
        Sampled::Read => (name, vec![read_cmd(cmd, name)]),
        Sampled::Statements => {
            let key = if name == "update" {
                "updates"
            } else {
                "deletes"
            };
            let stmts = cmd.get_array(key).map(Vec::as_slice).unwrap_or_default();
            let docs = stmts
                .iter()
                .filter_map(Bson::as_document)
                .map(|s| doc! {name: coll.as_str(), key: [s.clone()]})
                .collect();
            (name, docs)
        }
        Sampled::Whole => ("findAndModify", vec![cmd.clone()]),
        Sampled::No => return,
    };
    let now = state.now_millis();
    let uuid = collection_uuid(state, &ns);
    for c in sampled {
        if !take_token(state, &ns, now) {
            return;
        }
        let n = state.analyzers.next;
        state.analyzers.next += 1;
        // A UUID per sample, stable for a given server start.
        let id = crate::serve::catalog::ids::collection_uuid(
            &format!("sample-{}", state.started_secs),
            n as u32,
        );
        state.analyzers.samples.push_back(doc! {
            "_id": id,
            "ns": &ns,
            "collectionUuid": uuid.clone(),
            "cmdName": cmd_name,
            "cmd": c,
            "expireAt": bson::DateTime::from_millis(now + EXPIRE_SECS * 1000),
        });
        while state.analyzers.samples.len() > KEEP {
            state.analyzers.samples.pop_front();
        }
    }
}

fn read_cmd(cmd: &Document, name: &str) -> Document {
    let filter = match name {
        "find" => cmd.get_document("filter").cloned().unwrap_or_default(),
        "aggregate" => cmd
            .get_array("pipeline")
            .ok()
            .and_then(|p| p.first())
            .and_then(Bson::as_document)
            .and_then(|s| s.get_document("$match").ok())
            .cloned()
            .unwrap_or_default(),
        _ => cmd.get_document("query").cloned().unwrap_or_default(),
    };
    let mut d = doc! {"filter": filter};
    if let Ok(c) = cmd.get_document("collation") {
        d.insert("collation", c.clone());
    }
    if let Ok(l) = cmd.get_document("let") {
        d.insert("let", l.clone());
    }
    d
}

fn take_token(state: &mut State, ns: &str, now: i64) -> bool {
    let Some(a) = state.analyzers.on.get_mut(ns) else {
        return false;
    };
    let elapsed = (now - a.last_ms).max(0) as f64 / 1000.0;
    a.last_ms = now;
    a.tokens = (a.tokens + elapsed * a.samples_per_second).min(a.samples_per_second.max(1.0));
    if a.tokens >= 1.0 {
        a.tokens -= 1.0;
        true
    } else {
        false
    }
}
