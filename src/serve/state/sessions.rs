//! Sessions and multi-document transactions on the documents `serve` keeps, as a mongos and its
//! shards give them to a client (`s/transaction_router.cpp`, `db/transaction/transaction_participant.cpp`,
//! `db/initialize_operation_session_info.cpp`):
//!
//! - a command with `lsid` and `txnNumber` is a retryable write; with `autocommit: false` too it
//!   belongs to the session's transaction, which `startTransaction: true` begins;
//! - a transaction's writes are applied as they come (its own reads see them) and the documents
//!   it wrote are locked: other readers see their versions from before the transaction, another
//!   writer gets WriteConflict (112, `TransientTransactionError`);
//! - its reads see a snapshot: documents others change (or another transaction commits) after
//!   it began keep, for it, the version it would have read then (kept once for every open
//!   transaction, `versions`); writing one of them is a WriteConflict that aborts it;
//! - `commitTransaction` releases the locks and publishes its change events; `abortTransaction`
//!   (or a write error, or a newer transaction on the session) puts every document back;
//! - a transaction open longer than `transactionLifetimeLimitSeconds` (60 s) is aborted, as
//!   mongod's periodic job does (`db/periodic_runner_job_abort_expired_transactions.cpp`,
//!   `TransactionParticipant::abortArbitraryTransactionIfExpired` in
//!   `db/transaction/transaction_participant.cpp`): the session's next command in it gets
//!   NoSuchTransaction;
//! - a write outside a transaction to a document an open transaction holds is not refused: a
//!   server retries a WriteConflict outside a transaction until it succeeds or the operation is
//!   interrupted (`writeConflictRetry`, `db/concurrency/exception_util.h`), so the command is
//!   held until the transaction ends or its `maxTimeMS` passes ([`Sessions::blocked`]).
//!
//! Simplifications (docs/fidelity.md): a write command that blocks after it already wrote some of
//! its documents fails that statement with WriteConflict instead of waiting; the simulator's
//! chunk counts follow the writes at once (an abort writes the old versions back, so the counts
//! return, but the writes count in the heat).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::time::{Duration, Instant};

use bson::{Bson, Document};

use crate::cluster::MongoError;
use crate::model::KeyValue;
use crate::serve::state::change_events::Change;
pub use crate::serve::state::txn_errors::write_conflict;
use crate::serve::state::txn_errors::{invalid, no_such_transaction};
use crate::serve::state::versions::{DocKey, Versions};

/// `transactionLifetimeLimitSeconds`' default (`db/transaction/transaction_participant.idl`).
pub const LIFETIME_DEFAULT_SECS: u64 = 60;

/// A change event held until its transaction commits.
#[derive(Clone, Debug)]
pub struct HeldEvent {
    pub ns: String,
    pub key_paths: Vec<String>,
    pub doc: Document,
    pub change: Change,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TxnState {
    Active,
    Committed,
    Aborted,
}

/// A session's latest transaction.
#[derive(Debug)]
pub(super) struct Txn {
    pub(super) number: i64,
    pub(super) state: TxnState,
    /// When it began, on the clock of [`Versions`]: it reads documents changed since as they
    /// were then.
    pub(super) start: u64,
    /// When it began, on the wall clock (for `transactionLifetimeLimitSeconds`).
    pub(super) began: Instant,
    /// The documents it wrote, in order (each once), for an abort.
    pub(super) written: Vec<DocKey>,
    pub(super) held: Vec<HeldEvent>,
}

/// What the command being answered belongs to.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Current {
    #[default]
    None,
    /// `lsid` and `txnNumber` without `autocommit`: a retryable write.
    Retryable,
    /// A transaction's command, by session id.
    Txn(Vec<u8>),
}

/// Every session's transaction and the locks of the open ones.
#[derive(Debug)]
pub struct Sessions {
    pub(super) txns: HashMap<Vec<u8>, Txn>,
    /// The open transactions by when they began.
    pub(super) open: BTreeSet<(u64, Vec<u8>)>,
    /// Versions the open transactions' snapshots read.
    pub versions: Versions,
    /// Documents written by open transactions: the owner and the version before it.
    pub(super) locks: BTreeMap<DocKey, (Vec<u8>, Option<Document>)>,
    /// `transactionLifetimeLimitSeconds`.
    pub lifetime_secs: u64,
    /// The transaction whose document the command being answered (outside a transaction) met
    /// before it wrote anything: the command waits for it to end.
    pub blocked: Option<Vec<u8>>,
    /// Documents the command being answered wrote.
    pub(super) written_now: u64,
    pub current: Current,
    /// The name of the command being answered.
    pub command: String,
    /// Set while an abort writes documents back (those writes are not the transaction's).
    pub restoring: bool,
}

impl Default for Sessions {
    fn default() -> Self {
        Self {
            txns: HashMap::new(),
            open: BTreeSet::new(),
            versions: Versions::default(),
            locks: BTreeMap::new(),
            lifetime_secs: LIFETIME_DEFAULT_SECS,
            blocked: None,
            written_now: 0,
            current: Current::None,
            command: String::new(),
            restoring: false,
        }
    }
}

/// The session id of `lsid: {id: UUID}`.
pub(crate) fn session_id(cmd: &Document) -> Option<Vec<u8>> {
    match cmd.get_document("lsid").ok()?.get("id")? {
        Bson::Binary(b) => Some(b.bytes.clone()),
        other => Some(other.to_string().into_bytes()),
    }
}

fn txn_number(cmd: &Document) -> Option<i64> {
    match cmd.get("txnNumber")? {
        Bson::Int64(n) => Some(*n),
        Bson::Int32(n) => Some(i64::from(*n)),
        _ => None,
    }
}

impl Sessions {
    /// Reads the session fields of `cmd` (named `name`; `in_transaction`: a transaction may run it,
    /// `db/transaction/transaction_participant.cpp`'s allow list): what it belongs to, a transaction begun
    /// or continued; the server's errors for fields that do not fit. Returns the transactions to
    /// abort first (an older one the new one replaces).
    pub fn begin_command(
        &mut self,
        name: &str,
        cmd: &Document,
        in_transaction: bool,
    ) -> Result<Option<Vec<u8>>, MongoError> {
        self.current = Current::None;
        self.blocked = None;
        self.written_now = 0;
        name.clone_into(&mut self.command);
        let lsid = session_id(cmd);
        let number = txn_number(cmd);
        let autocommit = cmd.get("autocommit");
        let start = cmd.get("startTransaction");
        if number.is_some() && lsid.is_none() {
            return Err(invalid(
                "Transaction number requires a session ID to also be specified",
            ));
        }
        if autocommit.is_some() && number.is_none() {
            return Err(invalid(
                "'autocommit' field requires a transaction number to also be specified",
            ));
        }
        if start.is_some() && autocommit.is_none() {
            return Err(invalid(
                "'startTransaction' field requires 'autocommit' field to also be specified",
            ));
        }
        if matches!(autocommit, Some(Bson::Boolean(true))) {
            return Err(invalid("Specifying autocommit=true is not allowed."));
        }
        if matches!(start, Some(Bson::Boolean(false))) {
            return Err(invalid("Specifying startTransaction=false is not allowed."));
        }
        let (Some(lsid), Some(number)) = (lsid, number) else {
            return Ok(None);
        };
        if number < 0 {
            return Err(invalid("Transaction number cannot be negative"));
        }
        if autocommit.is_none() {
            self.current = Current::Retryable;
            return Ok(None);
        }
        if !in_transaction {
            return Err(MongoError {
                code: 263,
                code_name: "OperationNotSupportedInTransaction",
                message: format!("Cannot run '{name}' in a multi-document transaction."),
            });
        }
        let replaced = self.enter(&lsid, number, start.is_some(), name)?;
        self.current = Current::Txn(lsid);
        Ok(replaced)
    }

    fn enter(
        &mut self,
        lsid: &[u8],
        number: i64,
        start: bool,
        name: &str,
    ) -> Result<Option<Vec<u8>>, MongoError> {
        let existing = self.txns.get(lsid);
        if let Some(t) = existing
            && number < t.number
        {
            return Err(MongoError {
                code: 225,
                code_name: "TransactionTooOld",
                message: format!(
                    "txnNumber {number} is less than last txnNumber {} seen in session",
                    t.number
                ),
            });
        }
        if start {
            if name == "commitTransaction" || name == "abortTransaction" {
                return Err(MongoError {
                    code: 263,
                    code_name: "OperationNotSupportedInTransaction",
                    message: format!(
                        "Cannot start a transaction with a {}",
                        if name == "commitTransaction" {
                            "commit"
                        } else {
                            "abort"
                        }
                    ),
                });
            }
            if existing.is_some_and(|t| t.number == number) {
                return Err(MongoError::conflicting_operation(format!(
                    "txnNumber {number} txnRetryCounter 0 for session already started"
                )));
            }
            let replaced = existing
                .filter(|t| t.state == TxnState::Active)
                .map(|_| lsid.to_vec());
            if replaced.is_none() {
                self.start(lsid, number);
            }
            return Ok(replaced);
        }
        match existing {
            Some(t) if t.number == number => match t.state {
                TxnState::Active => Ok(None),
                TxnState::Committed if name == "commitTransaction" => Ok(None),
                TxnState::Committed => Err(MongoError {
                    code: 256,
                    code_name: "TransactionCommitted",
                    message: format!(
                        "Transaction with {{ txnNumber: {number} }} has been committed."
                    ),
                }),
                TxnState::Aborted => Err(no_such_transaction(format!(
                    "Transaction with {{ txnNumber: {number} }} has been aborted."
                ))),
            },
            _ => Err(no_such_transaction(format!(
                "cannot continue txnId {} for session with txnRetryCounter 0",
                existing.map_or(-1, |t| t.number)
            ))),
        }
    }

    /// Begins transaction `number` on session `lsid` (after any older one was aborted).
    pub fn start(&mut self, lsid: &[u8], number: i64) {
        let start = self.versions.now();
        let before = self.txns.insert(
            lsid.to_vec(),
            Txn {
                number,
                state: TxnState::Active,
                start,
                began: Instant::now(),
                written: Vec::new(),
                held: Vec::new(),
            },
        );
        if let Some(t) = before {
            self.open.remove(&(t.start, lsid.to_vec()));
        }
        self.open.insert((start, lsid.to_vec()));
    }

    /// The open transactions begun `transactionLifetimeLimitSeconds` or more before `now`.
    pub fn expired(&self, now: Instant) -> Vec<Vec<u8>> {
        let limit = Duration::from_secs(self.lifetime_secs.max(1));
        self.open
            .iter()
            .filter(|(_, l)| {
                self.txns
                    .get(l)
                    .is_some_and(|t| now.saturating_duration_since(t.began) >= limit)
            })
            .map(|(_, l)| l.clone())
            .collect()
    }

    /// Whether transaction `number` of session `lsid` is still open.
    pub fn is_open(&self, lsid: &[u8], number: i64) -> bool {
        self.txns
            .get(lsid)
            .is_some_and(|t| t.number == number && t.state == TxnState::Active)
    }

    /// The `txnNumber` of the session's latest transaction (a retryable write's number is checked
    /// against it: `dispatch::retryable`).
    pub fn txn_number_of(&self, lsid: &[u8]) -> Option<i64> {
        self.txns.get(lsid).map(|t| t.number)
    }

    pub fn state_of(&self, lsid: &[u8]) -> Option<TxnState> {
        self.txns.get(lsid).map(|t| t.state)
    }
}

/// What ending a transaction leaves to do.
#[derive(Debug, Default)]
pub struct Finished {
    pub events: Vec<HeldEvent>,
    pub restore: Vec<(String, KeyValue, Option<Document>)>,
}

#[cfg(test)]
#[path = "sessions_tests.rs"]
mod tests;
