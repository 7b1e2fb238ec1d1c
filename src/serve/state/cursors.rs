//! The open cursors of `find` and `aggregate` (change streams keep their own, `change_stream`):
//! what each has left, the connection that opened it and when it was last read. A cursor is
//! killed when its connection closes or its session ends, after [`CURSOR_TIMEOUT`] unread (a server's
//! `cursorTimeoutMillis`, 10 minutes by default: src/mongo/db/cursor_server_params.idl), and — least
//! recently read first — when all of them together would hold more than [`CURSOR_BUDGET`] bytes.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use bson::Bson;

use crate::cluster::MongoError;
use crate::serve::reply::raw_reply::EncodedBatch;
use crate::serve::state::encoded_docs::EncodedDocs;

/// An unread cursor is killed after this long, unless `cursorTimeoutMillis` says otherwise.
pub const CURSOR_TIMEOUT: Duration = Duration::from_secs(600);
/// The bytes all open cursors hold at most.
pub const CURSOR_BUDGET: usize = 256 << 20;

/// Open cursors by id.
pub struct Cursors<S> {
    open: BTreeMap<i64, Cursor<S>>,
    next_id: i64,
    held: usize,
    timeout: Duration,
}

impl<S> Default for Cursors<S> {
    fn default() -> Self {
        Self {
            open: BTreeMap::new(),
            next_id: 0,
            held: 0,
            timeout: CURSOR_TIMEOUT,
        }
    }
}

pub struct Cursor<S> {
    pub ns: String,
    pub rest: Rest<S>,
    owner: i64,
    session: Option<Vec<u8>>,
    used: Instant,
    held: usize,
}

/// A batch of a cursor: documents, or documents already encoded.
pub enum Batch {
    Docs(Vec<Bson>),
    Encoded(EncodedBatch),
}

/// A lazy read (of `config.chunks`, or of kept documents): where it is; each batch reads on
/// from the server's state `S` as it is then. The reads themselves live with their data (`catalog`,
/// `commands::find`).
pub trait LazyRead<S>: Send {
    /// The next matching documents: at most `n`, stopping once past `max_bytes`.
    fn next_batch(&mut self, state: &S, n: usize, max_bytes: usize) -> Result<Batch, MongoError>;
    /// Whether everything was read (or the limit reached).
    fn done(&self, state: &S) -> bool;
    /// The bytes it holds.
    fn held(&self) -> usize;
}

/// What a cursor has left: encoded documents, or a lazy read of `config.chunks` or of kept
/// documents.
pub enum Rest<S> {
    Docs(EncodedDocs),
    Lazy(Box<dyn LazyRead<S>>),
}

impl<S> Rest<S> {
    pub fn next_batch(
        &mut self,
        state: &S,
        n: usize,
        max_bytes: usize,
    ) -> Result<Batch, MongoError> {
        Ok(match self {
            Self::Docs(docs) => Batch::Encoded(docs.next_batch(n, max_bytes)),
            Self::Lazy(c) => c.next_batch(state, n, max_bytes)?,
        })
    }

    pub fn done(&self, state: &S) -> bool {
        match self {
            Self::Docs(docs) => docs.is_empty(),
            Self::Lazy(c) => c.done(state),
        }
    }

    fn held(&self) -> usize {
        match self {
            Self::Docs(docs) => docs.held(),
            Self::Lazy(c) => c.held(),
        }
    }
}

impl<S> Cursors<S> {
    /// Opens a cursor of connection `owner`; its id, and how many least recently read cursors
    /// were killed to keep within [`CURSOR_BUDGET`].
    pub fn open(
        &mut self,
        ns: &str,
        rest: Rest<S>,
        owner: i64,
        session: Option<Vec<u8>>,
    ) -> (i64, usize) {
        let held = rest.held();
        let mut evicted = 0;
        while self.held + held > CURSOR_BUDGET {
            let Some(oldest) = self
                .open
                .iter()
                .min_by_key(|(_, c)| c.used)
                .map(|(id, _)| *id)
            else {
                break;
            };
            self.kill(oldest);
            evicted += 1;
        }
        self.next_id += 1;
        let id = 0x5EED_0000_0000 + self.next_id;
        self.held += held;
        let cursor = Cursor {
            ns: ns.to_string(),
            rest,
            owner,
            session,
            used: Instant::now(),
            held,
        };
        self.open.insert(id, cursor);
        (id, evicted)
    }

    /// Takes cursor `id` out to read it ([`Cursors::put_back`] when it has more).
    pub fn take(&mut self, id: i64) -> Option<Cursor<S>> {
        let c = self.open.remove(&id)?;
        self.held -= c.held;
        Some(c)
    }

    /// Puts a cursor taken out back, read now.
    pub fn put_back(&mut self, id: i64, mut c: Cursor<S>) {
        c.used = Instant::now();
        c.held = c.rest.held();
        self.held += c.held;
        self.open.insert(id, c);
    }

    pub fn kill(&mut self, id: i64) -> bool {
        self.take(id).is_some()
    }

    /// Kills the cursors of connection `owner`; how many.
    pub fn kill_owned_by(&mut self, owner: i64) -> usize {
        self.kill_where(|c| c.owner == owner)
    }

    /// Kills the cursors of the sessions `ids`; how many.
    pub fn kill_of_sessions(&mut self, ids: &[Vec<u8>]) -> usize {
        self.kill_where(|c| c.session.as_ref().is_some_and(|s| ids.contains(s)))
    }

    /// Kills the cursors unread for the cursor timeout at `now`; how many.
    pub fn expire(&mut self, now: Instant) -> usize {
        let timeout = self.timeout;
        self.kill_where(|c| now.duration_since(c.used) >= timeout)
    }

    /// `cursorTimeoutMillis`.
    pub fn timeout_ms(&self) -> u64 {
        self.timeout.as_millis() as u64
    }

    pub fn set_timeout_ms(&mut self, ms: u64) {
        self.timeout = Duration::from_millis(ms);
    }

    fn kill_where(&mut self, dead: impl Fn(&Cursor<S>) -> bool) -> usize {
        let ids: Vec<i64> = self
            .open
            .iter()
            .filter(|(_, c)| dead(c))
            .map(|(id, _)| *id)
            .collect();
        ids.iter().filter(|id| self.kill(**id)).count()
    }

    /// How many cursors are open, and the bytes they hold.
    pub fn usage(&self) -> (usize, usize) {
        (self.open.len(), self.held)
    }
}
