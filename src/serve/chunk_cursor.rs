//! A `find` on `config.chunks` without a sort, answered lazily: each batch builds only the next
//! chunk documents from the routing tables (the prefilter skips chunks that cannot match before
//! building them), so reading a 1,000,000-chunk collection never holds a million documents.
//!
//! Like a cursor on a real server it reads the collection as it is at each `getMore`: a chunk
//! split or merged between two batches can be seen twice or not at all (a paused simulator
//! never changes between batches).

use bson::{Bson, Document};

use super::chunk_filter::ChunkPrefilter;
use super::config_db::ChunkDocs;
use super::query::{self, Projection};
use super::state::State;

/// Where a lazy `config.chunks` read is.
pub struct ChunkCursor {
    filter: Option<Document>,
    pre: ChunkPrefilter,
    projection: Option<Projection>,
    /// Matches still to skip, and still to return (`None`: no limit).
    skip: usize,
    left: Option<usize>,
    coll: usize,
    chunk: usize,
}

impl ChunkCursor {
    pub fn new(
        filter: Option<&Document>,
        projection: Option<Projection>,
        skip: usize,
        limit: Option<usize>,
    ) -> Self {
        Self {
            filter: filter.cloned(),
            pre: ChunkPrefilter::of(filter),
            projection,
            skip,
            left: limit,
            coll: 0,
            chunk: 0,
        }
    }

    /// Whether every chunk was read (or the limit reached).
    pub fn done(&self, state: &State) -> bool {
        self.left == Some(0) || self.coll >= state.sim.cluster.collections.len()
    }

    /// The next matching documents: at most `n`, stopping once past `max_bytes`.
    pub fn next_batch(&mut self, state: &State, n: usize, max_bytes: usize) -> Vec<Bson> {
        let collections = &state.sim.cluster.collections;
        let v = state.sim.cluster.version;
        let mut out = Vec::new();
        let mut bytes = 0;
        while out.len() < n && bytes <= max_bytes && !self.done(state) {
            let c = &collections[self.coll];
            let docs = ChunkDocs::of(state, c);
            while self.chunk < c.table.len() && out.len() < n && bytes <= max_bytes {
                let ch = c.table.chunk(self.chunk);
                self.chunk += 1;
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
                bytes += crate::wire::document_len(&d);
                out.push(Bson::Document(d));
                if let Some(left) = self.left.as_mut() {
                    *left -= 1;
                    if *left == 0 {
                        return out;
                    }
                }
            }
            if self.chunk >= c.table.len() {
                self.coll += 1;
                self.chunk = 0;
            }
        }
        out
    }
}
