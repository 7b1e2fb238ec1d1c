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
use crate::model::extjson::from_bson;
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
struct Txn {
    number: i64,
    state: TxnState,
    /// When it began, on the clock of [`Versions`]: it reads documents changed since as they
    /// were then.
    start: u64,
    /// When it began, on the wall clock (for `transactionLifetimeLimitSeconds`).
    began: Instant,
    /// The documents it wrote, in order (each once), for an abort.
    written: Vec<DocKey>,
    held: Vec<HeldEvent>,
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
    txns: HashMap<Vec<u8>, Txn>,
    /// The open transactions by when they began.
    open: BTreeSet<(u64, Vec<u8>)>,
    /// Versions the open transactions' snapshots read.
    pub versions: Versions,
    /// Documents written by open transactions: the owner and the version before it.
    locks: BTreeMap<DocKey, (Vec<u8>, Option<Document>)>,
    /// `transactionLifetimeLimitSeconds`.
    pub lifetime_secs: u64,
    /// The transaction whose document the command being answered (outside a transaction) met
    /// before it wrote anything: the command waits for it to end.
    pub blocked: Option<Vec<u8>>,
    /// Documents the command being answered wrote.
    written_now: u64,
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

fn doc_key(ns: &str, id: &Bson) -> DocKey {
    (ns.to_string(), from_bson(id))
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

    fn current_txn(&self) -> Option<&[u8]> {
        match &self.current {
            Current::Txn(l) => Some(l),
            _ => None,
        }
    }

    /// Whether the command belongs to a transaction or is a retryable write.
    pub fn has_txn_number(&self) -> bool {
        self.current != Current::None
    }

    /// Whether nothing needs the slow read path (no open transaction holds a document).
    fn quiet(&self) -> bool {
        self.locks.is_empty()
            && self
                .current_txn()
                .and_then(|l| self.txns.get(l))
                .is_none_or(|t| !self.versions.any_since(t.start))
    }

    /// What the current reader sees of `ns` instead of the store: `_id` → version (`None`:
    /// hidden). `None` when it sees the store as it is.
    pub fn view(&self, ns: &str) -> Option<BTreeMap<KeyValue, Option<Document>>> {
        if self.quiet() || self.restoring {
            return None;
        }
        let me = self.current_txn();
        let mut out = BTreeMap::new();
        for ((n, id), (owner, pre)) in &self.locks {
            if n == ns && Some(owner.as_slice()) != me {
                out.insert(id.clone(), pre.clone());
            }
        }
        if let Some(t) = me.and_then(|l| self.txns.get(l)) {
            for (id, v) in self.versions.since(ns, t.start) {
                out.insert(id.clone(), v.clone());
            }
        }
        (!out.is_empty()).then_some(out)
    }

    /// Before the current command writes document `id` of `ns`: refused when another open
    /// transaction holds it (outside a transaction, before the command wrote anything, noted
    /// in [`Self::blocked`]: the command waits), or when the writing transaction's snapshot has
    /// an older version.
    pub fn may_write(&mut self, ns: &str, id: &Bson) -> Result<(), MongoError> {
        if self.restoring {
            return Ok(());
        }
        let key = doc_key(ns, id);
        let me = self.current_txn();
        if let Some((owner, _)) = self.locks.get(&key)
            && Some(owner.as_slice()) != me
        {
            if me.is_none() && self.written_now == 0 {
                self.blocked = Some(owner.clone());
            }
            return Err(write_conflict());
        }
        if let Some(t) = me.and_then(|l| self.txns.get(l))
            && self.versions.changed_since(&key, t.start)
        {
            return Err(write_conflict());
        }
        Ok(())
    }

    /// The transaction (session id, number) the command just answered waits for: set when, outside
    /// a transaction, it met a document an open transaction holds and wrote nothing.
    pub fn take_blocked(&mut self) -> Option<(Vec<u8>, i64)> {
        let owner = self.blocked.take()?;
        let t = self.txns.get(&owner)?;
        (self.written_now == 0).then_some((owner, t.number))
    }

    /// Whether transaction `number` of session `lsid` is still open.
    pub fn is_open(&self, lsid: &[u8], number: i64) -> bool {
        self.txns
            .get(lsid)
            .is_some_and(|t| t.number == number && t.state == TxnState::Active)
    }

    /// When the newest open transaction began.
    fn newest_open(&self) -> Option<u64> {
        self.open.last().map(|(s, _)| *s)
    }

    /// After the current command wrote document `id` of `ns` (whose version before was `old`).
    pub fn wrote(&mut self, ns: &str, id: &Bson, old: Option<&Document>) {
        if self.restoring {
            return;
        }
        let key = doc_key(ns, id);
        self.written_now += 1;
        if let Some(lsid) = self.current_txn().map(<[u8]>::to_vec) {
            if !self.locks.contains_key(&key) {
                self.locks.insert(key.clone(), (lsid.clone(), old.cloned()));
                if let Some(t) = self.txns.get_mut(&lsid) {
                    t.written.push(key);
                }
            }
            return;
        }
        let newest = self.newest_open();
        self.versions.wrote(&key, old, newest);
    }

    /// The current transaction's held change events, when the command belongs to one.
    pub fn holding(&mut self) -> Option<&mut Vec<HeldEvent>> {
        let lsid = self.current_txn()?.to_vec();
        self.txns.get_mut(&lsid).map(|t| &mut t.held)
    }

    /// Ends the session's transaction: its locks released; on commit its held events returned,
    /// on abort the versions to write back (namespace, `_id`, version before; newest first).
    pub fn finish(&mut self, lsid: &[u8], commit: bool) -> Finished {
        let Some(t) = self.txns.get_mut(lsid) else {
            return Finished::default();
        };
        if t.state != TxnState::Active {
            return Finished::default();
        }
        t.state = if commit {
            TxnState::Committed
        } else {
            TxnState::Aborted
        };
        let start = t.start;
        let written = std::mem::take(&mut t.written);
        let held = std::mem::take(&mut t.held);
        self.open.remove(&(start, lsid.to_vec()));
        let newest = self.newest_open();
        let mut restore = Vec::new();
        for key in written.into_iter().rev() {
            if let Some((_, pre)) = self.locks.remove(&key) {
                if commit {
                    // Transactions open now began before this commit: they keep reading `pre`.
                    self.versions.wrote(&key, pre.as_ref(), newest);
                } else {
                    restore.push((key.0, key.1, pre));
                }
            }
        }
        self.versions.forget(self.open.first().map(|(s, _)| *s));
        if commit {
            Finished {
                events: held,
                restore: Vec::new(),
            }
        } else {
            Finished {
                events: Vec::new(),
                restore,
            }
        }
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
