//! The config database, generated on each read from the simulator's state in the document shapes
//! of the selected server version (reference §1): `shards`, `databases`, `collections`, `chunks`
//! (by `ns` + `lastmodEpoch` before 5.0, by `uuid` from 5.0; `onCurrentShardSince` from 7.0),
//! `tags`, `settings`, `version`, `mongos` and, before 7.0, `migrations` in flight. The chunk
//! documents themselves are built by `chunk_docs`.

use crate::cluster::Placement;
use bson::{Bson, DateTime, Document, doc};

use crate::cluster::Collection;
use crate::cluster::ServerVersion;
use crate::serve::catalog::chunk_docs::{chunks, ids_key, ts};
use crate::serve::catalog::ids;
use crate::serve::query::chunk_filter::ChunkPrefilter;
use crate::serve::state::State;

/// The config collections this server generates.
pub const COLLECTIONS: &[&str] = &[
    "actionlog",
    "changelog",
    "chunks",
    "collections",
    "databases",
    "migrations",
    "mongos",
    "settings",
    "shards",
    "tags",
    "version",
];

/// The documents of `config.<coll>`, or `None` for a collection this server does not generate.
pub fn documents(state: &State, coll: &str) -> Option<Vec<Document>> {
    matching(state, coll, None)
}

/// [`documents`], leaving out chunks that `filter` certainly does not match (the caller still
/// matches the whole filter; see [`ChunkPrefilter`]).
pub fn matching(state: &State, coll: &str, filter: Option<&Document>) -> Option<Vec<Document>> {
    let v = state.sim.cluster.version;
    Some(match coll {
        "shards" => shards(state, v),
        "databases" => databases(state, v),
        "collections" => state
            .catalog()
            .iter()
            .filter(|c| c.placement != Placement::Untracked)
            .map(|c| collection(state, c, v))
            .collect(),
        "chunks" => {
            let pre = ChunkPrefilter::of(filter);
            state
                .catalog()
                .iter()
                .filter(|c| c.placement != Placement::Untracked)
                .flat_map(|c| chunks(state, c, v, &pre))
                .collect()
        }
        "tags" => tags(state, v),
        "settings" => settings(state),
        "version" => vec![version_doc(state, v)],
        "mongos" => vec![mongos(state, v)],
        "migrations" if v < ServerVersion::V7_0 => migrations(state),
        "migrations" => Vec::new(),
        "changelog" => state.changelog.documents(),
        "actionlog" => state.actionlog.documents(),
        _ => return None,
    })
}

/// The version `serve` reports: release line `v`, patch `patch` (`State::patch`): `"8.0.0"`,
/// `"8.0.10"` when asked for (`--server-version 8.0.10`).
pub fn version_string(v: ServerVersion, patch: u32) -> String {
    format!("{}.{}.{patch}", v.major, v.minor)
}

fn date_secs(secs: u64) -> Bson {
    Bson::DateTime(DateTime::from_millis(secs as i64 * 1000))
}

fn shards(state: &State, v: ServerVersion) -> Vec<Document> {
    let cluster = &state.sim.cluster;
    cluster
        .shards
        .iter()
        .enumerate()
        .filter(|(_, s)| !s.removed)
        .map(|(i, s)| {
            let id = &s.shard.id;
            let mut d =
                doc! { "_id": id, "host": format!("{id}/{id}.shardtop.sim:27018"), "state": 1 };
            if s.shard.draining {
                d.insert("draining", true);
            }
            if !s.shard.zones.is_empty() {
                let tags: Vec<Bson> = s
                    .shard
                    .zones
                    .iter()
                    .map(|z| Bson::String(z.clone()))
                    .collect();
                d.insert("tags", tags);
            }
            if v >= ServerVersion::V5_0 {
                d.insert("topologyTime", ts(state.started_secs, i as u32 + 1));
            }
            if v >= ServerVersion::V8_0 {
                d.insert("replSetConfigVersion", Bson::Int64(-1));
            }
            d
        })
        .collect()
}

fn databases(state: &State, v: ServerVersion) -> Vec<Document> {
    let cluster = &state.sim.cluster;
    cluster
        .databases
        .iter()
        .map(|(db, primary)| {
            let mut version = doc! { "uuid": ids::collection_uuid(db, 0) };
            if v >= ServerVersion::V5_0 {
                version.insert("timestamp", ts(state.started_secs, 1));
            }
            version.insert("lastMod", 1);
            let mut d = doc! { "_id": db, "primary": cluster.shard_id(*primary) };
            // Real 6.0 and 7.0 outputs show `partitioned: false` (deprecated from 6.0, gone
            // in 8.0); before 6.0 `enableSharding` set it.
            if v < ServerVersion::V6_0 {
                d.insert("partitioned", true);
            } else if v < ServerVersion::V8_0 {
                d.insert("partitioned", false);
            }
            d.insert("version", version);
            d
        })
        .collect()
}

/// Whether the shard key was declared unique.
fn unique(c: &Collection) -> bool {
    c.indexes.iter().any(|i| i.key == c.pattern && i.unique)
}

fn collection(state: &State, c: &Collection, v: ServerVersion) -> Document {
    let secs = state.started_secs;
    let mut d = doc! {
        "_id": &c.ns,
        "lastmodEpoch": ids::collection_epoch(&c.ns, c.incarnation, secs),
        "lastmod": date_secs(secs),
    };
    if v < ServerVersion::V5_0 {
        d.insert("dropped", false);
    } else {
        d.insert("timestamp", ids::collection_timestamp(secs, c.incarnation));
    }
    d.insert("uuid", ids::collection_uuid(&c.ns, c.incarnation));
    d.insert("key", c.pattern.to_document());
    d.insert("unique", unique(c));
    if v < ServerVersion::V5_0 {
        d.insert("distributionMode", "sharded");
    } else {
        d.insert("noBalance", c.balancing.no_balance);
    }
    if let Some(bytes) = c.balancing.max_chunk_size_bytes {
        d.insert("maxChunkSizeBytes", bytes as i64);
    }
    if c.ns == crate::serve::catalog::system_sessions::NS && v.major == 6 {
        d.insert("noAutoSplit", true);
    }
    if let Some(on) = c.balancing.auto_merge {
        d.insert("enableAutoMerge", on);
    }
    if c.balancing.migrations_blocked {
        d.insert("permitMigrations", false);
    }
    if c.placement == Placement::Unsplittable {
        d.insert("unsplittable", true);
    }
    if let Some(phase) = c.defragmentation {
        d.insert("defragmentCollection", true);
        d.insert("defragmentationPhase", phase.as_str());
    }
    d
}

/// `config.tags`: the zone ranges of every collection, and those defined before the namespace was
/// sharded (a config server keeps them as given).
fn tags(state: &State, v: ServerVersion) -> Vec<Document> {
    let tag = |ns: &str, min: Document, max: Document, zone: &str| {
        let id: Bson = if v < ServerVersion::V5_0 {
            Bson::Document(doc! { "ns": ns, "min": min.clone() })
        } else {
            Bson::ObjectId(ids::object_id(
                state.started_secs,
                &[b"tag", ns.as_bytes(), &ids_key(&min)],
            ))
        };
        doc! { "_id": id, "ns": ns, "min": min, "max": max, "tag": zone }
    };
    let mut out = Vec::new();
    for c in &state.sim.cluster.collections {
        for r in c.zones.iter() {
            let (min, max) = (
                c.pattern.bound_to_document(&r.min),
                c.pattern.bound_to_document(&r.max),
            );
            out.push(tag(&c.ns, min, max, &r.zone));
        }
    }
    for p in &state.sim.cluster.pending_zones {
        out.push(tag(&p.ns, p.min.clone(), p.max.clone(), &p.zone));
    }
    out
}

/// `config.settings` as a config server has it: a document exists once something wrote it (a
/// fresh 8.0 cluster has none, `shards-mongos-8.0.ejson.txt`): the balancer's when it was started
/// or stopped or has a window or flag, `chunksize` when not the default, `automerge` when off.
fn settings(state: &State) -> Vec<Document> {
    let s = &state.sim.cluster.settings;
    let written = |id: &str| state.other_settings.written.contains(id);
    let mut docs = Vec::new();
    if written("balancer")
        || !s.balancer_enabled
        || s.active_window.is_some()
        || s.attempt_to_balance_jumbo_chunks
    {
        let mode = if s.balancer_enabled { "full" } else { "off" };
        let mut balancer = doc! { "_id": "balancer", "mode": mode, "stopped": !s.balancer_enabled };
        // The window as a client wrote it (`config_writes`), else the simulator's (minutes of
        // its clock, shown in the wall-clock time of `serve`'s start plus them).
        if let Some(written) = &state.other_settings.active_window {
            balancer.insert("activeWindow", written.clone());
        } else if let Some(w) = s.active_window {
            let offset = crate::serve::state::settings::wall_minute_at_start(state.started_secs);
            let hm = |m: u32| {
                let m = (m + offset) % 1440;
                format!("{:02}:{:02}", m / 60, m % 60)
            };
            balancer.insert(
                "activeWindow",
                doc! { "start": hm(w.start_minute), "stop": hm(w.stop_minute) },
            );
        }
        if s.attempt_to_balance_jumbo_chunks {
            balancer.insert("attemptToBalanceJumboChunks", true);
        }
        docs.push(balancer);
    }
    if written("chunksize")
        || s.chunk_size_bytes != state.sim.cluster.version.default_chunk_size_bytes()
    {
        docs.push(
            doc! { "_id": "chunksize", "value": crate::serve::reply::number(s.chunk_size_bytes >> 20) },
        );
    }
    // `sh.stopAutoMerger()` writes this document; without it the AutoMerger is on.
    if written("automerge") || !s.auto_merge {
        docs.push(doc! { "_id": "automerge", "enabled": s.auto_merge });
    }
    docs.extend(state.other_settings.docs.values().cloned());
    docs
}

fn version_doc(state: &State, v: ServerVersion) -> Document {
    let cluster_id = ids::object_id(state.started_secs, &[b"cluster"]);
    if v < ServerVersion::V7_0 {
        // Real 6.0.3 output still shows both (`sh.status-6.0.3.txt`).
        doc! { "_id": 1, "minCompatibleVersion": 5, "currentVersion": 6, "clusterId": cluster_id }
    } else {
        doc! { "_id": 1, "clusterId": cluster_id }
    }
}

fn mongos(state: &State, v: ServerVersion) -> Document {
    let mut d = doc! {
        "_id": state.addr.to_string(),
        "advisoryHostFQDNs": [],
    };
    if v >= ServerVersion::V6_0 {
        d.insert("created", date_secs(state.started_secs));
    }
    d.insert("mongoVersion", version_string(v, state.patch));
    d.insert(
        "ping",
        Bson::DateTime(DateTime::from_millis(state.now_millis())),
    );
    d.insert("up", Bson::Int64(state.started.elapsed().as_secs() as i64));
    d.insert("waiting", true);
    d
}

fn migrations(state: &State) -> Vec<Document> {
    let cluster = &state.sim.cluster;
    state
        .sim
        .cluster
        .balancer
        .in_flight
        .iter()
        .filter_map(|m| {
            let c = cluster.collection(&m.ns)?;
            let max = m.end.as_ref().unwrap_or(&m.max);
            Some(doc! {
                "_id": format!("{}-{}", m.ns, m.id),
                "ns": &m.ns,
                "min": c.pattern.bound_to_document(&m.min),
                "max": c.pattern.bound_to_document(max),
                "fromShard": cluster.shard_id(m.from),
                "toShard": cluster.shard_id(m.to),
                "waitForDelete": false,
                "forceJumbo": 0,
            })
        })
        .collect()
}
