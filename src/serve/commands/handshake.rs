//! What a mongos answers about itself: `hello`/`isMaster` (`msg: "isdbgrid"`), `buildInfo`,
//! `getParameter`, `getCmdLineOpts`, `getLog`, `ping`, `hostInfo`,
//! `whatsmyuri`, `serverStatus`, `isdbgrid`, `endSessions`; and the catalog: `listDatabases`,
//! `listCollections`, `listIndexes`, `listShards`.

// Every handler has the signature the dispatcher expects, also those that cannot fail.
#![allow(clippy::unnecessary_wraps)]

use bson::{Bson, DateTime, Document, doc};

use crate::cluster::{MongoError, ServerVersion};
use crate::serve::catalog::config_db::{self, version_string};
use crate::serve::reply::{Answer, ok};
use crate::serve::state::{Context, State};

/// `hello`, `isMaster`, `ismaster`.
pub fn hello(state: &State, cmd: &Document, ctx: Context, legacy_name: bool) -> Answer {
    hello_of(state.sim.cluster.version, cmd, ctx, legacy_name)
}

/// This process's `topologyVersion.processId` (`MongosTopologyCoordinator`'s `instanceId`: one
/// per process; its counter stays 0, as a mongos's does until it shuts down).
fn process_id() -> bson::oid::ObjectId {
    static ID: std::sync::OnceLock<bson::oid::ObjectId> = std::sync::OnceLock::new();
    *ID.get_or_init(bson::oid::ObjectId::new)
}

/// The awaitable hello's fields (`s/commands/cluster_hello_cmd.cpp`): `topologyVersion` and
/// `maxAwaitTimeMS` together or neither; how long to wait before answering — `maxAwaitTimeMS`
/// when the client's topology version is this process's current one (nothing changes a
/// mongos's topology before it shuts down: `s/mongos_topology_coordinator.cpp`), none when it
/// is another process's or an older one.
pub fn hello_wait(cmd: &Document) -> Result<Option<std::time::Duration>, MongoError> {
    let refused = |code: i32, message: String| MongoError {
        code,
        code_name: match code {
            51758 => "Location51758",
            51759 => "Location51759",
            51760 => "Location51760",
            _ => "Location51761",
        },
        message,
    };
    let tv = cmd.get_document("topologyVersion").ok();
    let max = cmd.get("maxAwaitTimeMS").and_then(|v| match v {
        Bson::Int32(n) => Some(i64::from(*n)),
        Bson::Int64(n) => Some(*n),
        Bson::Double(d) => Some(*d as i64),
        _ => None,
    });
    let (tv, max) = match (tv, max) {
        (Some(tv), Some(max)) => (tv, max),
        (None, None) => return Ok(None),
        (Some(_), None) => {
            return Err(refused(
                51760,
                "A request with a 'topologyVersion' must include 'maxAwaitTimeMS'".into(),
            ));
        }
        (None, Some(_)) => {
            return Err(refused(
                51760,
                "A request with 'maxAwaitTimeMS' must include a 'topologyVersion'".into(),
            ));
        }
    };
    let counter = match tv.get("counter") {
        Some(Bson::Int64(n)) => *n,
        Some(Bson::Int32(n)) => i64::from(*n),
        _ => 0,
    };
    if counter < 0 {
        return Err(refused(
            51758,
            "topologyVersion must have a non-negative counter".into(),
        ));
    }
    if max < 0 {
        return Err(refused(
            51759,
            "maxAwaitTimeMS must be a non-negative integer".into(),
        ));
    }
    if tv.get_object_id("processId").ok() != Some(process_id()) {
        return Ok(None);
    }
    if counter > 0 {
        return Err(refused(
            51761,
            format!(
                "Received a topology version with counter: {counter} which is greater than the mongos topology version counter: 0"
            ),
        ));
    }
    Ok(Some(std::time::Duration::from_millis(max as u64)))
}

/// `hello` of a server of version `v` (it reads nothing else, so it is answered without the
/// state's lock).
pub fn hello_of(v: ServerVersion, cmd: &Document, ctx: Context, legacy_name: bool) -> Answer {
    hello_wait(cmd)?;
    let mut d = Document::new();
    if legacy_name {
        d.insert("ismaster", true);
    } else {
        d.insert("isWritablePrimary", true);
    }
    d.insert("msg", "isdbgrid");
    // 4.4+: every hello reply carries the topology version (`MongosHelloResponse`).
    if v >= ServerVersion::V4_4 {
        d.insert(
            "topologyVersion",
            doc! { "processId": process_id(), "counter": 0_i64 },
        );
    }
    if cmd.contains_key("helloOk") {
        d.insert("helloOk", true);
    }
    d.insert("maxBsonObjectSize", 16_777_216);
    d.insert("maxMessageSizeBytes", crate::wire::MAX_MESSAGE_BYTES as i32);
    d.insert("maxWriteBatchSize", 100_000);
    d.insert("localTime", DateTime::now());
    d.insert("logicalSessionTimeoutMinutes", 30);
    d.insert("connectionId", ctx.connection_id);
    d.insert("minWireVersion", 0);
    d.insert("maxWireVersion", v.max_wire_version());
    d.insert("readOnly", false);
    Ok(ok(d))
}

/// `buildInfo`.
pub fn build_info(state: &State) -> Answer {
    build_info_of(state.sim.cluster.version, state.patch)
}

/// `buildInfo` of a server of version `v`.
pub fn build_info_of(v: ServerVersion, patch: u32) -> Answer {
    Ok(ok(doc! {
        "version": version_string(v, patch),
        "gitVersion": "shardtop-simulator",
        "modules": [],
        "allocator": "system",
        "javascriptEngine": "none",
        "sysInfo": "deprecated",
        "versionArray": [i32::from(v.major), i32::from(v.minor), patch as i32, 0],
        "bits": 64,
        "debug": false,
        "maxBsonObjectSize": 16_777_216,
        "storageEngines": [],
        "openssl": { "running": "disabled", "compiled": "disabled" },
    }))
}

/// `getCmdLineOpts`.
pub fn get_cmd_line_opts(state: &State) -> Answer {
    let argv: Vec<Bson> = state.argv.iter().map(|a| Bson::String(a.clone())).collect();
    Ok(ok(doc! {
        "argv": argv,
        "parsed": { "net": { "bindIp": state.addr.ip().to_string(), "port": i32::from(state.addr.port()) } },
    }))
}

/// `getLog`: `*` lists the logs, `global` and `startupWarnings` are empty.
pub fn get_log(cmd: &Document) -> Answer {
    match cmd.get("getLog") {
        Some(Bson::String(s)) if s == "*" => {
            Ok(ok(doc! { "names": ["global", "startupWarnings"] }))
        }
        Some(Bson::String(s)) if s == "global" || s == "startupWarnings" => {
            Ok(ok(doc! { "totalLinesWritten": 0, "log": [] }))
        }
        Some(Bson::String(s)) => Err(MongoError::bad_value(format!("no RamLog named: {s}"))),
        _ => Err(crate::serve::reply::type_mismatch(
            "Argument to getLog must be of type String",
        )),
    }
}

/// `hostInfo`.
pub fn host_info(state: &State) -> Answer {
    Ok(ok(doc! {
        "system": {
            "currentTime": DateTime::from_millis(state.now_millis()),
            "hostname": state.addr.to_string(),
            "cpuAddrSize": 64,
            "numCores": std::thread::available_parallelism().map_or(1, |n| n.get() as i32),
            "cpuArch": std::env::consts::ARCH,
        },
        "os": { "type": std::env::consts::OS, "name": std::env::consts::OS },
        "extra": {},
    }))
}

/// `whatsmyuri`.
pub fn whats_my_uri(ctx: Context) -> Answer {
    Ok(ok(doc! { "you": ctx.peer.to_string() }))
}

/// `serverStatus`: what the simulator knows, nothing invented.
pub fn server_status(state: &State) -> Answer {
    let v = state.sim.cluster.version;
    let up = state.started.elapsed();
    Ok(ok(doc! {
        "host": state.addr.to_string(),
        "version": version_string(v, state.patch),
        "process": "mongos",
        "uptime": up.as_secs_f64().floor(),
        "uptimeMillis": up.as_millis() as i64,
        "localTime": DateTime::from_millis(state.now_millis()),
        "shardtop": {
            "virtualTimeMillis": state.sim.now_ms() as i64,
            "paused": state.paused,
            "commandsAnswered": state.commands_answered as i64,
            "balancerRounds": state.sim.cluster.balancer.rounds as i64,
            "migrationsCompleted": state.sim.cluster.balancer.completed as i64,
            "migrationsInFlight": state.sim.cluster.balancer.in_flight.len() as i64,
            "cursorBytesHeld": state.cursors.usage().1 as i64,
            "changeStreamsOpen": state.streams.open() as i64,
        },
        "metrics": { "cursor": { "open": {
            "total": (state.cursors.usage().0 + state.streams.open()) as i64,
        } } },
        "connections": connections(state),
        "sharding": sharding(state),
    }))
}

/// `serverStatus.connections` (`transport/service_entry_point_impl.cpp`, `appendStats`): int32s.
fn connections(state: &State) -> Document {
    let (current, available, total, active) = state.connections.counts();
    let int = |n: u64| i32::try_from(n).unwrap_or(i32::MAX);
    doc! {
        "current": int(current),
        "available": int(available),
        "totalCreated": int(total),
        "active": int(active),
    }
}

/// `serverStatus.sharding` as a mongos sends it (`s/sharding_server_status.cpp`'s section on a
/// router): the config server's replica set, the last config optime seen (the simulator's
/// clock), the chunk size in bytes (a long).
fn sharding(state: &State) -> Document {
    let secs = (state.now_millis() / 1000).max(0) as u32;
    doc! {
        "configsvrConnectionString": "configRepl/config.shardtop.sim:27019",
        "lastSeenConfigServerOpTime": {
            "ts": bson::Timestamp { time: secs, increment: 1 },
            "t": 1_i64,
        },
        "maxChunkSizeInBytes": state.sim.cluster.settings.chunk_size_bytes as i64,
    }
}

/// `isdbgrid`.
pub fn isdbgrid(state: &State) -> Answer {
    Ok(ok(
        doc! { "isdbgrid": 1, "hostname": state.addr.to_string() },
    ))
}

/// The databases the cluster knows: admin, config, and those with a primary shard or writes.
fn database_names(state: &State) -> Vec<String> {
    let mut names: Vec<String> = vec!["admin".into(), "config".into()];
    names.extend(state.sim.cluster.databases.keys().cloned());
    for ns in state.unsharded.keys() {
        if let Some((db, _)) = ns.split_once('.') {
            names.push(db.to_string());
        }
    }
    names.sort();
    names.dedup();
    names
}

/// `listDatabases` (`nameOnly` honoured; sizes are the simulator's byte counts).
pub fn list_databases(state: &State, cmd: &Document) -> Answer {
    let name_only = crate::serve::reply::flag(cmd, "nameOnly");
    let mut total = 0i64;
    let mut list = Vec::new();
    for name in database_names(state) {
        let size: u64 = state
            .sim
            .cluster
            .collections
            .iter()
            .filter(|c| c.db() == name)
            .map(|c| c.table.iter().map(|ch| ch.info.stats.bytes).sum::<u64>())
            .sum();
        total += size as i64;
        if name_only {
            list.push(Bson::Document(doc! { "name": name }));
        } else {
            list.push(Bson::Document(
                doc! { "name": name, "sizeOnDisk": size as i64, "empty": size == 0 },
            ));
        }
    }
    let mut d = doc! { "databases": list };
    if !name_only {
        d.insert("totalSize", total);
        d.insert("totalSizeMb", total >> 20);
    }
    Ok(ok(d))
}

/// The collections of `db`: the generated config collections, or sharded and written ones.
pub fn collection_names(state: &State, db: &str) -> Vec<String> {
    if db == "config" {
        return config_db::COLLECTIONS
            .iter()
            .map(|s| (*s).to_string())
            .collect();
    }
    let prefix = format!("{db}.");
    let mut names: Vec<String> = state
        .sim
        .cluster
        .collections
        .iter()
        .map(|c| c.ns.as_str())
        .chain(state.unsharded.keys().map(String::as_str))
        .filter_map(|ns| ns.strip_prefix(&prefix).map(str::to_string))
        .collect();
    names.sort();
    names.dedup();
    names
}

/// `listCollections` (filter by `name` supported through the query language).
pub fn list_collections(state: &mut State, db: &str, cmd: &Document) -> Answer {
    let filter = crate::serve::reply::opt_doc(cmd, "filter")?;
    let name_only = crate::serve::reply::flag(cmd, "nameOnly");
    let mut docs = Vec::new();
    for name in collection_names(state, db) {
        let ns = format!("{db}.{name}");
        let uuid = state.sim.cluster.collection(&ns).map_or_else(
            || crate::serve::catalog::ids::collection_uuid(&ns, 0),
            |c| crate::serve::catalog::ids::collection_uuid(&ns, c.incarnation),
        );
        let d = if name_only {
            doc! { "name": name, "type": "collection" }
        } else {
            doc! {
                "name": name, "type": "collection",
                "options": state.coll_options.get(&ns).cloned().unwrap_or_default(),
                "info": { "readOnly": db == "config", "uuid": uuid },
                "idIndex": { "v": 2, "key": { "_id": 1 }, "name": "_id_" },
            }
        };
        if filter.is_none_or(|f| crate::serve::query::matches(&d, f).unwrap_or(false)) {
            docs.push(Bson::Document(d));
        }
    }
    Ok(ok(doc! {
        "cursor": { "id": 0i64, "ns": format!("{db}.$cmd.listCollections"), "firstBatch": docs },
    }))
}

/// `listIndexes`: `_id_`, the shard key's index and those created with `createIndexes`.
pub fn list_indexes(state: &State, db: &str, cmd: &Document) -> Answer {
    let coll = crate::serve::reply::first_string(cmd, "listIndexes")?;
    let ns = format!("{db}.{coll}");
    let docs: Vec<Bson> = match crate::serve::catalog::indexes::listing(state, &ns) {
        Some(list) => list.into_iter().map(Bson::Document).collect(),
        None if collection_names(state, db).contains(&coll) => vec![Bson::Document(
            doc! { "v": 2, "key": { "_id": 1 }, "name": "_id_" },
        )],
        None => {
            return Err(MongoError::namespace_not_found(format!(
                "ns does not exist: {ns}"
            )));
        }
    };
    Ok(ok(
        doc! { "cursor": { "id": 0i64, "ns": ns, "firstBatch": docs } },
    ))
}

/// `listShards`.
pub fn list_shards(state: &State) -> Answer {
    let shards = config_db::documents(state, "shards").unwrap_or_default();
    Ok(ok(doc! { "shards": shards }))
}
