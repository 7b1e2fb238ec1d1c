//! Keyframes: the whole state of a cluster (simulated or observed) as one trace line, so a reader
//! can start anywhere.

use serde_json::{Value, json};

use super::json::{
    Res, array_at, bool_at, f64_at, field, key_at, key_json, key_of, ms_of_seconds, pattern_json,
    seconds, str_at, strings_at, u64_at,
};
use crate::cluster::ServerVersion;
use crate::cluster::balancer::{BalancerState, Migration, RoundInProgress};
use crate::cluster::defragmentation::DefragmentationPhase;
use crate::cluster::resharding::ReshardingParams;
use crate::cluster::{Cluster, Collection, Settings, ShardState};
use crate::model::{Shard, ShardIdx, ShardKey};

mod collection;
mod diagnosed;
mod observed;
pub(super) mod streamed;

pub(super) use collection::{ChunkFields, Heavy, collection_of};
pub use observed::POLL_NOTE_FEEDS;
pub use streamed::write;

/// The keyframe line of a state.
pub fn encode(c: &Cluster) -> Value {
    let mut line = encode_without_chunks(c);
    for (coll, out) in c.collections.iter().zip(collections_mut(&mut line)) {
        out["chunks"] = Value::Array(
            coll.table
                .iter()
                .map(|ch| chunk_json(c, coll, &ch))
                .collect(),
        );
    }
    line
}

/// The keyframe's collections, as [`encode_without_chunks`] lays them out.
fn collections_mut(line: &mut Value) -> impl Iterator<Item = &mut Value> {
    line["keyframe"]["collections"]
        .as_array_mut()
        .into_iter()
        .flatten()
}

/// One chunk of a keyframe's collection.
fn chunk_json(c: &Cluster, coll: &Collection, ch: &crate::model::Chunk<'_>) -> Value {
    json!({
        "min": key_json(Some(&coll.pattern), ch.min), "shard": c.shard_id(ch.info.shard),
        "v": [ch.info.version.major, ch.info.version.minor],
        "docs": ch.info.stats.docs, "bytes": ch.info.stats.bytes, "writes": ch.info.stats.writes,
        "jumbo": ch.info.jumbo, "since": ch.info.since, "written": ch.info.bytes_written,
    })
}

/// The keyframe line with each collection's `chunks` null, in its place (a million chunks as
/// JSON values take a gigabyte; [`write`] writes them one by one in that place).
fn encode_without_chunks(c: &Cluster) -> Value {
    let s = &c.settings;
    let mut line = json!({
        "t": seconds(c.now_ms),
        "keyframe": {
            "serverVersion": c.version.to_string(),
            "settings": {
                "chunkSizeBytes": s.chunk_size_bytes, "balancer": s.balancer_enabled, "autoMerge": s.auto_merge,
                "attemptToBalanceJumboChunks": s.attempt_to_balance_jumbo_chunks,
                "migrationBytesPerSec": s.migration_bytes_per_sec, "migrationOverheadMs": s.migration_overhead_ms,
                "reshardingMinimumOperationDurationMillis": s.resharding.minimum_operation_duration_ms,
                "reshardingCriticalSectionTimeoutMillis": s.resharding.critical_section_timeout_ms,
            },
            "shards": c.shards.iter().map(|s| {
                let mut out = json!({
                "id": s.shard.id, "capacity": s.capacity, "zones": s.shard.zones, "draining": s.shard.draining,
                "removed": s.removed,
                });
                if s.unlisted {
                    out["unlisted"] = json!(true);
                }
                out
            }).collect::<Vec<_>>(),
            "databases": c.databases.iter().map(|(db, s)| json!({"name": db, "primary": c.shard_id(*s)})).collect::<Vec<_>>(),
            "balancer": balancer_json(c),
            "collections": c.collections.iter().map(|coll| collection_json(c, coll)).collect::<Vec<_>>(),
            "pendingZones": c.pending_zones.iter().map(|r| json!({
                "ns": r.ns, "zone": r.zone,
                "min": bson::Bson::Document(r.min.clone()).into_canonical_extjson(),
                "max": bson::Bson::Document(r.max.clone()).into_canonical_extjson(),
            })).collect::<Vec<_>>(),
            "failedActions": c.failed_actions.iter().map(|f| json!({
                "path": f.path, "command": f.command, "t": seconds(f.at_ms),
                "error": super::event_codec::error_json(&f.error),
            })).collect::<Vec<_>>(),
        }
    });
    if let Some(w) = s.active_window {
        line["keyframe"]["settings"]["activeWindow"] =
            json!({"start": hh_mm(w.start_minute), "stop": hh_mm(w.stop_minute)});
    }
    if s.auto_split_only {
        line["keyframe"]["settings"]["balancerMode"] = json!("autoSplitOnly");
    }
    if let Some(why) = &s.window_rejected {
        line["keyframe"]["settings"]["activeWindowRejected"] = json!(why);
    }
    // 1.1: a 6.0.0–6.0.2 server (its balancer evens chunk counts); absent: as its release line.
    if c.before_6_0_3 {
        line["keyframe"]["serverVersionBefore603"] = json!(true);
    }
    observed::encode_notes(c, &mut line["keyframe"]);
    diagnosed::encode(c, &mut line["keyframe"]);
    line
}

fn balancer_json(c: &Cluster) -> Value {
    let b = &c.balancer;
    let key = |ns: &str, k: &ShardKey| key_json(c.collection(ns).map(|x| &x.pattern), k);
    let mut out = json!({
        "rounds": b.rounds, "nextRoundMs": b.next_round_ms, "completed": b.completed, "failed": b.failed,
        "whyNot": b.why_not, "nextMigrationId": c.next_migration_id,
        "round": b.round.as_ref().map(|r| json!({
            "number": r.number, "startedMs": r.started_ms, "candidates": r.candidates,
            "migrationIds": r.migration_ids, "moved": r.moved, "failed": r.failed,
        })),
        "inFlight": b.in_flight.iter().map(|m| {
            let mut out = json!({
            "id": m.id, "ns": m.ns, "min": key(&m.ns, &m.min), "max": key(&m.ns, &m.max),
            "end": m.end.as_ref().map(|e| key(&m.ns, e)), "from": c.shard_id(m.from), "to": c.shard_id(m.to),
            "startedMs": m.started_ms, "finishMs": m.finish_ms, "bytes": m.bytes, "reason": m.reason.as_str(),
            });
            if m.bytes_estimated {
                out["bytesEstimated"] = json!(true);
            }
            out
        }).collect::<Vec<_>>(),
    });
    observed::encode_balancer(b, &mut out);
    diagnosed::encode_compliance(b, &mut out);
    out
}

fn collection_json(c: &Cluster, coll: &Collection) -> Value {
    let p = Some(&coll.pattern);
    let mut out = json!({
        "ns": coll.ns, "key": pattern_json(&coll.pattern), "incarnation": coll.incarnation,
        "routedWrites": coll.routed_writes,
        "indexes": coll.indexes.iter().map(|i| json!({"key": pattern_json(&i.key), "unique": i.unique})).collect::<Vec<_>>(),
        "zones": coll.zones.iter().map(|z| json!({"min": key_json(p, &z.min), "max": key_json(p, &z.max), "zone": z.zone})).collect::<Vec<_>>(),
        "resharding": coll.resharding.as_ref().map(|r| json!({
            "key": pattern_json(&r.key), "numInitialChunks": r.num_initial_chunks,
            "startedMs": r.started_ms, "readyMs": r.ready_ms, "provenance": r.provenance.as_str(),
        })),
        // Filled by `encode`, or written chunk by chunk by `write`.
        "chunks": Value::Null,
        "defragmentationPhase": coll.defragmentation.map(DefragmentationPhase::as_str),
        "placement": coll.placement.as_str(),
        "balancing": {
            "maxChunkSizeBytes": coll.balancing.max_chunk_size_bytes,
            "enableAutoMerge": coll.balancing.auto_merge,
            "noBalance": coll.balancing.no_balance,
        },
        "rangeDeletions": coll.range_deletions.iter().map(|r| json!({
            "shard": c.shard_id(r.shard), "min": key_json(p, &r.min), "max": key_json(p, &r.max),
            "docs": r.docs, "bytes": r.bytes, "dueMs": r.due_ms,
        })).collect::<Vec<_>>(),
        "window": coll.window.ticks(c.now_ms).map(|(at, keys, shards)| json!({
            "keys": keys.iter().map(|(k, n)| json!([key_json(p, k), n])).collect::<Vec<_>>(),
            "shards": shards,
            "atMs": at,
        })).collect::<Vec<_>>(),
    });
    observed::encode_collection(c, coll, &mut out);
    out
}

/// Reads a keyframe line back into a state.
pub fn decode(v: &Value) -> Res<Cluster> {
    let now_ms = ms_of_seconds(f64_at(v, "t", "")?);
    let frame = field(v, "keyframe", "")?;
    decode_frame(now_ms, frame, |cluster| {
        let p = "keyframe.";
        array_at(frame, "collections", p)?
            .iter()
            .enumerate()
            .map(|(i, coll)| collection_of(cluster, coll, &format!("{p}collections[{i}]."), None))
            .collect()
    })
}

/// A state from a keyframe's `keyframe` object at `now_ms`; its collections are read by
/// `collections` (given the state's shards), between the databases and the pending zones.
pub(super) fn decode_frame(
    now_ms: u64,
    frame: &Value,
    collections: impl FnOnce(&Cluster) -> Res<Vec<Collection>>,
) -> Res<Cluster> {
    let p = "keyframe.";
    let version: ServerVersion = str_at(frame, "serverVersion", p)?
        .parse()
        .map_err(|e| format!("field `{p}serverVersion`: {e}"))?;
    let set = field(frame, "settings", p)?;
    let sp = "keyframe.settings.";
    let settings = Settings {
        chunk_size_bytes: u64_at(set, "chunkSizeBytes", sp)?,
        balancer_enabled: bool_at(set, "balancer", sp)?,
        active_window: active_window_of(set)?,
        window_rejected: (set.get("activeWindowRejected").and_then(Value::as_str))
            .map(str::to_string),
        auto_split_only: set.get("balancerMode").and_then(Value::as_str) == Some("autoSplitOnly"),
        attempt_to_balance_jumbo_chunks: set
            .get("attemptToBalanceJumboChunks")
            .and_then(Value::as_bool)
            .unwrap_or(false),
        auto_merge: set
            .get("autoMerge")
            .and_then(Value::as_bool)
            .unwrap_or(true),
        migration_bytes_per_sec: u64_at(set, "migrationBytesPerSec", sp)?,
        migration_overhead_ms: u64_at(set, "migrationOverheadMs", sp)?,
        resharding: resharding_params(set),
        orphan_cleanup_delay_secs: None,
        balancer_migrations_throttling_ms: None,
    };
    let mut shards = Vec::new();
    for (i, sh) in array_at(frame, "shards", p)?.iter().enumerate() {
        let sp = format!("{p}shards[{i}].");
        let mut shard = Shard::new(str_at(sh, "id", &sp)?);
        shard.zones = strings_at(sh, "zones", &sp)?.into_iter().collect();
        shard.draining = bool_at(sh, "draining", &sp)?;
        shards.push(ShardState {
            shard,
            capacity: f64_at(sh, "capacity", &sp)?,
            removed: sh.get("removed").and_then(Value::as_bool).unwrap_or(false),
            unlisted: sh.get("unlisted").and_then(Value::as_bool).unwrap_or(false),
        });
    }
    super::keyframe_sanity::shards(&shards)?;
    let mut cluster = Cluster {
        version,
        before_6_0_3: frame.get("serverVersionBefore603").and_then(Value::as_bool) == Some(true),
        shards,
        settings,
        databases: std::collections::BTreeMap::default(),
        collections: Vec::new(),
        pending_zones: Vec::new(),
        now_ms,
        balancer: BalancerState::default(),
        next_migration_id: 1,
        failed_actions: Vec::new(),
        poll_notes: Vec::new(),
    };
    for (i, db) in array_at(frame, "databases", p)?.iter().enumerate() {
        let dp = format!("{p}databases[{i}].");
        let primary = shard_of(
            &cluster,
            str_at(db, "primary", &dp)?,
            &format!("{dp}primary"),
        )?;
        cluster
            .databases
            .insert(str_at(db, "name", &dp)?.to_string(), primary);
    }
    cluster.collections = collections(&cluster)?;
    super::keyframe_sanity::collections(&cluster)?;
    cluster.collections.sort_by(|a, b| a.ns.cmp(&b.ns));
    if let Some(pending) = frame.get("pendingZones") {
        let list = pending
            .as_array()
            .ok_or_else(|| format!("field `{p}pendingZones`: expected an array"))?;
        for (i, r) in list.iter().enumerate() {
            let rp = format!("{p}pendingZones[{i}].");
            let doc = |name: &str| {
                super::event_codec::document_at(r, name).map_err(|e| format!("{rp}: {e}"))
            };
            cluster
                .pending_zones
                .push(crate::cluster::zones::PendingZoneRange {
                    ns: str_at(r, "ns", &rp)?.to_string(),
                    min: doc("min")?,
                    max: doc("max")?,
                    zone: str_at(r, "zone", &rp)?.to_string(),
                });
        }
    }
    cluster.failed_actions = failed_actions_of(frame)?;
    cluster.poll_notes = observed::decode_notes(frame, p)?;
    let bal = field(frame, "balancer", p)?;
    let (balancer, next_id) = balancer_of(&cluster, bal, "keyframe.balancer.")?;
    cluster.balancer = balancer;
    cluster.next_migration_id = next_id;
    diagnosed::decode(frame, p, &mut cluster)?;
    Ok(cluster)
}

/// A keyframe's `failedActions` (none in traces written before they were kept).
fn failed_actions_of(frame: &Value) -> Res<Vec<crate::cluster::failed_actions::FailedAction>> {
    let Some(list) = frame.get("failedActions") else {
        return Ok(Vec::new());
    };
    let list = list
        .as_array()
        .ok_or("field `keyframe.failedActions`: expected an array")?;
    let mut out = Vec::new();
    for (i, f) in list.iter().enumerate() {
        let fp = format!("keyframe.failedActions[{i}].");
        out.push(crate::cluster::failed_actions::FailedAction {
            path: str_at(f, "path", &fp)?.to_string(),
            command: str_at(f, "command", &fp)?.to_string(),
            at_ms: ms_of_seconds(f64_at(f, "t", &fp)?),
            error: super::event_codec::error_of(f).map_err(|e| format!("{fp}{e}"))?,
        });
    }
    Ok(out)
}

/// `"HH:MM"`, as `config.settings`' balancer document writes `activeWindow`'s bounds.
fn hh_mm(minute: u32) -> String {
    format!("{:02}:{:02}", minute / 60, minute % 60)
}

/// The balancing window of a keyframe's settings (1.1; absent or null: none).
fn active_window_of(set: &Value) -> Res<Option<crate::cluster::ActiveWindow>> {
    let w = match set.get("activeWindow") {
        None | Some(Value::Null) => return Ok(None),
        Some(w) => w,
    };
    let p = "keyframe.settings.activeWindow.";
    let minute = |name: &str| -> Res<u32> {
        let text = str_at(w, name, p)?;
        text.split_once(':')
            .and_then(|(h, m)| Some((h.parse::<u32>().ok()?, m.parse::<u32>().ok()?)))
            .filter(|&(h, m)| h < 24 && m < 60)
            .map(|(h, m)| h * 60 + m)
            .ok_or_else(|| format!("field `{p}{name}`: {text:?} is not \"HH:MM\""))
    };
    Ok(Some(crate::cluster::ActiveWindow {
        start_minute: minute("start")?,
        stop_minute: minute("stop")?,
    }))
}

/// The resharding parameters of a keyframe's settings (MongoDB's defaults in older traces).
fn resharding_params(set: &Value) -> ReshardingParams {
    let mut p = ReshardingParams::default();
    let ms = |name: &str| set.get(name).and_then(Value::as_u64);
    if let Some(v) = ms("reshardingMinimumOperationDurationMillis") {
        p.minimum_operation_duration_ms = v;
    }
    if let Some(v) = ms("reshardingCriticalSectionTimeoutMillis") {
        p.critical_section_timeout_ms = v;
    }
    p
}

pub(super) fn shard_of(cluster: &Cluster, id: &str, path: &str) -> Res<ShardIdx> {
    cluster
        .shard_index(id)
        .ok_or_else(|| format!("field `{path}`: unknown shard {id:?}"))
}

fn balancer_of(cluster: &Cluster, b: &Value, p: &str) -> Res<(BalancerState, u64)> {
    let round = match field(b, "round", p)? {
        Value::Null => None,
        r => {
            let rp = format!("{p}round.");
            Some(RoundInProgress {
                number: u64_at(r, "number", &rp)?,
                started_ms: u64_at(r, "startedMs", &rp)?,
                candidates: u64_at(r, "candidates", &rp)? as usize,
                migration_ids: array_at(r, "migrationIds", &rp)?
                    .iter()
                    .filter_map(Value::as_u64)
                    .collect(),
                moved: u64_at(r, "moved", &rp)? as usize,
                failed: u64_at(r, "failed", &rp)? as usize,
            })
        }
    };
    let mut in_flight = Vec::new();
    for (i, m) in array_at(b, "inFlight", p)?.iter().enumerate() {
        let mp = format!("{p}inFlight[{i}].");
        let end = match field(m, "end", &mp)? {
            Value::Null => None,
            e => Some(key_of(e, &format!("{mp}end"))?),
        };
        in_flight.push(Migration {
            id: u64_at(m, "id", &mp)?,
            ns: str_at(m, "ns", &mp)?.to_string(),
            min: key_at(m, "min", &mp)?,
            end,
            max: key_at(m, "max", &mp)?,
            from: shard_of(cluster, str_at(m, "from", &mp)?, &format!("{mp}from"))?,
            to: shard_of(cluster, str_at(m, "to", &mp)?, &format!("{mp}to"))?,
            started_ms: u64_at(m, "startedMs", &mp)?,
            finish_ms: u64_at(m, "finishMs", &mp)?,
            bytes: m.get("bytes").and_then(Value::as_u64),
            bytes_estimated: m
                .get("bytesEstimated")
                .and_then(Value::as_bool)
                .unwrap_or(false),
            reason: super::event_codec::reason_of(str_at(m, "reason", &mp)?),
        });
    }
    let mut state = BalancerState {
        rounds: u64_at(b, "rounds", p)?,
        next_round_ms: u64_at(b, "nextRoundMs", p)?,
        round,
        in_flight,
        completed: u64_at(b, "completed", p)?,
        failed: u64_at(b, "failed", p)?,
        completed_from: None,
        why_not: strings_at(b, "whyNot", p)?,
        window_now: None,
        drains: Vec::new(),
        compliance: std::collections::BTreeMap::new(),
        outcomes: crate::cluster::balancer::outcomes::Outcomes::default(),
    };
    observed::decode_balancer(b, p, &mut state)?;
    diagnosed::decode_compliance(b, p, &mut state)?;
    Ok((state, u64_at(b, "nextMigrationId", p)?))
}
