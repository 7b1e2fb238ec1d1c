//! The JSON summary's `resharding` of a live cluster's collection: the progress its `$currentOp`
//! reports, in the server's field names, `null` where the server did not say.
//!
//! Owns: that JSON. May not touch: anything else of the summary.

use serde_json::{Value, json};

use super::resharding::ReshardingProgress;

pub(super) fn progress(p: &ReshardingProgress) -> Value {
    let recipients: Vec<Value> = p
        .recipients
        .iter()
        .map(|r| {
            json!({
                "shard": r.shard,
                "recipientState": r.state,
                "documentsCopied": r.documents_copied,
                "approxDocumentsToCopy": r.approx_documents_to_copy,
                "bytesCopied": r.bytes_copied,
                "approxBytesToCopy": r.approx_bytes_to_copy,
                "remainingOperationTimeEstimatedSecs": r.remaining_secs,
            })
        })
        .collect();
    let key = p
        .key
        .as_deref()
        .and_then(|k| serde_json::from_str::<Value>(k).ok());
    json!({
        "key": key,
        "provenance": p.provenance,
        "coordinatorState": p.coordinator_state,
        "phase": p.phase(),
        "bytesCopied": p.bytes().map(|b| b.0),
        "approxBytesToCopy": p.bytes().map(|b| b.1),
        "documentsCopied": p.documents().map(|d| d.0),
        "approxDocumentsToCopy": p.documents().map(|d| d.1),
        "remainingOperationTimeEstimatedSecs": p.remaining_secs(),
        "totalOperationTimeElapsedSecs": p.elapsed_secs,
        "recipients": recipients,
    })
}
