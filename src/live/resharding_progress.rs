//! Reshardings in flight on a live cluster (5.0+: `reshardCollection`; 8.0: also
//! `moveCollection` and `unshardCollection`), from `$currentOp` through the mongos: the
//! coordinator's entry and each recipient's (`recipientState`, `documentsCopied` of
//! `approxDocumentsToCopy`, `bytesCopied` of `approxBytesToCopy`,
//! `remainingOperationTimeEstimatedSecs`), as MongoDB's "Monitor the resharding operation"
//! filters them (`type: "op"`, `originatingCommand.reshardCollection`).
//!
//! Owns: that read and its parsing into each collection's `resharding_progress`. May not touch:
//! the routing refresh, the migrations in flight (`balancer_status`), any command outside the
//! client's allowlist (`aggregate` is on it; `$currentOp` needs `inprog`, as for migrations).

use bson::{Bson, Document, doc};

use super::client::{LiveClient, LiveError};
use super::refusals::Refusals;
use crate::cluster::resharding::{RecipientProgress, ReshardingProgress};
use crate::cluster::{Cluster, ServerVersion};

/// The resharding entries of `$currentOp` (every role, every shard) from 5.0, where
/// `reshardCollection` arrived. A refusal is noted; any other failure shows no progress.
pub(super) async fn read(
    client: &LiveClient,
    version: ServerVersion,
    refused: &mut Refusals,
) -> Result<Vec<Document>, LiveError> {
    if version < ServerVersion::V5_0 {
        return Ok(Vec::new());
    }
    let read = entries(client).await;
    refused.optional(read, &super::privileges::current_op())
}

async fn entries(client: &LiveClient) -> Result<Vec<Document>, LiveError> {
    let cmd = doc! {"aggregate": 1, "pipeline": [
        {"$currentOp": {"allUsers": true, "localOps": false}},
        {"$match": {"type": "op", "originatingCommand.reshardCollection": {"$exists": true}}},
    ], "cursor": {}};
    match client.drain("admin", cmd).await {
        Err(e) if e.unauthorized => Err(e),
        other => Ok(other.unwrap_or_default()),
    }
}

/// A count as the server reports it (an int or a long); a negative one (`-1`: not estimated
/// yet) or one of another type is unknown.
fn count(d: &Document, key: &str) -> Option<u64> {
    match d.get(key)? {
        Bson::Int32(n) => u64::try_from(*n).ok(),
        Bson::Int64(n) => u64::try_from(*n).ok(),
        Bson::Double(n) if n.is_finite() && *n >= 0.0 => Some(*n as u64),
        _ => None,
    }
}

/// The progress of each resharding, by the collection it reshards (`ns`).
pub fn progress(entries: &[Document]) -> Vec<(String, ReshardingProgress)> {
    let mut out: Vec<(String, ReshardingProgress)> = Vec::new();
    for e in entries {
        let Ok(ns) = e.get_str("ns") else { continue };
        let at = if let Some(i) = out.iter().position(|(n, _)| n == ns) {
            i
        } else {
            out.push((ns.to_string(), ReshardingProgress::default()));
            out.len() - 1
        };
        let p = &mut out[at].1;
        if let Ok(cmd) = e.get_document("originatingCommand")
            && let Ok(key) = cmd.get_document("key")
        {
            p.key = Some(
                Bson::Document(key.clone())
                    .into_relaxed_extjson()
                    .to_string(),
            );
        }
        if let Ok(provenance) = e.get_str("provenance") {
            p.provenance = Some(provenance.to_string());
        }
        if let Some(s) = count(e, "totalOperationTimeElapsedSecs") {
            p.elapsed_secs = Some(p.elapsed_secs.map_or(s, |t| t.max(s)));
        }
        if let Ok(state) = e.get_str("coordinatorState") {
            p.coordinator_state = Some(state.to_string());
            p.highest_remaining_secs =
                count(e, "allShardsHighestRemainingOperationTimeEstimatedSecs");
        }
        if let Ok(state) = e.get_str("recipientState") {
            p.recipients.push(RecipientProgress {
                shard: e.get_str("shard").unwrap_or("?").to_string(),
                state: state.to_string(),
                documents_copied: count(e, "documentsCopied"),
                approx_documents_to_copy: count(e, "approxDocumentsToCopy"),
                bytes_copied: count(e, "bytesCopied"),
                approx_bytes_to_copy: count(e, "approxBytesToCopy"),
                remaining_secs: count(e, "remainingOperationTimeEstimatedSecs"),
            });
        }
    }
    for (_, p) in &mut out {
        p.recipients.sort_by(|a, b| a.shard.cmp(&b.shard));
    }
    out
}

/// Gives each collection the progress of its resharding (none when none is in flight).
pub(super) fn attach(cluster: &mut Cluster, entries: &[Document]) {
    let mut found = progress(entries);
    for c in &mut cluster.collections {
        c.resharding_progress = found
            .iter()
            .position(|(ns, _)| *ns == c.ns)
            .map(|i| found.swap_remove(i).1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The recipient entry of MongoDB's documentation (`$currentOp`, "resharding" output,
    /// `reference/operator/aggregation/currentOp`), its placeholders given values.
    fn recipient(shard: &str, state: &str, copied: i64, to_copy: i64, left: i64) -> Document {
        doc! {
            "shard": shard,
            "type": "op",
            "desc": "ReshardingMetricsRecipientService 2d0b2e5c-1a0e-4a55-9a59-4d6c3b6f1d3e",
            "op": "command",
            "ns": "shop.orders",
            "originatingCommand": {
                "reshardCollection": "shop.orders",
                "key": {"customerId": 1, "placedAt": 1},
                "unique": "false",
                "collation": {"locale": "simple"},
            },
            "totalOperationTimeElapsedSecs": 120_i64,
            "recipientState": state,
            "remainingOperationTimeEstimatedSecs": left,
            "approxDocumentsToCopy": to_copy / 100,
            "approxBytesToCopy": to_copy,
            "bytesCopied": copied,
            "countWritesToStashCollections": 0_i64,
            "documentsCopied": copied / 100,
            "provenance": "reshardCollection",
        }
    }

    #[test]
    fn recipients_add_up_and_the_slowest_sets_the_estimate() {
        let entries = vec![
            recipient("sh2", "cloning", 300, 1000, 90),
            recipient("sh1", "applying", 1000, 1000, 30),
            doc! {"type": "op", "ns": "shop.orders", "shard": "config",
            "originatingCommand": {"reshardCollection": "shop.orders"},
            "coordinatorState": "cloning"},
        ];
        let got = progress(&entries);
        assert_eq!(got.len(), 1);
        let (ns, p) = &got[0];
        assert_eq!(ns, "shop.orders");
        assert_eq!(p.phase().as_deref(), Some("applying, cloning"));
        assert_eq!(p.bytes(), Some((1300, 2000)));
        assert_eq!(p.documents(), Some((13, 20)));
        assert_eq!(p.remaining_secs(), Some(90));
        assert_eq!(p.coordinator_state.as_deref(), Some("cloning"));
        assert_eq!(p.key.as_deref(), Some(r#"{"customerId":1,"placedAt":1}"#));
    }

    #[test]
    fn a_fresh_resharding_has_no_estimate_yet() {
        // "When a new resharding operation starts, it returns -1."
        let got = progress(&[recipient("sh1", "cloning", 0, 1000, -1)]);
        assert_eq!(got[0].1.remaining_secs(), None);
        let mut missing = recipient("sh1", "cloning", 0, 1000, 5);
        missing.remove("approxBytesToCopy");
        assert_eq!(progress(&[missing])[0].1.bytes(), None, "not invented");
    }
}
