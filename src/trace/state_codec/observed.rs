//! Keyframe fields of what a live cluster's poll observed and the view shows (format 1.1): a
//! collection's `inconsistencies`, `invalidSizes`, `reshardingProgress` and
//! `balancing.permitMigrations`, and the balancer's `drains` and `windowNow`. Each is written only
//! when it says something (absent: empty, none, or migrations permitted), so a simulator's trace
//! is as before and an older trace reads as before.
//!
//! Owns: these fields' JSON, both ways. May not touch: the rest of a keyframe (`state_codec`).

use serde_json::{Value, json};

/// The panes a refused read can feed, by the names `cluster::privileges::Feeds::as_str` gives
/// them (a test in `source::replay` keeps the two lists equal).
pub const POLL_NOTE_FEEDS: [&str; 5] = ["everything", "shards", "balancer", "events", "heat"];

use crate::cluster::balancer::{BalancerState, MovedFrom};
use crate::cluster::balancing_window::WindowNow;
use crate::cluster::drain::{DrainSource, DrainStatus};
use crate::cluster::resharding::{RecipientProgress, ReshardingProgress};
use crate::cluster::{Cluster, Collection, Inconsistency};
use crate::trace::json::{Res, array_at, bool_at, str_at, strings_at, u64_at};

/// Adds a collection's observed fields to its keyframe entry `out`.
pub(super) fn encode_collection(c: &Cluster, coll: &Collection, out: &mut Value) {
    if coll.timeseries {
        out["timeseries"] = json!(true);
    }
    if coll.balancing.migrations_blocked {
        out["balancing"]["permitMigrations"] = json!(false);
    }
    if !coll.inconsistencies.is_empty() {
        out["inconsistencies"] = coll
            .inconsistencies
            .iter()
            .map(|i| json!({"type": i.kind, "description": i.description}))
            .collect();
    }
    if !coll.invalid_sizes.is_empty() {
        out["invalidSizes"] = coll
            .invalid_sizes
            .iter()
            .map(|s| json!(c.shard_id(*s)))
            .collect();
    }
    if let Some(r) = &coll.resharding_progress {
        out["reshardingProgress"] = json!({
            "key": r.key, "provenance": r.provenance, "coordinatorState": r.coordinator_state,
            "highestRemainingSecs": r.highest_remaining_secs, "elapsedSecs": r.elapsed_secs,
            "recipients": r.recipients.iter().map(|x| json!({
                "shard": x.shard, "state": x.state, "documentsCopied": x.documents_copied,
                "approxDocumentsToCopy": x.approx_documents_to_copy, "bytesCopied": x.bytes_copied,
                "approxBytesToCopy": x.approx_bytes_to_copy, "remainingSecs": x.remaining_secs,
            })).collect::<Vec<_>>(),
        });
    }
}

/// Reads a keyframe collection's observed fields into `coll` (absent: none).
pub(super) fn decode_collection(
    cluster: &Cluster,
    v: &Value,
    p: &str,
    coll: &mut Collection,
) -> Res<()> {
    coll.balancing.migrations_blocked = v
        .get("balancing")
        .and_then(|b| b.get("permitMigrations"))
        .and_then(Value::as_bool)
        == Some(false);
    if v.get("inconsistencies").is_some() {
        for (i, x) in array_at(v, "inconsistencies", p)?.iter().enumerate() {
            let xp = format!("{p}inconsistencies[{i}].");
            coll.inconsistencies.push(Inconsistency {
                kind: str_at(x, "type", &xp)?.to_string(),
                description: str_at(x, "description", &xp)?.to_string(),
            });
        }
    }
    if v.get("invalidSizes").is_some() {
        for (i, id) in strings_at(v, "invalidSizes", p)?.iter().enumerate() {
            let at = format!("{p}invalidSizes[{i}]");
            coll.invalid_sizes.push(super::shard_of(cluster, id, &at)?);
        }
    }
    if let Some(r) = v.get("reshardingProgress") {
        coll.resharding_progress = Some(progress_of(r, &format!("{p}reshardingProgress."))?);
    }
    Ok(())
}

/// An optional number: absent or null is `None`, anything else but a whole number an error.
fn opt_u64(v: &Value, name: &str, p: &str) -> Res<Option<u64>> {
    match v.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(n) => n
            .as_u64()
            .map(Some)
            .ok_or_else(|| format!("field `{p}{name}`: expected a whole number or null")),
    }
}

/// An optional string: absent or null is `None`.
fn opt_str(v: &Value, name: &str, p: &str) -> Res<Option<String>> {
    match v.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(s) => s
            .as_str()
            .map(|s| Some(s.to_string()))
            .ok_or_else(|| format!("field `{p}{name}`: expected a string or null")),
    }
}

fn progress_of(r: &Value, p: &str) -> Res<ReshardingProgress> {
    let mut recipients = Vec::new();
    for (i, x) in array_at(r, "recipients", p)?.iter().enumerate() {
        let xp = format!("{p}recipients[{i}].");
        recipients.push(RecipientProgress {
            shard: str_at(x, "shard", &xp)?.to_string(),
            state: str_at(x, "state", &xp)?.to_string(),
            documents_copied: opt_u64(x, "documentsCopied", &xp)?,
            approx_documents_to_copy: opt_u64(x, "approxDocumentsToCopy", &xp)?,
            bytes_copied: opt_u64(x, "bytesCopied", &xp)?,
            approx_bytes_to_copy: opt_u64(x, "approxBytesToCopy", &xp)?,
            remaining_secs: opt_u64(x, "remainingSecs", &xp)?,
        });
    }
    Ok(ReshardingProgress {
        key: opt_str(r, "key", p)?,
        provenance: opt_str(r, "provenance", p)?,
        coordinator_state: opt_str(r, "coordinatorState", p)?,
        highest_remaining_secs: opt_u64(r, "highestRemainingSecs", p)?,
        elapsed_secs: opt_u64(r, "elapsedSecs", p)?,
        recipients,
    })
}

/// Adds a live poll's notes to the keyframe object `out` (`pollNotes`, absent when none).
pub(super) fn encode_notes(c: &Cluster, out: &mut Value) {
    if !c.poll_notes.is_empty() {
        out["pollNotes"] = (c.poll_notes.iter())
            .map(|(feeds, text)| json!({"feeds": feeds, "text": text}))
            .collect();
    }
}

/// A keyframe's `pollNotes` (absent: none); `p` is the keyframe's path.
pub(super) fn decode_notes(frame: &Value, p: &str) -> Res<Vec<(String, String)>> {
    if frame.get("pollNotes").is_none() {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    for (i, n) in array_at(frame, "pollNotes", p)?.iter().enumerate() {
        let np = format!("{p}pollNotes[{i}].");
        let feeds = str_at(n, "feeds", &np)?;
        if !POLL_NOTE_FEEDS.contains(&feeds) {
            return Err(format!(
                "field `{np}feeds`: unknown pane {feeds:?} (shards, balancer, events, heat, everything)"
            ));
        }
        out.push((feeds.to_string(), str_at(n, "text", &np)?.to_string()));
    }
    Ok(out)
}

/// Adds the balancer's observed fields to its keyframe object `out`.
pub(super) fn encode_balancer(b: &BalancerState, out: &mut Value) {
    if let Some(from) = b.completed_from {
        out["completedFrom"] = json!(from.as_str());
    }
    if !b.drains.is_empty() {
        out["drains"] = b
            .drains
            .iter()
            .map(|d| {
                json!({
                    "shard": d.shard, "source": d.source.as_str(), "state": d.state,
                    "chunks": d.chunks, "jumboChunks": d.jumbo_chunks, "dbsToMove": d.dbs_to_move,
                    "collectionsToMove": d.collections_to_move, "truncated": d.truncated,
                    "etaSecs": d.eta_secs, "rateOverSecs": d.rate_over_secs,
                })
            })
            .collect();
    }
    if let Some(w) = &b.window_now {
        out["windowNow"] = json!({
            "open": w.open,
            "utcOffsetMinutes": w.utc_offset_minutes.map(|(min, max)| json!({"min": min, "max": max})),
            "rounds": w.rounds,
        });
    }
}

/// Reads the balancer's observed fields into `state` (absent: none).
pub(super) fn decode_balancer(b: &Value, p: &str, state: &mut BalancerState) -> Res<()> {
    if let Some(from) = b.get("completedFrom") {
        let text = from.as_str().unwrap_or_default();
        state.completed_from = Some(MovedFrom::parse(text).ok_or_else(|| {
            format!("field `{p}completedFrom`: expected \"changelog\" or \"actionlog\"")
        })?);
    }
    if b.get("drains").is_some() {
        for (i, d) in array_at(b, "drains", p)?.iter().enumerate() {
            let dp = format!("{p}drains[{i}].");
            let source = match str_at(d, "source", &dp)? {
                "shardDrainingStatus" => DrainSource::Reported,
                "derived" => DrainSource::Derived,
                other => return Err(format!("field `{dp}source`: unknown source {other:?}")),
            };
            state.drains.push(DrainStatus {
                shard: str_at(d, "shard", &dp)?.to_string(),
                source,
                state: opt_str(d, "state", &dp)?,
                chunks: u64_at(d, "chunks", &dp)?,
                jumbo_chunks: u64_at(d, "jumboChunks", &dp)?,
                dbs_to_move: strings_at(d, "dbsToMove", &dp)?,
                collections_to_move: strings_at(d, "collectionsToMove", &dp)?,
                truncated: bool_at(d, "truncated", &dp)?,
                eta_secs: opt_u64(d, "etaSecs", &dp)?,
                rate_over_secs: u64_at(d, "rateOverSecs", &dp)?,
            });
        }
    }
    if let Some(w) = b.get("windowNow") {
        let wp = format!("{p}windowNow.");
        let open = match w.get("open") {
            None | Some(Value::Null) => None,
            Some(o) => Some(
                o.as_bool()
                    .ok_or_else(|| format!("field `{wp}open`: expected true, false or null"))?,
            ),
        };
        let offset = |o: &Value, name: &str| -> Res<i32> {
            o.get(name)
                .and_then(Value::as_i64)
                .and_then(|n| i32::try_from(n).ok())
                .ok_or_else(|| format!("field `{wp}utcOffsetMinutes.{name}`: expected minutes"))
        };
        let utc_offset_minutes = match w.get("utcOffsetMinutes") {
            None | Some(Value::Null) => None,
            Some(o) => Some((offset(o, "min")?, offset(o, "max")?)),
        };
        state.window_now = Some(WindowNow {
            open,
            utc_offset_minutes,
            rounds: u64_at(w, "rounds", &wp)? as usize,
        });
    }
    Ok(())
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::model::ShardIdx;
    use crate::trace::state_codec::{decode, encode};

    /// A small cluster to hang the observed fields on: two shards, one collection.
    pub(in crate::trace::state_codec) fn cluster() -> Cluster {
        let chunk = |min: Value, shard: &str| {
            json!({"min": {"_id": min}, "shard": shard, "v": [1, 0], "docs": 0, "bytes": 0,
                "writes": 0, "jumbo": false, "since": 0})
        };
        let shard = |id: &str| json!({"id": id, "capacity": 1.0, "zones": [], "draining": false});
        decode(&json!({"t": 1.0, "keyframe": {
            "serverVersion": "8.0",
            "settings": {"chunkSizeBytes": 134_217_728, "balancer": true,
                "migrationBytesPerSec": 1, "migrationOverheadMs": 1},
            "shards": [shard("shard01"), shard("shard02")],
            "databases": [],
            "balancer": {"rounds": 0, "nextRoundMs": 0, "completed": 0, "failed": 0, "whyNot": [],
                "nextMigrationId": 1, "round": null, "inFlight": []},
            "collections": [{"ns": "db.c", "key": {"_id": 1}, "incarnation": 0,
                "routedWrites": [0, 0], "indexes": [], "zones": [], "window": [],
                "resharding": null, "balancing": {"noBalance": false},
                "chunks": [chunk(json!({"$minKey": 1}), "shard01"), chunk(json!(0), "shard02")]}],
        }}))
        .expect("a keyframe")
    }

    fn round_trip(c: &Cluster) -> Cluster {
        let line = encode(c);
        let text = serde_json::to_string(&line).expect("json");
        decode(&serde_json::from_str(&text).expect("json")).expect("decode")
    }

    #[test]
    fn a_keyframe_with_nothing_observed_has_none_of_the_fields() {
        let line = encode(&cluster());
        let frame = &line["keyframe"];
        assert!(frame["balancer"].get("drains").is_none());
        assert!(frame["balancer"].get("windowNow").is_none());
        for coll in frame["collections"].as_array().expect("collections") {
            for name in ["inconsistencies", "invalidSizes", "reshardingProgress"] {
                assert!(coll.get(name).is_none(), "{name}");
            }
            assert!(coll["balancing"].get("permitMigrations").is_none());
        }
    }

    #[test]
    fn inconsistencies_round_trip() {
        let mut c = cluster();
        c.collections[0].inconsistencies = vec![Inconsistency {
            kind: "RoutingTableRangeOverlap".into(),
            description: "test.authors: chunks [0, 10) and [5, 20) overlap".into(),
        }];
        let back = round_trip(&c);
        assert_eq!(
            back.collections[0].inconsistencies,
            c.collections[0].inconsistencies
        );
    }

    #[test]
    fn invalid_sizes_round_trip() {
        let mut c = cluster();
        let last = ShardIdx(c.shards.len() as u32 - 1);
        c.collections[0].invalid_sizes = vec![ShardIdx(0), last];
        let back = round_trip(&c);
        assert_eq!(back.collections[0].invalid_sizes, vec![ShardIdx(0), last]);
    }

    #[test]
    fn a_rejected_window_and_a_time_series_round_trip() {
        let mut c = cluster();
        c.settings.window_rejected = Some("hour 24 is not within 0-23".into());
        c.collections[0].timeseries = true;
        let back = round_trip(&c);
        assert_eq!(back.settings.window_rejected, c.settings.window_rejected);
        assert!(back.collections[0].timeseries);
        let plain = round_trip(&cluster());
        assert!(plain.settings.window_rejected.is_none() && !plain.collections[0].timeseries);
    }

    #[test]
    fn permit_migrations_false_round_trips() {
        let mut c = cluster();
        c.collections[0].balancing.migrations_blocked = true;
        let back = round_trip(&c);
        assert!(back.collections[0].balancing.migrations_blocked);
        assert!(
            !round_trip(&cluster()).collections[0]
                .balancing
                .migrations_blocked
        );
    }

    #[test]
    fn resharding_progress_round_trips() {
        let mut c = cluster();
        let progress = ReshardingProgress {
            key: Some("{\"sku\": 1}".into()),
            provenance: Some("moveCollection".into()),
            coordinator_state: Some("cloning".into()),
            highest_remaining_secs: Some(120),
            elapsed_secs: None,
            recipients: vec![
                RecipientProgress {
                    shard: "shard01".into(),
                    state: "cloning".into(),
                    documents_copied: Some(10),
                    approx_documents_to_copy: Some(100),
                    bytes_copied: Some(1_000),
                    approx_bytes_to_copy: None,
                    remaining_secs: None,
                },
                RecipientProgress::default(),
            ],
        };
        c.collections[0].resharding_progress = Some(progress.clone());
        let back = round_trip(&c);
        assert_eq!(back.collections[0].resharding_progress, Some(progress));
    }

    #[test]
    fn drains_round_trip() {
        let mut c = cluster();
        let drains = vec![
            DrainStatus {
                shard: "shard02".into(),
                source: DrainSource::Reported,
                state: Some("ongoing".into()),
                chunks: 12,
                jumbo_chunks: 1,
                dbs_to_move: vec!["shop".into()],
                collections_to_move: vec!["shop.logs".into()],
                truncated: true,
                eta_secs: Some(600),
                rate_over_secs: 30,
            },
            DrainStatus {
                shard: "shard03".into(),
                source: DrainSource::Derived,
                state: None,
                chunks: 0,
                jumbo_chunks: 0,
                dbs_to_move: Vec::new(),
                collections_to_move: Vec::new(),
                truncated: false,
                eta_secs: None,
                rate_over_secs: 0,
            },
        ];
        c.balancer.drains = drains.clone();
        assert_eq!(round_trip(&c).balancer.drains, drains);
    }

    #[test]
    fn window_now_round_trips() {
        let mut c = cluster();
        for w in [
            WindowNow {
                open: Some(true),
                utc_offset_minutes: Some((-300, -240)),
                rounds: 7,
            },
            WindowNow {
                open: None,
                utc_offset_minutes: None,
                rounds: 0,
            },
        ] {
            c.balancer.window_now = Some(w.clone());
            assert_eq!(round_trip(&c).balancer.window_now, Some(w));
        }
    }

    #[test]
    fn poll_notes_round_trip_and_a_bad_pane_names_its_path() {
        let mut c = cluster();
        assert!(encode(&c)["keyframe"].get("pollNotes").is_none());
        c.poll_notes = vec![
            (
                "shards".into(),
                "config.settings chunksize: \"64\" is not…".into(),
            ),
            (
                "events".into(),
                "`find` on config.changelog: the server refused it".into(),
            ),
        ];
        assert_eq!(round_trip(&c).poll_notes, c.poll_notes);
        let mut line = encode(&c);
        line["keyframe"]["pollNotes"][1]["feeds"] = json!("sidebar");
        let e = decode(&line).expect_err("refused");
        assert!(e.contains("keyframe.pollNotes[1].feeds"), "{e}");
    }

    #[test]
    fn completed_from_round_trips() {
        let mut c = cluster();
        assert_eq!(round_trip(&c).balancer.completed_from, None);
        for from in [MovedFrom::Changelog, MovedFrom::Actionlog] {
            c.balancer.completed_from = Some(from);
            assert_eq!(round_trip(&c).balancer.completed_from, Some(from));
        }
        let mut line = encode(&c);
        line["keyframe"]["balancer"]["completedFrom"] = json!("guess");
        let e = decode(&line).expect_err("refused");
        assert!(e.contains("keyframe.balancer.completedFrom"), "{e}");
    }

    #[test]
    fn a_6_0_0_to_6_0_2_server_keeps_its_chunk_count_balancing() {
        use crate::cluster::ServerVersion;
        use crate::cluster::version::BalancingMetric;
        let mut c = cluster();
        c.version = ServerVersion::V6_0;
        assert_eq!(round_trip(&c).balancing_metric(), BalancingMetric::DataSize);
        assert!(
            encode(&c)["keyframe"]
                .get("serverVersionBefore603")
                .is_none()
        );
        c.before_6_0_3 = true;
        let back = round_trip(&c);
        assert!(back.before_6_0_3);
        assert_eq!(back.balancing_metric(), BalancingMetric::ChunkCount);
        // Only the 6.0 line is changed by it: 7.0 evens data size whatever the flag says.
        c.version = ServerVersion::V7_0;
        assert_eq!(c.balancing_metric(), BalancingMetric::DataSize);
    }

    #[test]
    fn a_bad_observed_field_names_its_path() {
        let mut line = encode(&cluster());
        line["keyframe"]["balancer"]["drains"] =
            json!([{"shard": "s", "source": "guess", "chunks": 1}]);
        let e = decode(&line).expect_err("refused");
        assert!(e.contains("keyframe.balancer.drains[0].source"), "{e}");
        let mut line = encode(&cluster());
        line["keyframe"]["collections"][0]["invalidSizes"] = json!(["nope"]);
        let e = decode(&line).expect_err("refused");
        assert!(e.contains("invalidSizes[0]"), "{e}");
    }
}
