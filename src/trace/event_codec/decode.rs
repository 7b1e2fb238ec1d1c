//! Reading event lines back into events, against the state they apply to (shard ids become shard
//! indexes); an error names the field.

use serde_json::Value;

use crate::cluster::ChunkWrites;
use crate::cluster::Cluster;
use crate::cluster::defragmentation::DefragmentationPhase;
use crate::cluster::event::{MigrationRange, MigrationReason, SplitCause};
use crate::cluster::resharding::Provenance;
use crate::cluster::{Event, EventKind, MongoError};
use crate::model::zones::ZoneRange;
use crate::model::{KeyPattern, ShardIdx};
use crate::trace::json::{
    Res, array_at, bool_at, field, key_at, key_of, ms_of_seconds, pattern_at, stats_at, stats_of,
    str_at, strings_at, u64_at,
};

/// Reads an event line against the state it applies to (for shard ids). `None` for a `what` this
/// version does not know (a newer minor version's event: ignored).
#[allow(clippy::too_many_lines)] // one arm per event kind
pub fn decode(v: &Value, state: &Cluster) -> Res<Option<Event>> {
    let at_ms = ms_of_seconds(crate::trace::json::f64_at(v, "t", "")?);
    let what = str_at(v, "what", "")?;
    let shard = |name: &str| shard_at(state, v, name, "");
    let ns = || str_at(v, "ns", "").map(String::from);
    let key = |name: &str| key_at(v, name, "");
    let kind = match what {
        "addShard" => EventKind::ShardAdded {
            shard: ShardIdx(state.shards.len() as u32),
            id: str_at(v, "id", "")?.into(),
        },
        "shardCollection.end" => {
            let layout = array_at(v, "layout", "")?
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    let p = format!("layout[{i}].");
                    let s = shard_at(state, c, "shard", &p)?;
                    Ok((key_at(c, "min", &p)?, s))
                })
                .collect::<Res<Vec<_>>>()?;
            EventKind::CollectionSharded {
                ns: ns()?,
                key: pattern_at(v, "key", "")?,
                chunks: u64_at(v, "chunks", "")? as usize,
                layout,
            }
        }
        "split" | "multi-split" => EventKind::Split {
            ns: ns()?,
            min: key("min")?,
            max: key("max")?,
            points: array_at(v, "points", "")?
                .iter()
                .enumerate()
                .map(|(i, p)| key_of(p, &format!("points[{i}]")))
                .collect::<Res<_>>()?,
            shard: shard("shard")?,
            pieces: array_at(v, "pieces", "")?
                .iter()
                .enumerate()
                .map(|(i, p)| stats_of(p, &format!("pieces[{i}].")))
                .collect::<Res<_>>()?,
            cause: cause(str_at(v, "cause", "")?),
        },
        "split.error" => EventKind::SplitFailed {
            ns: ns()?,
            min: key("min")?,
            max: key("max")?,
            shard: shard("shard")?,
            error: error_of(v)?,
        },
        "merge" => EventKind::Merge {
            ns: ns()?,
            min: key("min")?,
            max: key("max")?,
            shard: shard("shard")?,
            chunks: u64_at(v, "chunks", "")? as usize,
            auto: v
                .get("autoMerger")
                .and_then(Value::as_bool)
                .unwrap_or(false),
        },
        "moveChunk.start" => EventKind::MigrationStarted {
            range: range_of(v, state)?,
            reason: reason_of(str_at(v, "reason", "")?),
            bytes: u64_at(v, "bytes", "")?,
        },
        "moveChunk.commit" => EventKind::MigrationCommitted {
            range: range_of(v, state)?,
            moved: stats_at(v, "moved", "")?,
            millis: u64_at(v, "millis", "")?,
        },
        "moveChunk.error" => EventKind::MigrationFailed {
            range: range_of(v, state)?,
            error: error_of(v)?,
        },
        "markJumbo" => EventKind::JumboMarked {
            ns: ns()?,
            min: key("min")?,
            max: key("max")?,
            shard: shard("shard")?,
        },
        "rangeDeletion" => EventKind::RangeDeleted {
            ns: ns()?,
            min: key("min")?,
            max: key("max")?,
            shard: shard("shard")?,
            docs: u64_at(v, "docs", "")?,
            bytes: u64_at(v, "bytes", "")?,
        },
        "clearJumboFlag" => EventKind::JumboCleared {
            ns: ns()?,
            min: key("min")?,
            max: key("max")?,
            shard: shard("shard")?,
        },
        "balancer.round" => EventKind::BalancerRound {
            round: u64_at(v, "round", "")?,
            candidates: u64_at(v, "candidates", "")? as usize,
            moved: u64_at(v, "moved", "")? as usize,
            failed: u64_at(v, "failed", "")? as usize,
            millis: u64_at(v, "millis", "")?,
            why_not: strings_at(v, "whyNot", "")?,
        },
        "balancer.roundStart" => EventKind::BalancerRoundStarted {
            round: u64_at(v, "round", "")?,
            candidates: u64_at(v, "candidates", "")? as usize,
            why_not: strings_at(v, "whyNot", "")?,
        },
        "balancer.idle" => EventKind::BalancerIdle {
            why_not: strings_at(v, "whyNot", "")?,
        },
        "balancer.start" | "balancer.stop" => EventKind::BalancerSet {
            enabled: bool_at(v, "enabled", "")?,
        },
        "setAutoMerger" => EventKind::AutoMergerSet {
            enabled: bool_at(v, "enabled", "")?,
        },
        "setAttemptToBalanceJumboChunks" => EventKind::AttemptToBalanceJumboChunksSet {
            enabled: bool_at(v, "enabled", "")?,
        },
        "setChunkSize" => EventKind::ChunkSizeSet {
            bytes: u64_at(v, "bytes", "")?,
        },
        "configureCollectionBalancing" => EventKind::CollectionBalancingSet {
            ns: ns()?,
            max_chunk_size_bytes: match v.get("maxChunkSizeBytes") {
                None | Some(Value::Null) => None,
                Some(_) => Some(u64_at(v, "maxChunkSizeBytes", "")?),
            },
            auto_merge: match v.get("enableAutoMerge") {
                None | Some(Value::Null) => None,
                Some(_) => Some(bool_at(v, "enableAutoMerge", "")?),
            },
            no_balance: v.get("noBalance").and_then(Value::as_bool).unwrap_or(false),
            migrations_blocked: v.get("permitMigrations").and_then(Value::as_bool) == Some(false),
        },
        "defragmentationPhase" => EventKind::DefragmentationPhaseSet {
            ns: ns()?,
            phase: match v.get("phase") {
                None | Some(Value::Null) => None,
                Some(_) => {
                    let name = str_at(v, "phase", "")?;
                    Some(DefragmentationPhase::parse(name).ok_or_else(|| {
                        format!("field `phase`: unknown defragmentation phase \"{name}\"")
                    })?)
                }
            },
        },
        "createIndexes" => EventKind::IndexCreated {
            ns: ns()?,
            key: pattern_at(v, "key", "")?,
            unique: bool_at(v, "unique", "")?,
        },
        "refineCollectionShardKey.end" => EventKind::KeyRefined {
            ns: ns()?,
            key: pattern_at(v, "key", "")?,
        },
        "removeShard.start" => EventKind::ShardDraining {
            shard: shard("shard")?,
        },
        "removeShard" => EventKind::ShardRemoved {
            shard: shard("shard")?,
        },
        "stopShardDraining" => EventKind::ShardDrainingStopped {
            shard: shard("shard")?,
        },
        "movePrimary.commit" => EventKind::PrimaryMoved {
            db: str_at(v, "db", "")?.to_string(),
            from: shard("from")?,
            to: shard("to")?,
        },
        "addShardToZone" | "removeShardFromZone" => EventKind::ShardZoneSet {
            shard: shard("shard")?,
            zone: str_at(v, "zone", "")?.to_string(),
            member: what == "addShardToZone",
        },
        "updateZoneKeyRange" if v.get("pending") == Some(&Value::Bool(true)) => {
            EventKind::PendingZoneRangeSet {
                ns: ns()?,
                min: Box::new(document_at(v, "min")?),
                max: Box::new(document_at(v, "max")?),
                zone: zone_of(v)?,
            }
        }
        "updateZoneKeyRange" => EventKind::ZoneRangeSet {
            ns: ns()?,
            min: key("min")?,
            max: key("max")?,
            zone: match field(v, "zone", "")? {
                Value::Null => None,
                z => Some(
                    z.as_str()
                        .ok_or("field `zone`: expected a string or null")?
                        .to_string(),
                ),
            },
        },
        "updateShardKey" => EventKind::ShardKeyUpdated {
            ns: ns()?,
            from: key("oldKey")?,
            to: key("newKey")?,
            bytes: u64_at(v, "bytes", "")?,
        },
        "delete" => EventKind::DocumentDeleted {
            ns: ns()?,
            key: key("key")?,
            bytes: u64_at(v, "bytes", "")?,
        },
        "dropCollection" => EventKind::CollectionDropped { ns: ns()? },
        "dropIndexes" => EventKind::IndexDropped {
            ns: ns()?,
            key: pattern_at(v, "key", "")?,
        },
        "reshardCollection.start" => EventKind::ReshardingStarted {
            ns: ns()?,
            key: pattern_at(v, "key", "")?,
            docs: u64_at(v, "docs", "")?,
            bytes: u64_at(v, "bytes", "")?,
            clone_ms: u64_at(v, "cloneMillis", "")?,
            num_initial_chunks: u64_at(v, "numInitialChunks", "")? as u32,
            provenance: match v.get("provenance").and_then(Value::as_str) {
                None => Provenance::ReshardCollection,
                Some(name) => Provenance::parse(name)
                    .ok_or_else(|| format!("field `provenance`: unknown provenance \"{name}\""))?,
            },
        },
        "reshardCollection.commit" => EventKind::ReshardingCommitted {
            ns: ns()?,
            key: pattern_at(v, "key", "")?,
            layout: array_at(v, "layout", "")?
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    let p = format!("layout[{i}].");
                    let s = shard_at(state, c, "shard", &p)?;
                    let stats = crate::model::ChunkStats::new(
                        u64_at(c, "docs", &p)?,
                        u64_at(c, "bytes", &p)?,
                        0,
                    );
                    Ok((key_at(c, "min", &p)?, s, stats))
                })
                .collect::<Res<_>>()?,
            zones: match v.get("zones") {
                None => Vec::new(),
                Some(_) => array_at(v, "zones", "")?
                    .iter()
                    .enumerate()
                    .map(|(i, z)| {
                        let p = format!("zones[{i}].");
                        Ok(ZoneRange {
                            min: key_at(z, "min", &p)?,
                            max: key_at(z, "max", &p)?,
                            zone: str_at(z, "zone", &p)?.to_string(),
                        })
                    })
                    .collect::<Res<_>>()?,
            },
            unsplittable: v
                .get("unsplittable")
                .and_then(Value::as_bool)
                .unwrap_or(false),
            millis: u64_at(v, "millis", "")?,
            critical_section_ms: u64_at(v, "criticalSectionMillis", "")?,
            blocked_writes: u64_at(v, "blockedWrites", "")?,
        },
        "scheduledAction.failed" => EventKind::ActionFailed {
            path: str_at(v, "path", "")?.to_string(),
            command: str_at(v, "command", "")?.to_string(),
            error: error_of(v)?,
        },
        "reshardCollection.abort" => EventKind::ReshardingAborted {
            ns: ns()?,
            key: pattern_at(v, "key", "")?,
            error: error_of(v)?,
        },
        "writes" => EventKind::Writes {
            ns: ns()?,
            chunks: array_at(v, "chunks", "")?
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    let p = format!("chunks[{i}].");
                    Ok(ChunkWrites {
                        min: key_at(c, "min", &p)?,
                        stats: crate::model::ChunkStats::new(
                            u64_at(c, "docs", &p)?,
                            u64_at(c, "bytes", &p)?,
                            u64_at(c, "writes", &p)?,
                        ),
                        sample: key_at(c, "key", &p)?,
                    })
                })
                .collect::<Res<_>>()?,
        },
        _ => return Ok(None),
    };
    Ok(Some(Event { at_ms, kind }))
}

fn zone_of(v: &Value) -> Res<Option<String>> {
    match field(v, "zone", "")? {
        Value::Null => Ok(None),
        z => Ok(Some(
            z.as_str()
                .ok_or("field `zone`: expected a string or null")?
                .to_string(),
        )),
    }
}

/// A document in Extended JSON (the bounds of a zone range of a namespace not sharded yet).
pub fn document_at(v: &Value, name: &str) -> Res<bson::Document> {
    match bson::Bson::try_from(field(v, name, "")?.clone()) {
        Ok(bson::Bson::Document(d)) => Ok(d),
        _ => Err(format!("field `{name}`: expected a document")),
    }
}

/// The shard whose id is in field `name` of `v` (at `path`), as an index of `state`'s shards.
fn shard_at(state: &Cluster, v: &Value, name: &str, path: &str) -> Res<ShardIdx> {
    let id = str_at(v, name, path)?;
    state
        .shard_index(id)
        .ok_or_else(|| format!("field `{path}{name}`: unknown shard {id:?}"))
}

/// The shared fields of a migration event's line.
fn range_of(v: &Value, state: &Cluster) -> Res<MigrationRange> {
    let shard = |name: &str| shard_at(state, v, name, "");
    Ok(MigrationRange {
        id: u64_at(v, "id", "")?,
        ns: str_at(v, "ns", "")?.to_string(),
        min: key_at(v, "min", "")?,
        max: key_at(v, "max", "")?,
        from: shard("from")?,
        to: shard("to")?,
    })
}

pub(crate) fn error_of(v: &Value) -> Res<MongoError> {
    let e = field(v, "error", "")?;
    let code = u64_at(e, "code", "error.")? as i32;
    let name = str_at(e, "codeName", "error.")?;
    let code_name = KNOWN_CODES
        .iter()
        .find(|n| **n == name)
        .copied()
        .unwrap_or("UnknownError");
    Ok(MongoError {
        code,
        code_name,
        message: str_at(e, "errmsg", "error.")?.to_string(),
    })
}

const KNOWN_CODES: &[&str] = &[
    "BadValue",
    "IllegalOperation",
    "NamespaceNotFound",
    "ShardNotFound",
    "InvalidOptions",
    "CannotCreateIndex",
    "CannotSplit",
    "ConflictingOperationInProgress",
    "NamespaceNotSharded",
    "ChunkTooBig",
    "ZoneNotFound",
    "RangeOverlapConflict",
    "AlreadyInitialized",
    "IndexNotFound",
    "CommandNotFound",
    "ReshardingCriticalSectionTimeout",
    "ReshardCollectionInProgress",
    "ZoneStillInUse",
    "CannotDropShardKeyIndex",
    "OperationFailed",
    "ExceededTimeLimit",
    "NamespaceExists",
    "RemoveShardDrainingInProgress",
    "CommandNotSupported",
    "Location40415",
];

pub fn reason_of(s: &str) -> MigrationReason {
    match s {
        "drain" => MigrationReason::Drain,
        "zoneViolation" => MigrationReason::ZoneViolation,
        "topChunk" => MigrationReason::TopChunk,
        "manual" => MigrationReason::Manual,
        "manualForceJumbo" => MigrationReason::ManualForce,
        "defragmentation" => MigrationReason::Defragmentation,
        "unknown" => MigrationReason::Unknown,
        _ => MigrationReason::ChunksImbalance,
    }
}

fn cause(s: &str) -> SplitCause {
    match s {
        "auto" => SplitCause::Auto,
        "balancer" => SplitCause::Balancer,
        "zone" => SplitCause::Zone,
        _ => SplitCause::Command,
    }
}

/// The pattern of a collection in a state, if known.
pub fn pattern_of<'a>(state: &'a Cluster, ns: &str) -> Option<&'a KeyPattern> {
    state.collection(ns).map(|c| &c.pattern)
}
