//! Retryable writes outside transactions: per session, the latest `txnNumber` a retryable write
//! used and the reply it got, so that the same `lsid` + `txnNumber` replayed is answered with the
//! first reply instead of running again (`db/transaction/transaction_participant.cpp`,
//! `beginOrContinue` and `_beginOrContinueRetryableWrite`; the retryable-writes docs: "the server
//! … returns the result of the first execution"). Data only: `dispatch::retryable` decides.
//!
//! Simplification (docs/fidelity.md): a server keeps each statement's result (by `stmtId`) in
//! `config.transactions` and the oplog; here the whole first reply is kept, one per session, for
//! as long as `serve` runs.

use std::collections::HashMap;

use bson::Document;

/// The latest retryable write of one session.
#[derive(Clone, Debug)]
pub struct Executed {
    pub txn_number: i64,
    /// Its reply (`ok: 1`); `None` while it runs or when it failed as a whole (nothing kept).
    pub reply: Option<Document>,
}

/// Every session's latest retryable write, by session id.
#[derive(Debug, Default)]
pub struct RetryableWrites {
    by_session: HashMap<Vec<u8>, Executed>,
}

impl RetryableWrites {
    pub fn get(&self, lsid: &[u8]) -> Option<&Executed> {
        self.by_session.get(lsid)
    }

    /// Records that session `lsid` ran retryable write `txn_number`, answered `reply`.
    pub fn record(&mut self, lsid: &[u8], txn_number: i64, reply: Option<Document>) {
        self.by_session
            .insert(lsid.to_vec(), Executed { txn_number, reply });
    }
}
