//! Dispatch: the life of a command around its handler. The command's name is its first field, its
//! database `$db`; the one registry of commands (`registry`, `table`) says what it is. In order:
//! admin-only commands off `admin` are refused, then those the user's roles do not allow
//! (`access`), then the session and transaction fields are read (`transactions`), a retried
//! retryable write is answered with its first reply (`retryable`), the query analyzers sample it,
//! its handler answers it (an unknown command with CommandNotFound, as a
//! server does), a write concern a shard cannot meet is reported beside the write
//! (`write_concern`), a transaction ends or aborts around it; it is logged when a command log is open.
//!
//! May import every layer below it (`commands` and down); `net` calls it.

pub mod access;
pub mod bulk_write;
pub mod registry;
pub mod retryable;
pub mod table;
pub mod transactions;
pub mod write_concern;

use std::time::Instant;

use bson::{Bson, Document};

use crate::cluster::MongoError;
use crate::serve::commands::handshake;
use crate::serve::reply;
use crate::serve::reply::raw_reply::Reply;
use crate::serve::state::{Context, State};

/// Answers one command (a reply document, `ok: 1` or an error) and logs it.
pub fn answer(state: &mut State, cmd: &Document, ctx: Context) -> Reply {
    let started = Instant::now();
    let name = cmd.keys().next().cloned().unwrap_or_default();
    let db = match cmd.get("$db") {
        Some(Bson::String(db)) => db.clone(),
        _ => "admin".to_string(),
    };
    let command = table::lookup(&name);
    state.connection = ctx.connection_id;
    state.session = crate::serve::state::sessions::session_id(cmd);
    let _limit = crate::serve::query::deadline::Limit::of(cmd);
    let result = if command.is_some_and(|c| c.admin_only) && db != "admin" {
        Err(MongoError {
            code: 13,
            code_name: "Unauthorized",
            message: format!("{name} may only be run against the admin database."),
        })
    } else if let Some(Err(e)) = state.access.as_ref().map(|a| a.check(&name, &db, cmd)) {
        Err(e)
    } else {
        let in_transaction = command.is_some_and(|c| c.in_transaction);
        transactions::begin(state, &name, cmd, in_transaction).and_then(|()| {
            let reply = match retryable::before(state, &name, cmd) {
                Err(answered) => *answered,
                Ok(attempt) => {
                    let sampled = command.map_or(registry::Sampled::No, |c| c.sampled);
                    crate::serve::commands::query_analyzer::observe(
                        state, sampled, &name, &db, cmd,
                    );
                    let call = registry::Call {
                        name: &name,
                        db: &db,
                        cmd,
                        ctx,
                    };
                    let reply = match command {
                        Some(c) => (c.handler)(state, &call),
                        None => Err(MongoError::command_not_found(format!(
                            "no such command: '{name}'"
                        ))),
                    };
                    retryable::after(state, attempt, &reply);
                    reply
                }
            };
            let reply = write_concern::apply(state, &name, &db, cmd, reply);
            transactions::end(state, &name, reply)
        })
    };
    state.sessions.current = crate::serve::state::sessions::Current::None;
    state.commands_answered += 1;
    let outcome = match &result {
        Ok(reply) => Ok(reply.returned()),
        Err(e) => Err(e.code),
    };
    log_command(
        state.log.as_deref(),
        command,
        &name,
        &db,
        cmd,
        started,
        outcome,
    );
    result
        .unwrap_or_else(|e| {
            let in_txn = transactions::in_txn(cmd);
            Reply::Doc(transactions::labelled(reply::error(&e), &e, in_txn))
        })
        .with_cluster_time(state.cluster_time())
}

/// Answers `cmd` when it reads nothing of the cluster's state (its version aside: the registry's
/// `without_state`) and is outside a transaction, logged: without waiting for the state's lock,
/// so a heavy command on one connection never delays another's `ping` or a driver's monitoring
/// `hello`.
pub fn answer_without_state(
    (version, patch): (crate::cluster::ServerVersion, u32),
    log: Option<&crate::serve::state::log::CommandLog>,
    cmd: &Document,
    ctx: Context,
) -> Option<Result<Document, MongoError>> {
    let name = cmd.keys().next()?.as_str();
    let command = table::lookup(name);
    if !command.is_some_and(|c| c.without_state) || cmd.contains_key("txnNumber") {
        return None;
    }
    let started = Instant::now();
    let result = match name {
        "ping" => Ok(reply::ok(Document::new())),
        "hello" => handshake::hello_of(version, cmd, ctx, false),
        "isMaster" | "ismaster" => handshake::hello_of(version, cmd, ctx, true),
        _ => handshake::build_info_of(version, patch),
    };
    let db = match cmd.get("$db") {
        Some(Bson::String(db)) => db.as_str(),
        _ => "admin",
    };
    let outcome = result.as_ref().map(|_| None).map_err(|e| e.code);
    log_command(log, command, name, db, cmd, started, outcome);
    Some(result)
}

fn log_command(
    log: Option<&crate::serve::state::log::CommandLog>,
    command: Option<&registry::Command>,
    name: &str,
    db: &str,
    cmd: &Document,
    started: Instant,
    outcome: Result<Option<usize>, i32>,
) {
    let Some(log) = log.filter(|l| l.records_commands()) else {
        return;
    };
    let mut line = serde_json::json!({
        "command": name,
        "db": db,
        "durationMicros": started.elapsed().as_micros() as u64,
    });
    if let Some(ns) = table::namespace(command, name, db, cmd) {
        line["ns"] = serde_json::Value::String(ns);
    }
    match outcome {
        Err(code) => line["code"] = serde_json::json!(code),
        Ok(Some(n)) => line["returned"] = serde_json::json!(n),
        Ok(None) => {}
    }
    log.write(&line);
}
