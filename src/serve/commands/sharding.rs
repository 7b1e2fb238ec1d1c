//! Sharding commands, each mapped onto the simulator's operation of the same name (its refusals
//! carry MongoDB's codes): enableSharding, shardCollection, addShard, zones, split,
//! moveChunk, clearJumboFlag, moveRange, mergeChunks, balancer start/stop/status, balancerCollectionStatus (the
//! balancer policy's first reason to move a chunk), refineCollectionShardKey,
//! reshardCollection, createIndexes.

// Every handler has the signature the dispatcher expects, also those that cannot fail.
#![allow(clippy::unnecessary_wraps)]

use bson::{Bson, Document, doc};

use crate::cluster::{MongoError, ServerVersion};
use crate::model::{KeyPattern, ShardKey};
use crate::serve::catalog::system_sessions;
use crate::serve::reply::{self, Answer, doc_arg, flag, ok, opt_count, string_arg};
use crate::serve::state::State;
use crate::sim::balancer::collection_balancing::BalancingRequest;
use crate::sim::ops::ShardCollectionOptions;
use crate::sim::resharding::reshard_layout::ReshardRequest;

fn pattern(d: &Document) -> Result<KeyPattern, MongoError> {
    KeyPattern::parse(d).map_err(|e| MongoError::bad_value(e.0))
}

fn ns_arg(cmd: &Document, name: &str) -> Result<String, MongoError> {
    let ns = reply::first_string(cmd, name)?;
    if !ns.contains('.') {
        return Err(reply::invalid_namespace(format!(
            "Invalid namespace specified '{ns}'"
        )));
    }
    Ok(ns)
}

fn key_pattern_of(state: &State, ns: &str) -> Result<KeyPattern, MongoError> {
    let c = state.sim.coll(ns)?;
    Ok(state.sim.cluster.collections[c].pattern.clone())
}

/// A chunk bound given as a document of the shard key's fields.
fn bound(p: &KeyPattern, d: &Document) -> Result<ShardKey, MongoError> {
    p.bound_from_document(d)
        .map_err(|e| MongoError::bad_value(e.0))
}

/// `bounds: [min, max]`.
fn bounds(cmd: &Document, p: &KeyPattern) -> Result<(ShardKey, ShardKey), MongoError> {
    match cmd.get("bounds") {
        Some(Bson::Array(a)) if a.len() == 2 => match (&a[0], &a[1]) {
            (Bson::Document(min), Bson::Document(max)) => Ok((bound(p, min)?, bound(p, max)?)),
            _ => Err(MongoError::bad_value("bounds must hold two documents")),
        },
        _ => Err(MongoError::bad_value(
            "bounds must be an array of two documents [min, max]",
        )),
    }
}

/// `enableSharding`.
pub fn enable_sharding(state: &mut State, cmd: &Document) -> Answer {
    let db = reply::first_string(cmd, "enableSharding")?;
    if db.contains('.') || db == "admin" || db == "local" || db == "config" {
        return Err(reply::invalid_namespace(format!(
            "invalid db name specified: {db}"
        )));
    }
    match cmd.get("primaryShard") {
        Some(Bson::String(s)) => {
            let primary = state
                .sim
                .cluster
                .shard_index(s)
                .ok_or_else(|| MongoError::shard_not_found(format!("Shard {s} not found")))?;
            state.sim.cluster.databases.entry(db).or_insert(primary);
        }
        // Without `primaryShard`: the least loaded shard (`Cluster::shard_for_new_database`).
        _ => {
            state.sim.cluster.ensure_database(&db);
        }
    }
    Ok(ok(Document::new()))
}

/// `shardCollection` (`key`, `unique`, `numInitialChunks`, `presplitHashedZones`).
pub fn shard_collection(state: &mut State, cmd: &Document) -> Answer {
    let ns = ns_arg(cmd, "shardCollection")?;
    let key = pattern(doc_arg(cmd, "key")?)?;
    let mut opts = ShardCollectionOptions {
        unique: flag(cmd, "unique"),
        presplit_hashed_zones: flag(cmd, "presplitHashedZones"),
        ..ShardCollectionOptions::default()
    };
    opts.num_initial_chunks = opt_count(cmd, "numInitialChunks")?.map(|n| n.clamp(1, 8192) as u32);
    let (count, specs) = state
        .unsharded
        .get(&ns)
        .map_or((0, Vec::new()), |u| (u.count, u.indexes.clone()));
    // 8.0 `db/s/shard_key_util.cpp` (`validateShardKeyIndexExistsOrCreateIfPossible`): a
    // collection with documents needs an index that supports the key.
    if count > 0 && !crate::serve::catalog::indexes::supports_shard_key(&specs, &key) {
        return Err(MongoError::invalid_options(
            "Please create an index that starts with the proposed shard key before sharding the collection. ",
        ));
    }
    state.sim.shard_collection(&ns, key.clone(), &opts)?;
    state.unsharded.remove(&ns);
    if opts.unique {
        // The shard key's unique index holds on the kept documents too.
        let name = crate::serve::catalog::indexes::index_name(&key.to_document());
        let pattern = key.to_document();
        let docs = state.store.iter(&ns).map(|(seq, s)| (seq, &s.doc));
        state.uniques.create(&ns, &name, &pattern, false, docs)?;
    }
    crate::serve::catalog::indexes::adopt_specs(state, &ns, specs)?;
    // Documents kept before sharding now count in the collection's chunks.
    if let Some(c) = state.sim.cluster.collection_index(&ns) {
        let kept: Vec<(Document, u64)> = state
            .store
            .iter(&ns)
            .map(|(_, s)| (s.doc.clone(), s.bytes))
            .collect();
        for (d, bytes) in kept {
            let _ = crate::serve::write_path::route::route(state, c, &d, bytes);
        }
    }
    let uuid = crate::serve::catalog::ids::collection_uuid(&ns, 1);
    Ok(ok(doc! { "collectionsharded": ns, "collectionUUID": uuid }))
}

/// `addShard`: the shard's name is `name`, else the replica set's name, else the next default.
pub fn add_shard(state: &mut State, cmd: &Document) -> Answer {
    let host = reply::first_string(cmd, "addShard")?;
    let id = match cmd.get("name") {
        Some(Bson::String(n)) => n.clone(),
        _ => match host.split_once('/') {
            Some((rs, _)) if !rs.is_empty() => rs.to_string(),
            _ => crate::model::Shard::default_name(state.sim.cluster.shards.len()),
        },
    };
    state.sim.add_shard(&id, 1.0)?;
    Ok(ok(doc! { "shardAdded": id }))
}

/// `addShardToZone` / `removeShardFromZone`.
pub fn shard_zone(state: &mut State, cmd: &Document, add: bool) -> Answer {
    let name = if add {
        "addShardToZone"
    } else {
        "removeShardFromZone"
    };
    let shard = reply::first_string(cmd, name)?;
    let zone = string_arg(cmd, "zone")?;
    if add {
        state.sim.add_shard_to_zone(&shard, &zone)?;
    } else {
        state.sim.remove_shard_from_zone(&shard, &zone)?;
    }
    Ok(ok(Document::new()))
}

/// `updateZoneKeyRange` (`zone: null` removes the range).
pub fn update_zone_key_range(state: &mut State, cmd: &Document) -> Answer {
    let ns = ns_arg(cmd, "updateZoneKeyRange")?;
    let min = doc_arg(cmd, "min")?.clone();
    let max = doc_arg(cmd, "max")?.clone();
    let zone = match cmd.get("zone") {
        Some(Bson::String(z)) => Some(z.clone()),
        Some(Bson::Null) => None,
        _ => return Err(MongoError::bad_value("zone must be a string or null")),
    };
    state
        .sim
        .update_zone_key_range(&ns, &min, &max, zone.as_deref())?;
    Ok(ok(Document::new()))
}

/// `split` with `middle`, `find` or `bounds`.
pub fn split(state: &mut State, cmd: &Document) -> Answer {
    let ns = ns_arg(cmd, "split")?;
    let p = key_pattern_of(state, &ns)?;
    if let Some(Bson::Document(middle)) = cmd.get("middle") {
        state.sim.split_at(&ns, bound(&p, middle)?)?;
    } else if let Some(Bson::Document(find)) = cmd.get("find") {
        let key = p.extract(find).map_err(|e| MongoError::bad_value(e.0))?;
        state.sim.split_find(&ns, &key)?;
    } else if cmd.contains_key("bounds") {
        let (min, _) = bounds(cmd, &p)?;
        state.sim.split_find(&ns, &min)?;
    } else {
        return Err(MongoError::bad_value(
            "need to specify find, bounds or middle",
        ));
    }
    Ok(ok(Document::new()))
}

/// The key a chunk command names: its `find` document's shard key, or its `bounds[0]`.
fn find_or_bounds(state: &State, ns: &str, cmd: &Document) -> Result<ShardKey, MongoError> {
    let p = key_pattern_of(state, ns)?;
    if let Some(Bson::Document(find)) = cmd.get("find") {
        p.extract(find).map_err(|e| MongoError::bad_value(e.0))
    } else {
        Ok(bounds(cmd, &p)?.0)
    }
}

/// `moveChunk` with `find` or `bounds` (`forceJumbo` honoured).
pub fn move_chunk(state: &mut State, cmd: &Document) -> Answer {
    let ns = ns_arg(cmd, "moveChunk")?;
    // 4.4 to 8.0 `s/commands/cluster_move_chunk_cmd.cpp`: the routing table first (not sharded),
    // then `to` (ShardNotFound in the words of its log line 22755, `UserAssertAfterLog`), then
    // `find` or `bounds`.
    state.sim.coll(&ns)?;
    let to = string_arg(cmd, "to")?;
    if state
        .sim
        .cluster
        .shard_index(&to)
        .is_none_or(|s| state.sim.cluster.shards[s.index()].removed)
    {
        return Err(MongoError::shard_not_found(format!(
            "Could not move chunk in {ns} to {to} because that shard does not exist"
        )));
    }
    let key = find_or_bounds(state, &ns, cmd)?;
    if flag(cmd, "forceJumbo") {
        state.sim.move_chunk_forced(&ns, &key, &to)?;
    } else {
        state.sim.move_chunk(&ns, &key, None, &to)?;
    }
    crate::serve::write_path::completion::wait_for_migration(state, true);
    Ok(ok(doc! { "millis": 0 }))
}

/// `clearJumboFlag` on the chunk holding `find` (or starting at `bounds[0]`).
pub fn clear_jumbo_flag(state: &mut State, cmd: &Document) -> Answer {
    let ns = ns_arg(cmd, "clearJumboFlag")?;
    let key = find_or_bounds(state, &ns, cmd)?;
    let c = state
        .sim
        .cluster
        .collection(&ns)
        .ok_or_else(|| MongoError::namespace_not_sharded(format!("{ns} is not sharded")))?;
    let min = c.table.chunk(c.table.route(&key)).min.clone();
    state.sim.clear_jumbo_flag(&ns, &min)?;
    Ok(ok(Document::new()))
}

/// `moveRange` of `[min, max)`; either bound may be left out (6.0+).
pub fn move_range(state: &mut State, cmd: &Document) -> Answer {
    // A line without the command (before 6.0) answers CommandNotFound before it reads any field
    // (`s/commands/cluster_move_range_cmd.cpp` is new in 6.0).
    if state.sim.cluster.version < crate::cluster::ServerVersion::V6_0 {
        return Err(MongoError::command_not_found(
            "no such command: 'moveRange'",
        ));
    }
    let ns = ns_arg(cmd, "moveRange")?;
    let to = string_arg(cmd, "toShard")?;
    let p = key_pattern_of(state, &ns)?;
    let optional = |name: &str| match cmd.get(name) {
        Some(Bson::Document(d)) => bound(&p, d).map(Some),
        None | Some(Bson::Null) => Ok(None),
        Some(_) => Err(reply::type_mismatch(format!(
            "BSON field 'moveRange.{name}' is the wrong type, expected type 'object'"
        ))),
    };
    let (min, max) = (optional("min")?, optional("max")?);
    let force = cmd.get_bool("forceJumbo").unwrap_or(false);
    state
        .sim
        .move_range(&ns, min.as_ref(), max.as_ref(), &to, force)?;
    crate::serve::write_path::completion::wait_for_migration(state, false);
    Ok(ok(Document::new()))
}

/// `configureCollectionBalancing` (5.3+).
pub fn configure_collection_balancing(state: &mut State, cmd: &Document) -> Answer {
    let ns = ns_arg(cmd, "configureCollectionBalancing")?;
    let chunk_size_mb = match cmd.get("chunkSize") {
        None => None,
        Some(Bson::Int32(n)) if *n >= 0 => Some(*n as u64),
        Some(Bson::Int64(n)) if *n >= 0 => Some(*n as u64),
        Some(Bson::Double(n)) if *n >= 0.0 && n.fract() == 0.0 => Some(*n as u64),
        Some(_) => {
            return Err(MongoError::bad_value(
                "chunkSize must be a non-negative whole number of MiB",
            ));
        }
    };
    let req = BalancingRequest {
        chunk_size_mb,
        enable_auto_merger: cmd.get_bool("enableAutoMerger").ok(),
        defragment: cmd.get_bool("defragmentCollection").ok(),
    };
    state.sim.configure_collection_balancing(&ns, req)?;
    Ok(ok(Document::new()))
}

/// `mergeChunks` over `bounds`.
pub fn merge_chunks(state: &mut State, cmd: &Document) -> Answer {
    let ns = ns_arg(cmd, "mergeChunks")?;
    let p = key_pattern_of(state, &ns)?;
    let (min, max) = bounds(cmd, &p)?;
    state.sim.merge_chunks(&ns, &min, &max)?;
    Ok(ok(Document::new()))
}

/// `balancerStart` / `balancerStop`.
pub fn set_balancer(state: &mut State, enabled: bool) -> Answer {
    state.sim.set_balancer(enabled);
    // Both commands write the balancer's `config.settings` document.
    state.other_settings.written.insert("balancer".to_string());
    if !enabled {
        crate::serve::write_path::completion::wait_for_balancer_round(state);
    }
    Ok(ok(Document::new()))
}

/// `balancerStatus`.
pub fn balancer_status(state: &State) -> Answer {
    let mode = if state.sim.cluster.settings.balancer_enabled {
        "full"
    } else {
        "off"
    };
    Ok(ok(doc! {
        "mode": mode,
        "inBalancerRound": state.sim.cluster.balancer.round.is_some(),
        "numBalancerRounds": state.sim.cluster.balancer.rounds as i64,
    }))
}

/// `balancerCollectionStatus`: whether the balancer's policy would move a chunk of the
/// collection now, and the first reason (`defragmentingChunks` with its phase, `draining`,
/// `zoneViolation`, `chunksImbalance`);
/// `chunkSize` in MB from 6.0 (MongoDB added it in 5.3). `config.system.sessions`, which the
/// catalog lists as sharded, is answered by the same policy.
pub fn balancer_collection_status(state: &State, cmd: &Document) -> Answer {
    let ns = ns_arg(cmd, "balancerCollectionStatus")?;
    let version = state.sim.cluster.version;
    if ns == system_sessions::NS && state.sim.cluster.collection(&ns).is_none() {
        let (chunk_bytes, violation) = system_sessions::compliance(&state.sim.cluster)
            .ok_or_else(|| MongoError::namespace_not_sharded(format!("{ns} is not sharded")))?;
        return Ok(ok(compliance_reply(version, chunk_bytes, violation)));
    }
    let c = state.sim.coll(&ns)?;
    // 8.0 `db/s/balancer/balancer.cpp` `getBalancerStatusForNs`: defragmentation comes first,
    // with `reportProgressOn`'s details (`remainingChunksToProcess` a long long).
    if let Some((phase, remaining)) = state.sim.defragmentation_progress(c) {
        let mut reply = chunk_size_field(version, state.sim.cluster.chunk_size_of(c));
        reply.insert("balancerCompliant", false);
        reply.insert("firstComplianceViolation", "defragmentingChunks");
        reply.insert(
            "details",
            doc! {
                "currentPhase": phase.as_str(),
                "progress": {"remainingChunksToProcess": remaining as i64},
            },
        );
        return Ok(ok(reply));
    }
    let chunk_bytes = state.sim.cluster.chunk_size_of(c);
    let violation = state.sim.balancer_compliance(c);
    Ok(ok(compliance_reply(version, chunk_bytes, violation)))
}

/// `chunkSize` (6.0+) in MB: a whole number before 8.0 (`maxChunkSizeBytes / (1024 * 1024)`,
/// a long); from 8.0 a double kept to two decimals, rounded up (`std::ceil(mb * 100) / 100`:
/// 200,000 bytes, `config.system.sessions`'s, is 0.2), a whole number of MB as a plain int as
/// in real 8.0.32 output (the fixtures' `commands-8.0.ejson.txt`; the 7.0 reference page's
/// example has a long).
// 7.0 and 8.0 `db/s/balancer/balancer.cpp` (`getBalancerStatusForNs`).
fn chunk_size_field(version: ServerVersion, chunk_bytes: u64) -> Document {
    const MB: u64 = 1024 * 1024;
    let mut reply = Document::new();
    if version < ServerVersion::V6_0 {
        return reply;
    }
    let mb = chunk_bytes / MB;
    let value = if version < ServerVersion::V8_0 {
        Bson::Int64(mb as i64)
    } else if chunk_bytes.is_multiple_of(MB) {
        reply::number(mb)
    } else {
        Bson::Double((chunk_bytes as f64 / MB as f64 * 100.0).ceil() / 100.0)
    };
    reply.insert("chunkSize", value);
    reply
}

/// The reply of a collection not being defragmented: compliant, or the policy's first reason.
fn compliance_reply(
    version: ServerVersion,
    chunk_bytes: u64,
    violation: Option<crate::sim::balancer::Violation>,
) -> Document {
    let mut reply = chunk_size_field(version, chunk_bytes);
    let violation = violation.map(crate::sim::balancer::Violation::as_str);
    reply.insert("balancerCompliant", violation.is_none());
    if let Some(v) = violation {
        reply.insert("firstComplianceViolation", v);
    }
    reply
}

/// `refineCollectionShardKey`.
pub fn refine(state: &mut State, cmd: &Document) -> Answer {
    let ns = ns_arg(cmd, "refineCollectionShardKey")?;
    let key = pattern(doc_arg(cmd, "key")?)?;
    if let Some(c) = state.sim.cluster.collection_index(&ns) {
        crate::serve::write_path::hand_over::hand_documents(state, c, &key)?;
    }
    state.sim.refine_shard_key(&ns, key)?;
    Ok(ok(Document::new()))
}

/// `reshardCollection` (starts the resharding; it completes in virtual time).
pub fn reshard(state: &mut State, cmd: &Document) -> Answer {
    let ns = ns_arg(cmd, "reshardCollection")?;
    let key = pattern(doc_arg(cmd, "key")?)?;
    let n = opt_count(cmd, "numInitialChunks")?.map(|n| n.clamp(1, 8192) as u32);
    let force = cmd.contains_key("forceRedistribution");
    if force && state.sim.cluster.version < ServerVersion::V7_2 {
        return Err(MongoError::unknown_field(
            "BSON field 'reshardCollection.forceRedistribution' is an unknown field.",
        ));
    }
    let mut req = ReshardRequest::new(key);
    req.num_initial_chunks = n;
    req.force_redistribution = flag(cmd, "forceRedistribution");
    if let Some(list) = json_array(cmd, "shardDistribution")? {
        req.distribution = state.sim.shard_distribution_of(&req.key, &list)?;
    }
    if let Some(list) = json_array(cmd, "zones")? {
        req.zones = Some(crate::sim::resharding::reshard_layout::zones_of(
            &req.key, &list,
        )?);
    }
    if let Some(c) = state.sim.cluster.collection_index(&ns) {
        crate::serve::write_path::hand_over::hand_documents(state, c, &req.key)?;
    }
    state.sim.start_resharding(&ns, req)?;
    crate::serve::write_path::completion::wait_for_resharding(state, &ns);
    Ok(ok(Document::new()))
}

/// An array field as Extended JSON values (canonical, so number types survive).
fn json_array(cmd: &Document, field: &str) -> Result<Option<Vec<serde_json::Value>>, MongoError> {
    match cmd.get(field) {
        None | Some(Bson::Null) => Ok(None),
        Some(Bson::Array(a)) => Ok(Some(
            a.iter()
                .map(|v| v.clone().into_canonical_extjson())
                .collect(),
        )),
        Some(_) => Err(reply::type_mismatch(format!(
            "BSON field 'reshardCollection.{field}' is the wrong type, expected type 'array'"
        ))),
    }
}
