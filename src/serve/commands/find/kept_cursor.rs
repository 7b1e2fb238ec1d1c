//! A `find` on a collection of kept documents without a sort, answered lazily: the cursor holds
//! its filter and where it is in the collection's natural order, and each batch reads on from
//! there. An open cursor costs its filter, not its results.
//!
//! Like a cursor on a real server it reads the collection as it is at each `getMore`: documents
//! inserted behind it are seen, documents removed before it reaches them are not.

use std::ops::Bound;

use bson::Document;

use crate::cluster::MongoError;
use crate::serve::query::{self, Projection};
use crate::serve::reply::raw_reply::EncodedBatch;
use crate::serve::state::State;
use crate::serve::state::cursors::{Batch, LazyRead};
use crate::wire::encode;

/// Where a lazy read of kept documents is.
pub struct StoreCursor {
    ns: String,
    filter: Option<Document>,
    projection: Option<Projection>,
    /// The insertion number of the last document looked at.
    after: Option<u64>,
    skip: usize,
    /// Documents still to return under `limit`.
    left: Option<usize>,
}

impl StoreCursor {
    pub fn new(
        ns: &str,
        filter: Option<&Document>,
        projection: Option<Projection>,
        skip: usize,
        left: Option<usize>,
    ) -> Self {
        Self {
            ns: ns.to_string(),
            filter: filter.cloned(),
            projection,
            after: None,
            skip,
            left,
        }
    }

    /// The next `n` matching documents (fewer once `max_bytes` is passed), encoded.
    pub fn next_batch(
        &mut self,
        state: &State,
        n: usize,
        max_bytes: usize,
    ) -> Result<EncodedBatch, MongoError> {
        let none = Document::new();
        let filter = self.filter.clone();
        crate::serve::query::in_sets::prepared(filter.as_ref().unwrap_or(&none), || {
            self.read(state, filter.as_ref(), n, max_bytes)
        })
    }

    fn read(
        &mut self,
        state: &State,
        filter: Option<&Document>,
        n: usize,
        max_bytes: usize,
    ) -> Result<EncodedBatch, MongoError> {
        let mut out = Vec::new();
        let mut len = 0;
        let mut key = encode::itoa_buf();
        let start = self.after.map_or(Bound::Unbounded, Bound::Excluded);
        let mut failed = None;
        encode::framed(&mut out, |out| {
            for (i, (seq, s)) in state.store.range(&self.ns, start).enumerate() {
                if len >= n || out.len() > max_bytes || self.left == Some(0) {
                    break;
                }
                if let Err(e) = crate::serve::query::deadline::check_every(i) {
                    failed = Some(e);
                    break;
                }
                self.after = Some(seq);
                if !filter.is_none_or(|f| query::matches(&s.doc, f).unwrap_or(false)) {
                    continue;
                }
                if self.skip > 0 {
                    self.skip -= 1;
                    continue;
                }
                encode::document_item(out, &mut key, len);
                match &self.projection {
                    Some(p) => encode::document(out, &p.apply(&s.doc)),
                    None => encode::document(out, &s.doc),
                }
                len += 1;
                if let Some(left) = self.left.as_mut() {
                    *left -= 1;
                }
            }
        });
        match failed {
            Some(e) => Err(e),
            None => Ok(EncodedBatch { bytes: out, len }),
        }
    }

    /// Whether nothing is left to read: the limit reached, or no document after the position.
    pub fn done(&self, state: &State) -> bool {
        let start = self.after.map_or(Bound::Unbounded, Bound::Excluded);
        self.left == Some(0) || state.store.range(&self.ns, start).next().is_none()
    }
}

impl LazyRead<State> for StoreCursor {
    fn next_batch(
        &mut self,
        state: &State,
        n: usize,
        max_bytes: usize,
    ) -> Result<Batch, MongoError> {
        Ok(Batch::Encoded(StoreCursor::next_batch(
            self, state, n, max_bytes,
        )?))
    }

    fn done(&self, state: &State) -> bool {
        StoreCursor::done(self, state)
    }

    fn held(&self) -> usize {
        std::mem::size_of::<Self>()
    }
}
