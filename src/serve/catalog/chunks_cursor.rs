//! A `find` on `config.chunks` answered lazily: each batch builds only the next chunk documents
//! from the routing tables (the prefilter skips chunks that cannot match before building them),
//! so reading a 1,000,000-chunk collection never holds a million documents. A filter naming one
//! collection reads that collection only, and such a read sorted on `min`, `max` or `lastmod`
//! reads the table in that order ([`ChunkScope`], [`ChunkOrder`]) — no blocking sort.
//!
//! A read whose filter [`RawFilter`] decides, without a projection, writes the documents straight
//! into BSON bytes.
//!
//! Like a cursor on a real server it reads the collection as it is at each `getMore`: a chunk
//! split or merged between two batches can be seen twice or not at all (a paused simulator
//! never changes between batches).

use bson::{Bson, Document};

use crate::wire::encode;

use crate::serve::catalog::chunk_docs::ChunkDocs;
use crate::serve::catalog::chunk_scope::{ChunkOrder, ChunkScope};
use crate::serve::catalog::raw_chunks::{RawChunks, RawFilter};
use crate::serve::query::chunk_filter::ChunkPrefilter;
use crate::serve::query::{self, Projection};
use crate::serve::reply::raw_reply::EncodedBatch;
use crate::serve::state::State;
use crate::serve::state::cursors::{Batch, LazyRead};

/// Where a lazy `config.chunks` read is.
pub struct ChunkCursor {
    filter: Option<Document>,
    pre: ChunkPrefilter,
    projection: Option<Projection>,
    /// Set when the documents are written straight into bytes.
    raw: Option<RawFilter>,
    /// Matches still to skip, and still to return (`None`: no limit).
    skip: usize,
    left: Option<usize>,
    /// The collections read, and the order of their chunks.
    scope: ChunkScope,
    order: ChunkOrder,
    /// By `lastmod`: the chunk indexes of the scope's one collection in that order.
    permutation: Option<Vec<u32>>,
    coll: usize,
    /// The position in the collection's order of the next chunk to look at.
    chunk: usize,
}

impl ChunkCursor {
    pub fn new(
        filter: Option<&Document>,
        projection: Option<Projection>,
        skip: usize,
        limit: Option<usize>,
    ) -> Self {
        let raw = projection
            .is_none()
            .then(|| RawFilter::of(filter))
            .flatten();
        Self {
            raw,
            filter: filter.cloned(),
            pre: ChunkPrefilter::of(filter),
            projection,
            skip,
            left: limit,
            scope: ChunkScope::All,
            order: ChunkOrder::Key,
            permutation: None,
            coll: 0,
            chunk: 0,
        }
    }

    /// The same read restricted to `scope`, in `order` (which needs a scope of one collection
    /// unless it is key order: the caller checks).
    pub fn scoped(mut self, scope: ChunkScope, order: ChunkOrder) -> Self {
        self.scope = scope;
        self.order = order;
        self
    }

    /// Whether every chunk was read (or the limit reached).
    pub fn done(&self, state: &State) -> bool {
        self.done_of(self.scope.collections(state).len())
    }

    fn done_of(&self, collections: usize) -> bool {
        self.left == Some(0) || self.coll >= collections
    }

    /// The next matching documents, built (whatever the filter), at most `n`.
    pub fn next_documents_built(&mut self, state: &State, n: usize) -> Vec<Bson> {
        self.next_documents(state, n, usize::MAX)
    }

    /// The next matching documents: at most `n`, stopping once past `max_bytes`.
    pub fn next_batch(&mut self, state: &State, n: usize, max_bytes: usize) -> Batch {
        match self.raw.take() {
            Some(raw) => {
                let batch = self.next_encoded(state, &raw, n, max_bytes);
                self.raw = Some(raw);
                Batch::Encoded(batch)
            }
            None => Batch::Docs(self.next_documents(state, n, max_bytes)),
        }
    }

    fn next_documents(&mut self, state: &State, n: usize, max_bytes: usize) -> Vec<Bson> {
        let collections = self.scope.collections(state);
        let v = state.sim.cluster.version;
        let mut out = Vec::new();
        let mut bytes = 0;
        while out.len() < n && bytes <= max_bytes && !self.done_of(collections.len()) {
            let c: &crate::cluster::Collection = &collections[self.coll];
            if c.placement == crate::cluster::Placement::Untracked {
                self.chunk = c.table.len();
            }
            let docs = ChunkDocs::of(state, c);
            let candidates = self.candidates(&c.table);
            while self.chunk < c.table.len() && out.len() < n && bytes <= max_bytes {
                let Some(ch) = self.advance(&c.table, candidates.as_deref()) else {
                    break;
                };
                if !self.pre.admits(ch.info) {
                    continue;
                }
                let d = docs.document(state, c, v, ch);
                if !self
                    .filter
                    .as_ref()
                    .is_none_or(|f| query::matches(&d, f).unwrap_or(false))
                {
                    continue;
                }
                if self.skip > 0 {
                    self.skip -= 1;
                    continue;
                }
                let d = match &self.projection {
                    Some(p) => p.apply(&d),
                    None => d,
                };
                if max_bytes != usize::MAX {
                    bytes += crate::wire::document_len(&d);
                }
                out.push(Bson::Document(d));
                if let Some(left) = self.left.as_mut() {
                    *left -= 1;
                    if *left == 0 {
                        return out;
                    }
                }
            }
            if self.chunk >= c.table.len() {
                self.next_collection();
            }
        }
        out
    }
}

impl ChunkCursor {
    /// The candidates of the prefilter from the current position on (key order only).
    fn candidates(&self, table: &crate::model::RoutingTable) -> Option<Vec<usize>> {
        match self.order {
            ChunkOrder::Key => self.pre.candidates(table, self.chunk),
            _ => None,
        }
    }

    fn next_collection(&mut self) {
        self.coll += 1;
        self.chunk = 0;
        self.permutation = None;
    }

    /// The next chunk to look at: the next of `candidates` (sorted indexes) when the filter's
    /// lower bound on `lastmod` named them (past the last one, the collection is done), else
    /// the next in the read's order.
    fn advance<'t>(
        &mut self,
        table: &'t crate::model::RoutingTable,
        candidates: Option<&[usize]>,
    ) -> Option<crate::model::Chunk<'t>> {
        let i = match candidates {
            Some(list) => list.get(list.partition_point(|&x| x < self.chunk)).copied(),
            None => Some(self.chunk),
        };
        let Some(i) = i.filter(|&i| i < table.len()) else {
            self.chunk = table.len();
            return None;
        };
        self.chunk = i + 1;
        let at = match self.order {
            ChunkOrder::Key => i,
            ChunkOrder::KeyDesc => table.len() - 1 - i,
            ChunkOrder::Lastmod { .. } => {
                let perm = self
                    .permutation
                    .get_or_insert_with(|| self.order.permutation(table).unwrap_or_default());
                match perm.get(i) {
                    Some(&at) if (at as usize) < table.len() => at as usize,
                    // The table changed since the order was taken: read on in key order.
                    _ => i,
                }
            }
        };
        Some(table.chunk(at))
    }

    /// [`ChunkCursor::next_batch`] written straight into the bytes of a BSON array.
    fn next_encoded(
        &mut self,
        state: &State,
        raw: &RawFilter,
        n: usize,
        max_bytes: usize,
    ) -> EncodedBatch {
        let collections = self.scope.collections(state);
        let mut out = Vec::with_capacity(n.saturating_mul(256).min(max_bytes + (64 << 10)));
        let mut len = 0;
        let mut bytes = 0;
        let mut key = encode::itoa_buf();
        encode::framed(&mut out, |out| {
            while len < n && bytes <= max_bytes && !self.done_of(collections.len()) {
                let c: &crate::cluster::Collection = &collections[self.coll];
                let mut docs = RawChunks::of(state, c, raw);
                if !docs.admitted || c.placement == crate::cluster::Placement::Untracked {
                    self.chunk = c.table.len();
                }
                let candidates = self.candidates(&c.table);
                while self.chunk < c.table.len() && len < n && bytes <= max_bytes {
                    let Some(ch) = self.advance(&c.table, candidates.as_deref()) else {
                        break;
                    };
                    if !docs.admits(&ch) {
                        continue;
                    }
                    if self.skip > 0 {
                        self.skip -= 1;
                        continue;
                    }
                    encode::document_item(out, &mut key, len);
                    bytes += docs.write(out, &ch);
                    len += 1;
                    if let Some(left) = self.left.as_mut() {
                        *left -= 1;
                        if *left == 0 {
                            return;
                        }
                    }
                }
                if self.chunk >= c.table.len() {
                    self.next_collection();
                }
            }
        });
        EncodedBatch { bytes: out, len }
    }
}

impl LazyRead<State> for ChunkCursor {
    fn next_batch(
        &mut self,
        state: &State,
        n: usize,
        max_bytes: usize,
    ) -> Result<Batch, crate::cluster::MongoError> {
        Ok(ChunkCursor::next_batch(self, state, n, max_bytes))
    }

    fn done(&self, state: &State) -> bool {
        ChunkCursor::done(self, state)
    }

    fn held(&self) -> usize {
        std::mem::size_of::<Self>() + self.permutation.as_ref().map_or(0, |p| p.len() * 4)
    }
}
