//! Keyframe fields of what a live cluster's poll observed and the view shows (format 1.1): a
//! collection's fields (`observed/collection_fields.rs`), the balancer's (`observed/balancer_fields.rs`)
//! and the poll's notes (`pollNotes`, here). Each is written only when it says something (absent:
//! empty, none, or migrations permitted), so a simulator's trace is as before and an older trace
//! reads as before.
//!
//! Owns: these fields' JSON, both ways. May not touch: the rest of a keyframe (`state_codec`).

use serde_json::{Value, json};

use crate::cluster::Cluster;
use crate::trace::json::{Res, array_at, str_at};

mod balancer_fields;
mod collection_fields;

pub(super) use balancer_fields::{decode_balancer, encode_balancer};
pub(super) use collection_fields::{decode_collection, encode_collection};

/// The panes a refused read can feed, by the names `cluster::privileges::Feeds::as_str` gives
/// them (a test in `source::replay` keeps the two lists equal).
pub const POLL_NOTE_FEEDS: [&str; 5] = ["everything", "shards", "balancer", "events", "heat"];

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

/// An optional number: absent or null is `None`, anything else but a whole number an error.
pub(super) fn opt_u64(v: &Value, name: &str, p: &str) -> Res<Option<u64>> {
    match v.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(n) => n
            .as_u64()
            .map(Some)
            .ok_or_else(|| format!("field `{p}{name}`: expected a whole number or null")),
    }
}

/// An optional string: absent or null is `None`.
pub(super) fn opt_str(v: &Value, name: &str, p: &str) -> Res<Option<String>> {
    match v.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(s) => s
            .as_str()
            .map(|s| Some(s.to_string()))
            .ok_or_else(|| format!("field `{p}{name}`: expected a string or null")),
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
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

    pub(super) fn round_trip(c: &Cluster) -> Cluster {
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
