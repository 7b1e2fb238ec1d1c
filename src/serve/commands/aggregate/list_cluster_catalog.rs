//! `$listClusterCatalog` (8.1+; on the 8.0 line from 8.0.10, so `serve --server-version 8.0.10`
//! has it and `--server-version 8.0`, which reports 8.0.0, does not): one document
//! per collection of the cluster (on `admin`) or of the database, with its sharding: `ns`, `db`,
//! `type`, `idIndex`, `options`, `info`, `sharded`, `shardKey` (sharded only); with `shards:
//! true` the shards holding its chunks (a collection not tracked: its database's primary); with
//! `balancingConfiguration: true`, for a sharded one, `balancingEnabled`,
//! `balancingEnabledReason`, `autoMergingEnabled`, `chunkSize` (MB); with `tracked: true`
//! `tracked`. mongosh's `db.coll.getShardLocation()` reads it (`shards`, `sharded`).
// mongo master `db/pipeline/document_source_list_cluster_catalog.cpp` (the pipeline it composes
// over `$_internalListCollection`, `config.collections` and `config.chunks`); the fields and their
// order as the `$listClusterCatalog` reference page lists them; the version boundary from that
// page ("New in version 8.1", "8.0.10" on the 8.0 pages) and mongosh 2.x's
// `getShardLocation` (`@serverVersions(['8.0.10', latest])`, `packages/shell-api/src/collection.ts`).
//
// Simplified: `shards` lists the shards in the order of their first chunk in the routing table
// (the server's `$addToSet` has no defined order); views and time-series collections are not
// modelled. May import `catalog`, `state`, `query`, `reply` (not its sibling commands).

use bson::{Bson, Document, doc};

use crate::cluster::{MongoError, Placement, ServerVersion};
use crate::serve::catalog::ids::collection_uuid;
use crate::serve::state::State;

/// The options of the stage.
#[derive(Default)]
struct Spec {
    shards: bool,
    balancing_configuration: bool,
    tracked: bool,
}

fn spec(arg: &Bson) -> Result<Spec, MongoError> {
    let Bson::Document(d) = arg else {
        return Err(MongoError {
            code: 9_621_302,
            code_name: "Location9621302",
            message: format!(
                "$listClusterCatalog must take an object but found: $listClusterCatalog: {}",
                crate::model::shell_text::value(arg)
            ),
        });
    };
    let mut s = Spec::default();
    for (k, v) in d {
        let flag = match v {
            Bson::Boolean(b) => *b,
            _ => {
                return Err(MongoError {
                    code: 14,
                    code_name: "TypeMismatch",
                    message: format!(
                        "BSON field '$listClusterCatalog.{k}' is the wrong type '{}', expected type 'bool'",
                        crate::serve::reply::type_name(v)
                    ),
                });
            }
        };
        match k.as_str() {
            "shards" => s.shards = flag,
            "balancingConfiguration" => s.balancing_configuration = flag,
            "tracked" => s.tracked = flag,
            _ => {
                return Err(MongoError {
                    code: 40415,
                    code_name: "Location40415",
                    message: format!("BSON field '$listClusterCatalog.{k}' is an unknown field."),
                });
            }
        }
    }
    Ok(s)
}

/// The documents of `stage` (`{$listClusterCatalog: {…}}`) on database `db` (`aggregate: 1`;
/// `on_collection`: run on a collection, which the stage refuses).
pub fn list(
    state: &State,
    db: &str,
    on_collection: bool,
    stage: &Document,
) -> Result<Vec<Document>, MongoError> {
    let v = state.sim.cluster.version;
    if v < ServerVersion::V8_1 && !(v == ServerVersion::V8_0 && state.patch >= 10) {
        return Err(crate::serve::query::pipeline::unknown_stage(
            "$listClusterCatalog",
        ));
    }
    if on_collection {
        return Err(MongoError {
            code: 9_621_301,
            code_name: "Location9621301",
            message: "The $listClusterCatalog stage must run on a database, not a collection."
                .to_string(),
        });
    }
    let spec = spec(stage.get("$listClusterCatalog").unwrap_or(&Bson::Null))?;
    let cluster = &state.sim.cluster;
    let in_db = |ns: &str| db == "admin" || ns.split_once('.').is_some_and(|(d, _)| d == db);
    let mut names: Vec<String> = state
        .catalog()
        .iter()
        .map(|c| c.ns.clone())
        .chain(state.unsharded.keys().cloned())
        .filter(|ns| in_db(ns))
        .collect();
    names.sort();
    names.dedup();
    let default_chunk_mb = (cluster.settings.chunk_size_bytes >> 20) as i32;
    let catalog = state.catalog();
    let mut out = Vec::new();
    for ns in names {
        let coll = catalog.iter().find(|c| c.ns == ns);
        let (coll_db, _) = ns.split_once('.').unwrap_or((ns.as_str(), ""));
        let tracked = coll.is_some_and(|c| c.placement != Placement::Untracked);
        let sharded = coll.is_some_and(|c| c.placement == Placement::Sharded);
        let uuid = collection_uuid(&ns, coll.map_or(0, |c| c.incarnation));
        let mut d = doc! {
            "ns": &ns,
            "db": coll_db,
            "type": "collection",
            "idIndex": { "v": 2, "key": { "_id": 1 }, "name": "_id_" },
            "options": {},
            "info": { "readOnly": coll_db == "config", "uuid": uuid },
            "sharded": sharded,
        };
        if let Some(c) = coll.filter(|_| sharded) {
            d.insert("shardKey", c.pattern.to_document());
        }
        if spec.shards {
            let mut seen = Vec::new();
            if let Some(c) = coll.filter(|_| tracked) {
                for chunk in c.table.iter() {
                    if !seen.contains(&chunk.info.shard) {
                        seen.push(chunk.info.shard);
                    }
                }
            } else {
                let primary = cluster.databases.get(coll_db).copied();
                seen.push(primary.unwrap_or(crate::model::ShardIdx(0)));
            }
            let shards: Vec<Bson> = seen
                .into_iter()
                .map(|s| Bson::String(cluster.shard_id(s).to_string()))
                .collect();
            d.insert("shards", shards);
        }
        if spec.balancing_configuration
            && let Some(c) = coll.filter(|_| sharded)
        {
            let enable = !c.balancing.no_balance;
            let allow = !c.balancing.migrations_blocked;
            d.insert("balancingEnabled", enable && allow);
            d.insert(
                "balancingEnabledReason",
                doc! { "enableBalancing": enable, "allowMigrations": allow },
            );
            d.insert("autoMergingEnabled", c.balancing.auto_merge != Some(false));
            // `$divide` of the collection's `maxChunkSizeBytes` (a double), else the cluster's
            // chunk size in MB as the pipeline's literal (an int).
            let size = match c.balancing.max_chunk_size_bytes {
                Some(b) => Bson::Double(b as f64 / 1_048_576.0),
                None => Bson::Int32(default_chunk_mb),
            };
            d.insert("chunkSize", size);
        }
        if spec.tracked {
            d.insert("tracked", tracked);
        }
        out.push(d);
    }
    Ok(out)
}
