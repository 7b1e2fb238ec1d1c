//! Writes to the config database that a config server accepts and the mongosh helpers send:
//! `config.settings` (`chunksize`, `balancer` — `stopped`/`mode`, `attemptToBalanceJumboChunks`
//! —, `automerge`, `autosplit`) and the `config.collections` fields `noBalance`
//! (`sh.disableBalancing`), `enableAutoMerge` (`sh.disableAutoMerger(ns)`) and
//! `permitMigrations`. Each write is applied to the generated document with the update
//! operators, and what it changes takes effect in the simulator; other `config.settings`
//! documents are kept as written. Any other write to `config` is refused.
// mongosh `packages/shell-api/src/shard.ts` and `helpers.ts` (the writes);
// 8.0 `s/balancer_configuration.cpp` (the settings read back).

use bson::{Bson, Document, doc};

use crate::cluster::{ActiveWindow, MongoError};
use crate::serve::query::update;
use crate::serve::reply::{self, Answer, ok};
use crate::serve::state::State;

/// Whether `config.coll` takes writes here.
pub fn writable(db: &str, coll: &str) -> bool {
    db == "config" && matches!(coll, "settings" | "collections")
}

fn statements<'a>(cmd: &'a Document, field: &str) -> Result<&'a Vec<Bson>, MongoError> {
    match cmd.get(field) {
        Some(Bson::Array(a)) => Ok(a),
        _ => Err(reply::failed_to_parse(format!("needs a {field} array"))),
    }
}

/// `update` on `config.settings` or `config.collections`.
pub fn update(state: &mut State, coll: &str, cmd: &Document) -> Answer {
    let (mut n, mut modified) = (0_i32, 0_i32);
    let mut upserted = Vec::new();
    for (i, stmt) in statements(cmd, "updates")?.iter().enumerate() {
        let Bson::Document(stmt) = stmt else {
            return Err(reply::type_mismatch("each update must be an object"));
        };
        let empty = Document::new();
        let q = reply::opt_doc(stmt, "q")?.unwrap_or(&empty);
        let u = update::parse(stmt.get("u"))?;
        let current = crate::serve::catalog::config_db::documents(state, coll).unwrap_or_default();
        let found = current
            .into_iter()
            .find(|d| crate::serve::query::matches(d, q).unwrap_or(false));
        let (before, inserting) = match found {
            Some(d) => (d, false),
            None if reply::flag(stmt, "upsert") => {
                let id = q.get("_id").cloned().unwrap_or(Bson::Null);
                (doc! { "_id": id }, true)
            }
            None => continue,
        };
        let applied = update::apply(&before, &u, inserting)?;
        take_effect(state, coll, &before, &applied.doc)?;
        n += 1;
        if inserting {
            upserted.push(Bson::Document(doc! { "index": i as i32, "_id": applied.doc.get("_id").cloned().unwrap_or(Bson::Null) }));
        } else if applied.changed() {
            modified += 1;
        }
    }
    let mut reply = doc! { "n": n, "nModified": modified };
    if !upserted.is_empty() {
        reply.insert("upserted", upserted);
    }
    Ok(ok(reply))
}

/// `insert` into `config.settings` (a document with a new `_id`).
pub fn insert(state: &mut State, coll: &str, cmd: &Document) -> Answer {
    if coll != "settings" {
        return Err(refused(coll));
    }
    let mut n = 0;
    for d in statements(cmd, "documents")? {
        let Bson::Document(d) = d else {
            return Err(reply::type_mismatch("each document must be an object"));
        };
        let id = d.get("_id").cloned().unwrap_or(Bson::Null);
        let exists = crate::serve::catalog::config_db::documents(state, coll)
            .unwrap_or_default()
            .iter()
            .any(|s| s.get("_id") == Some(&id));
        if exists {
            return Err(MongoError {
                code: 11000,
                code_name: "DuplicateKey",
                message: format!(
                    "E11000 duplicate key error collection: config.settings index: _id_ dup key: {{ _id: {} }}",
                    crate::model::shell_text::value(&id)
                ),
            });
        }
        take_effect(state, coll, &doc! { "_id": id }, d)?;
        n += 1;
    }
    Ok(ok(doc! { "n": n }))
}

/// `delete` on `config.settings`: the setting goes back to its default.
pub fn delete(state: &mut State, coll: &str, cmd: &Document) -> Answer {
    if coll != "settings" {
        return Err(refused(coll));
    }
    let mut n = 0;
    for stmt in statements(cmd, "deletes")? {
        let Bson::Document(stmt) = stmt else {
            return Err(reply::type_mismatch("each delete must be an object"));
        };
        let empty = Document::new();
        let q = reply::opt_doc(stmt, "q")?.unwrap_or(&empty);
        let docs = crate::serve::catalog::config_db::documents(state, coll).unwrap_or_default();
        for d in docs
            .iter()
            .filter(|d| crate::serve::query::matches(d, q).unwrap_or(false))
        {
            reset(state, d.get_str("_id").unwrap_or_default());
            n += 1;
        }
    }
    Ok(ok(doc! { "n": n }))
}

fn refused(coll: &str) -> MongoError {
    MongoError {
        code: 13,
        code_name: "Unauthorized",
        message: format!(
            "cannot write to 'config.{coll}': the simulated cluster's config database is generated"
        ),
    }
}

fn take_effect(
    state: &mut State,
    coll: &str,
    before: &Document,
    after: &Document,
) -> Result<(), MongoError> {
    match coll {
        "settings" => setting(state, after),
        _ => collection_fields(state, before, after),
    }
}

fn number(d: &Document, field: &str) -> Option<f64> {
    match d.get(field)? {
        Bson::Int32(n) => Some(f64::from(*n)),
        Bson::Int64(n) => Some(*n as f64),
        Bson::Double(x) => Some(*x),
        _ => None,
    }
}

fn setting(state: &mut State, d: &Document) -> Result<(), MongoError> {
    let id = d.get_str("_id").unwrap_or_default();
    if matches!(id, "chunksize" | "balancer" | "automerge") {
        state.other_settings.written.insert(id.to_string());
    }
    let sim = &mut state.sim;
    match d.get_str("_id").unwrap_or_default() {
        "chunksize" => {
            let mb = number(d, "value")
                .filter(|v| v.fract() == 0.0 && *v >= 1.0)
                .ok_or_else(|| {
                    MongoError::bad_value("chunksize value must be a whole number of MB")
                })?;
            sim.set_chunk_size_mb(mb as u64)?;
        }
        "balancer" => {
            // `BalancerSettingsType::fromBSON`: `stopped: true` is off, else `mode` decides.
            let stopped = matches!(d.get("stopped"), Some(Bson::Boolean(true)))
                || d.get_str("mode") == Ok("off");
            let window = active_window(d)?;
            sim.set_balancer(!stopped);
            sim.set_attempt_to_balance_jumbo_chunks(reply::flag(d, "attemptToBalanceJumboChunks"));
            let offset = crate::serve::state::settings::wall_minute_at_start(state.started_secs);
            state.sim.cluster.settings.active_window =
                window.as_ref().map(|(start, stop, _)| ActiveWindow {
                    start_minute: (start + 1440 - offset) % 1440,
                    stop_minute: (stop + 1440 - offset) % 1440,
                });
            state.other_settings.active_window = window.map(|(_, _, written)| written);
        }
        "automerge" => sim.set_auto_merge(!matches!(d.get("enabled"), Some(Bson::Boolean(false)))),
        id => {
            // `autosplit` (a no-op from 6.0.3) and documents the simulator does not read.
            state.other_settings.docs.insert(id.to_string(), d.clone());
        }
    }
    Ok(())
}

/// The balancer document's `activeWindow`: `(start, stop, as written)`, minutes after midnight
/// of the wall clock; `None` without one. The server's checks and words
/// (`s/balancer_configuration.cpp`, `BalancerSettingsType::fromBSON`; a config server stores any
/// document and its balancer refuses the settings when it reads them: here the write is refused,
/// docs/fidelity.md).
fn active_window(d: &Document) -> Result<Option<(u32, u32, Document)>, MongoError> {
    let w = match d.get("activeWindow") {
        None => return Ok(None),
        Some(Bson::Document(w)) => w,
        Some(other) => {
            return Err(MongoError {
                code: 14,
                code_name: "TypeMismatch",
                message: format!(
                    "\"activeWindow\" had the wrong type. Expected object, found {}",
                    crate::serve::reply::type_name(other)
                ),
            });
        }
    };
    if w.is_empty() {
        return Err(MongoError::bad_value("activeWindow not specified"));
    }
    let text = |f: &str| match w.get(f) {
        Some(Bson::String(s)) if !s.is_empty() => Some(s.clone()),
        _ => None,
    };
    let (Some(start), Some(stop)) = (text("start"), text("stop")) else {
        return Err(MongoError::bad_value(format!(
            "must specify both start and stop of balancing window: {}",
            crate::model::shell_text::document(w)
        )));
    };
    let (Some(a), Some(b)) = (time_of_day(&start), time_of_day(&stop)) else {
        return Err(MongoError::bad_value(
            "activeWindow format is  { start: \"hh:mm\" , stop: \"hh:mm\" }",
        ));
    };
    if a == b {
        return Err(MongoError::bad_value(
            "start and stop times must be different",
        ));
    }
    Ok(Some((a, b, w.clone())))
}

/// "hh:mm" (or "h:mm") as minutes after midnight (`toPointInTime`'s `%H:%M`).
fn time_of_day(s: &str) -> Option<u32> {
    let (h, m) = s.split_once(':')?;
    let ok = |p: &str, max: usize| {
        !p.is_empty() && p.len() <= max && p.bytes().all(|b| b.is_ascii_digit())
    };
    if !ok(h, 2) || !ok(m, 2) {
        return None;
    }
    let (h, m): (u32, u32) = (h.parse().ok()?, m.parse().ok()?);
    (h < 24 && m < 60).then_some(h * 60 + m)
}

fn reset(state: &mut State, id: &str) {
    state.other_settings.written.remove(id);
    let sim = &mut state.sim;
    match id {
        "chunksize" => {
            let bytes = sim.cluster.version.default_chunk_size_bytes();
            let _ = sim.set_chunk_size_mb(bytes >> 20);
        }
        "balancer" => {
            sim.set_balancer(true);
            sim.set_attempt_to_balance_jumbo_chunks(false);
            sim.cluster.settings.active_window = None;
            state.other_settings.active_window = None;
        }
        "automerge" => sim.set_auto_merge(true),
        other => {
            state.other_settings.docs.remove(other);
        }
    }
}

/// The `config.collections` fields the helpers write; any other change is refused.
fn collection_fields(
    state: &mut State,
    before: &Document,
    after: &Document,
) -> Result<(), MongoError> {
    let ns = after.get_str("_id").unwrap_or_default().to_string();
    if state.sim.cluster.collection_index(&ns).is_none() {
        return Err(refused("collections"));
    }
    let writable = ["noBalance", "enableAutoMerge", "permitMigrations"];
    let keys = before.keys().chain(after.keys());
    for k in keys {
        if !writable.contains(&k.as_str()) && before.get(k) != after.get(k) {
            return Err(MongoError {
                code: 13,
                code_name: "Unauthorized",
                message: format!(
                    "cannot change config.collections field '{k}': serve generates it from the simulator (noBalance, enableAutoMerge and permitMigrations can be written)"
                ),
            });
        }
    }
    let flag = |d: &Document, f: &str| d.get(f).and_then(Bson::as_bool);
    if flag(before, "noBalance") != flag(after, "noBalance") {
        state
            .sim
            .set_balancing_allowed(&ns, !flag(after, "noBalance").unwrap_or(false))?;
    }
    if flag(before, "enableAutoMerge") != flag(after, "enableAutoMerge") {
        state
            .sim
            .set_collection_auto_merge(&ns, flag(after, "enableAutoMerge"))?;
    }
    if flag(before, "permitMigrations") != flag(after, "permitMigrations") {
        state
            .sim
            .set_allow_migrations(&ns, flag(after, "permitMigrations") != Some(false))?;
    }
    Ok(())
}

/// A write to the config database (`insert`, `update` or `delete`, named `name`): the settings
/// and collection fields servers accept.
pub fn write(state: &mut State, name: &str, cmd: &Document) -> Answer {
    let coll = reply::first_string(cmd, name)?;
    if !writable("config", &coll) {
        return crate::serve::write_path::statements::refuse_generated("config", &coll)
            .map(|()| Document::new());
    }
    match name {
        "insert" => insert(state, &coll, cmd),
        "update" => update(state, &coll, cmd),
        _ => delete(state, &coll, cmd),
    }
}
