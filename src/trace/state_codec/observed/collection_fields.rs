//! A collection's observed keyframe fields: `inconsistencies`, `invalidSizes`,
//! `reshardingProgress`, `timeseries` and `balancing.permitMigrations`.
//!
//! Owns: these fields' JSON, both ways. May not touch: the rest of a collection's entry
//! (`state_codec::collection`).

use serde_json::{Value, json};

use super::{opt_str, opt_u64};
use crate::cluster::resharding::{RecipientProgress, ReshardingProgress};
use crate::cluster::{Cluster, Collection, Inconsistency};
use crate::trace::json::{Res, array_at, str_at, strings_at};

/// Adds a collection's observed fields to its keyframe entry `out`.
pub(in crate::trace::state_codec) fn encode_collection(
    c: &Cluster,
    coll: &Collection,
    out: &mut Value,
) {
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
pub(in crate::trace::state_codec) fn decode_collection(
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
            coll.invalid_sizes
                .push(crate::trace::state_codec::shard_of(cluster, id, &at)?);
        }
    }
    if let Some(r) = v.get("reshardingProgress") {
        coll.resharding_progress = Some(progress_of(r, &format!("{p}reshardingProgress."))?);
    }
    Ok(())
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

#[cfg(test)]
mod tests {
    use super::super::tests::{cluster, round_trip};
    use super::*;
    use crate::model::ShardIdx;
    use crate::trace::state_codec::encode;

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
}
