//! What an open transaction's reads see and its writes hold, on [`Sessions`]: the documents it
//! locked (another writer gets WriteConflict, or waits outside a transaction), the snapshot its
//! reads see (`versions`), the events it holds until commit, and ending it (commit publishes,
//! abort writes the versions before back). The rules and their sources are in `sessions`' doc
//! (`db/transaction/transaction_participant.cpp`, `db/concurrency/exception_util.h`).
//!
//! Data only: no handler logic; imports `state` only.

use std::collections::BTreeMap;

use bson::{Bson, Document};

use crate::cluster::MongoError;
use crate::model::KeyValue;
use crate::model::extjson::from_bson;
use crate::serve::state::sessions::{
    Current, Finished, HeldEvent, Sessions, TxnState, write_conflict,
};
use crate::serve::state::versions::DocKey;

fn doc_key(ns: &str, id: &Bson) -> DocKey {
    (ns.to_string(), from_bson(id))
}

impl Sessions {
    pub(super) fn current_txn(&self) -> Option<&[u8]> {
        match &self.current {
            Current::Txn(l) => Some(l),
            _ => None,
        }
    }

    /// The session of the transaction the command belongs to, if any.
    pub fn current_txn_id(&self) -> Option<&[u8]> {
        self.current_txn()
    }

    /// Whether the command belongs to a transaction or is a retryable write.
    pub fn has_txn_number(&self) -> bool {
        self.current != Current::None
    }

    /// Whether nothing needs the slow read path (no open transaction holds a document).
    pub(super) fn quiet(&self) -> bool {
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
}
