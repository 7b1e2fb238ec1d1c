//! Dispatch: the command's name is its first field, its database `$db`. Every command is answered
//! (an unknown one with CommandNotFound, as a server does) and logged when a command log is open.

pub mod access;
pub mod transactions;

use std::time::Instant;

use bson::{Bson, Document};

use crate::cluster::MongoError;
use crate::serve::reply::raw_reply::Reply;
use crate::serve::reply::{self, Answer};
use crate::serve::state::{Context, State};
use crate::serve::{
    commands::explain, commands::find, commands::handshake, commands::insert, commands::sharding,
    commands::updates,
};

/// Commands that must be run against the admin database.
const ADMIN_ONLY: &[&str] = &[
    "enableSharding",
    "enablesharding",
    "shardCollection",
    "shardcollection",
    "addShard",
    "addshard",
    "removeShard",
    "removeshard",
    "addShardToZone",
    "removeShardFromZone",
    "updateZoneKeyRange",
    "split",
    "moveChunk",
    "moveRange",
    "configureCollectionBalancing",
    "configureQueryAnalyzer",
    "analyzeShardKey",
    "mergeChunks",
    "balancerStart",
    "balancerStop",
    "balancerStatus",
    "balancerCollectionStatus",
    "refineCollectionShardKey",
    "reshardCollection",
    "moveCollection",
    "unshardCollection",
    "listShards",
    "listDatabases",
    "getCmdLineOpts",
    "getLog",
    "hostInfo",
    "getParameter",
    "setParameter",
    "commitTransaction",
    "abortTransaction",
    "setAllowMigrations",
    "abortReshardCollection",
    "commitReshardCollection",
];

/// Answers one command (a reply document, `ok: 1` or an error) and logs it.
pub fn answer(state: &mut State, cmd: &Document, ctx: Context) -> Reply {
    let started = Instant::now();
    let name = cmd.keys().next().cloned().unwrap_or_default();
    let db = match cmd.get("$db") {
        Some(Bson::String(db)) => db.clone(),
        _ => "admin".to_string(),
    };
    state.connection = ctx.connection_id;
    state.session = crate::serve::state::sessions::session_id(cmd);
    let _limit = crate::serve::query::deadline::Limit::of(cmd);
    let result = if ADMIN_ONLY.contains(&name.as_str()) && db != "admin" {
        Err(MongoError {
            code: 13,
            code_name: "Unauthorized",
            message: format!("{name} may only be run against the admin database."),
        })
    } else if let Some(Err(e)) = state.access.as_ref().map(|a| a.check(&name, &db, cmd)) {
        Err(e)
    } else {
        crate::serve::dispatch::transactions::begin(state, &name, cmd).and_then(|()| {
            crate::serve::commands::query_analyzer::observe(state, &name, &db, cmd);
            let reply = dispatch(state, &name, &db, cmd, ctx);
            crate::serve::dispatch::transactions::end(state, &name, reply)
        })
    };
    state.sessions.current = crate::serve::state::sessions::Current::None;
    state.commands_answered += 1;
    let outcome = match &result {
        Ok(reply) => Ok(reply.returned()),
        Err(e) => Err(e.code),
    };
    log_command(state.log.as_deref(), &name, &db, cmd, started, outcome);
    result
        .unwrap_or_else(|e| {
            let in_txn = crate::serve::dispatch::transactions::in_txn(cmd);
            Reply::Doc(crate::serve::dispatch::transactions::labelled(
                reply::error(&e),
                &e,
                in_txn,
            ))
        })
        .with_cluster_time(state.cluster_time())
}

/// `endSessions` / `killSessions`: the cursors of those sessions are killed, as a server kills
/// them with their session (`KillSessionsCursorManagerVisitor`, src/mongo/db/cursor_manager.cpp).
fn end_sessions(state: &mut State, name: &str, cmd: &Document) -> Document {
    let ids: Vec<Vec<u8>> = match cmd.get(name) {
        Some(Bson::Array(list)) => list
            .iter()
            .filter_map(|l| match l {
                Bson::Document(d) => {
                    crate::serve::state::sessions::session_id(&bson::doc! { "lsid": d.clone() })
                }
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    };
    let killed = state.cursors.kill_of_sessions(&ids);
    if killed > 0 {
        crate::serve::state::log::line(
            state.log.as_deref(),
            &format!("{name}: killed {killed} cursors of the ended sessions"),
        );
    }
    reply::ok(Document::new())
}

/// Commands that read nothing of the cluster's state (its version aside): answered without
/// waiting for the state's lock, so a heavy command on one connection never delays another's
/// `ping` or a driver's monitoring `hello`.
const WITHOUT_STATE: &[&str] = &[
    "ping",
    "hello",
    "isMaster",
    "ismaster",
    "buildInfo",
    "buildinfo",
];

/// Answers `cmd` when it is one of [`WITHOUT_STATE`] (outside a transaction), logged.
pub fn answer_without_state(
    version: crate::cluster::ServerVersion,
    log: Option<&crate::serve::state::log::CommandLog>,
    cmd: &Document,
    ctx: Context,
) -> Option<Result<Document, MongoError>> {
    let name = cmd.keys().next()?.as_str();
    if !WITHOUT_STATE.contains(&name) || cmd.contains_key("txnNumber") {
        return None;
    }
    let started = Instant::now();
    let result = match name {
        "ping" => Ok(reply::ok(Document::new())),
        "hello" => handshake::hello_of(version, cmd, ctx, false),
        "isMaster" | "ismaster" => handshake::hello_of(version, cmd, ctx, true),
        _ => handshake::build_info_of(version),
    };
    let db = match cmd.get("$db") {
        Some(Bson::String(db)) => db.as_str(),
        _ => "admin",
    };
    let outcome = result.as_ref().map(|_| None).map_err(|e| e.code);
    log_command(log, name, db, cmd, started, outcome);
    Some(result)
}

fn log_command(
    log: Option<&crate::serve::state::log::CommandLog>,
    name: &str,
    db: &str,
    cmd: &Document,
    started: Instant,
    outcome: Result<Option<usize>, i32>,
) {
    let Some(log) = log else { return };
    let mut line = serde_json::json!({
        "command": name,
        "db": db,
        "durationMicros": started.elapsed().as_micros() as u64,
    });
    if let Some(ns) = namespace(name, db, cmd) {
        line["ns"] = serde_json::Value::String(ns);
    }
    match outcome {
        Err(code) => line["code"] = serde_json::json!(code),
        Ok(Some(n)) => line["returned"] = serde_json::json!(n),
        Ok(None) => {}
    }
    log.write(&line);
}

/// The namespace a command works on, for the command log.
fn namespace(name: &str, db: &str, cmd: &Document) -> Option<String> {
    let Some(Bson::String(first)) = cmd.get(name) else {
        return None;
    };
    match name {
        "find" | "insert" | "count" | "distinct" | "listIndexes" | "createIndexes" | "update"
        | "delete" | "aggregate" | "findAndModify" => Some(format!("{db}.{first}")),
        _ if first.contains('.') => Some(first.clone()),
        _ => None,
    }
}

fn dispatch(
    state: &mut State,
    name: &str,
    db: &str,
    cmd: &Document,
    ctx: Context,
) -> Result<Reply, MongoError> {
    match name {
        "find" => find::find(state, db, cmd),
        "getMore" => find::get_more(state, cmd),
        _ => dispatch_doc(state, name, db, cmd, ctx).map(Reply::Doc),
    }
}

fn dispatch_doc(state: &mut State, name: &str, db: &str, cmd: &Document, ctx: Context) -> Answer {
    match name {
        "hello" => handshake::hello(state, cmd, ctx, false),
        "isMaster" | "ismaster" => handshake::hello(state, cmd, ctx, true),
        "buildInfo" | "buildinfo" => handshake::build_info(state),
        "getParameter" => crate::serve::commands::parameters::get_parameter(state, cmd),
        "setParameter" => crate::serve::commands::parameters::set(state, cmd),
        "getCmdLineOpts" => handshake::get_cmd_line_opts(state),
        "getLog" => handshake::get_log(cmd),
        "ping" => Ok(reply::ok(Document::new())),
        "endSessions" | "killSessions" => Ok(end_sessions(state, name, cmd)),
        "connectionStatus" => {
            crate::serve::dispatch::access::connection_status(state.access.as_ref(), cmd)
        }
        "hostInfo" => handshake::host_info(state),
        "whatsmyuri" => handshake::whats_my_uri(ctx),
        "serverStatus" => handshake::server_status(state),
        "isdbgrid" => handshake::isdbgrid(state),
        "listDatabases" => handshake::list_databases(state, cmd),
        "listCollections" => handshake::list_collections(state, db, cmd),
        "listIndexes" => handshake::list_indexes(state, db, cmd),
        "listShards" => handshake::list_shards(state),
        "aggregate" => crate::serve::commands::aggregate::aggregate(state, db, cmd),
        "killCursors" => find::kill_cursors(state, cmd),
        "count" => find::count(state, db, cmd),
        "distinct" => find::distinct(state, db, cmd),
        "insert" | "update" | "delete" if db == "config" => config_write(state, name, cmd),
        "insert" => insert::insert(state, db, cmd),
        "explain" => explain::explain(state, db, cmd),
        "update" => updates::update(state, db, cmd),
        "delete" => updates::delete(state, db, cmd),
        "findAndModify" | "findandmodify" => updates::find_and_modify(state, db, cmd),
        "enableSharding" | "enablesharding" => sharding::enable_sharding(state, cmd),
        "shardCollection" | "shardcollection" => sharding::shard_collection(state, cmd),
        "addShard" | "addshard" => sharding::add_shard(state, cmd),
        "removeShard" | "removeshard" => crate::serve::commands::drain::remove_shard(state, cmd),
        "startShardDraining" => crate::serve::commands::drain::start_shard_draining(state, cmd),
        "moveCollection" => crate::serve::commands::move_collection::move_collection(state, cmd),
        "unshardCollection" => {
            crate::serve::commands::move_collection::unshard_collection(state, cmd)
        }
        "shardDrainingStatus" => crate::serve::commands::drain::shard_draining_status(state, cmd),
        "stopShardDraining" => crate::serve::commands::drain::stop_shard_draining(state, cmd),
        "commitShardRemoval" => crate::serve::commands::drain::commit_shard_removal(state, cmd),
        "movePrimary" | "moveprimary" => crate::serve::commands::drain::move_primary(state, cmd),
        "clearJumboFlag" => sharding::clear_jumbo_flag(state, cmd),
        "addShardToZone" => sharding::shard_zone(state, cmd, true),
        "removeShardFromZone" => sharding::shard_zone(state, cmd, false),
        "updateZoneKeyRange" => sharding::update_zone_key_range(state, cmd),
        "split" => sharding::split(state, cmd),
        "moveChunk" => sharding::move_chunk(state, cmd),
        "moveRange" => sharding::move_range(state, cmd),
        "configureCollectionBalancing" => sharding::configure_collection_balancing(state, cmd),
        "configureQueryAnalyzer" => crate::serve::commands::query_analyzer::configure(state, cmd),
        "analyzeShardKey" => {
            crate::serve::commands::analyze::analyze_shard_key::analyze(state, cmd)
        }
        "mergeChunks" => sharding::merge_chunks(state, cmd),
        "balancerStart" => sharding::set_balancer(state, true),
        "balancerStop" => sharding::set_balancer(state, false),
        "balancerStatus" => sharding::balancer_status(state),
        "balancerCollectionStatus" => sharding::balancer_collection_status(state, cmd),
        "refineCollectionShardKey" => sharding::refine(state, cmd),
        "reshardCollection" => sharding::reshard(state, cmd),
        "createIndexes" => crate::serve::commands::indexes::create_indexes(state, db, cmd),
        "setAllowMigrations" => crate::serve::commands::metadata::set_allow_migrations(state, cmd),
        "abortReshardCollection" => crate::serve::commands::metadata::abort_reshard(state, cmd),
        "commitReshardCollection" => crate::serve::commands::metadata::commit_reshard(state, cmd),
        "checkMetadataConsistency" => {
            crate::serve::commands::metadata::check_metadata_consistency(state, db, cmd)
        }
        "commitTransaction" => crate::serve::dispatch::transactions::commit(state),
        "abortTransaction" => crate::serve::dispatch::transactions::abort_command(state),
        "dropIndexes" => crate::serve::commands::drop_indexes::drop_indexes(state, db, cmd),
        _ => Err(MongoError::command_not_found(format!(
            "no such command: '{name}'"
        ))),
    }
}

/// A write to the config database: the settings and collection fields servers accept.
fn config_write(state: &mut State, name: &str, cmd: &Document) -> Answer {
    let coll = reply::first_string(cmd, name)?;
    if !crate::serve::commands::config_writes::writable("config", &coll) {
        return crate::serve::write_path::statements::refuse_generated("config", &coll)
            .map(|()| Document::new());
    }
    match name {
        "insert" => crate::serve::commands::config_writes::insert(state, &coll, cmd),
        "update" => crate::serve::commands::config_writes::update(state, &coll, cmd),
        _ => crate::serve::commands::config_writes::delete(state, &coll, cmd),
    }
}
