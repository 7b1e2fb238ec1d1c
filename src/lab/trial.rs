//! Every candidate on the same documents, in lockstep: the initial documents go to each
//! candidate's cluster and are laid out; then, tick by tick of simulated time, each tick's new
//! inserts (at the lab's insert rate) go to every candidate and every cluster steps once. Each
//! candidate's simulated cluster is [`run`]'s; a finished run is measured into its report by
//! [`measure`].
//!
//! The trial imports the simulator, [`crate::analyze`] and the report's types
//! ([`crate::lab::report`]); never the lab's input (documents and traffic are handed to it).

pub mod measure;
pub mod run;

use bson::Document;

pub use self::measure::{jumbo_chunks, measure};
use self::run::{CandidateRun, ClusterSpec};
use crate::analyze::characteristics::Characteristics;
use crate::analyze::operation::Operation;
use crate::lab::report::{CandidateReport, Report};
use crate::model::KeyPattern;
use crate::sim::engine::TICK_MS;

/// How the documents arrive.
#[derive(Clone, Debug)]
pub struct Arrival {
    /// Start from one chunk (or a hashed key's pre-split chunks) as sharding an empty collection
    /// does; no initial layout.
    pub from_empty: bool,
    /// Documents laid out before the inserts start (ignored from empty).
    pub initial_docs: u64,
    /// New inserts per second of simulated time.
    pub rate_per_sec: f64,
}

/// The candidates being tried.
pub struct Trial {
    pub spec: ClusterSpec,
    pub arrival: Arrival,
    pub candidates: Vec<CandidateRun>,
    pub documents: u64,
    /// Each unique index given, over every document: a repeated key says it could not exist.
    unique_checks: Vec<(KeyPattern, Characteristics)>,
    started: bool,
    carry: f64,
}

impl Trial {
    /// `unique`: the unique indexes; a candidate is unique when one has exactly its fields
    /// ([`has_unique_index`]).
    pub fn new(
        spec: ClusterSpec,
        arrival: Arrival,
        keys: &[KeyPattern],
        unique: &[KeyPattern],
    ) -> Result<Self, String> {
        let candidates = keys
            .iter()
            .map(|k| {
                let is_unique = has_unique_index(k, unique);
                CandidateRun::new(&spec, k.clone(), is_unique)
            })
            .collect::<Result<Vec<_>, String>>()?;
        let mut t = Self {
            spec,
            arrival,
            candidates,
            documents: 0,
            unique_checks: unique
                .iter()
                .map(|u| (u.clone(), Characteristics::new(u, true)))
                .collect(),
            started: false,
            carry: 0.0,
        };
        if t.arrival.from_empty {
            t.start_inserts();
        }
        Ok(t)
    }

    /// Whether the initial documents are laid out and new inserts are arriving.
    pub fn inserting(&self) -> bool {
        self.started
    }

    /// Takes the next document: initial until `initial_docs`, then laid out.
    pub fn take_initial(&mut self, doc: &Document, size: u64) {
        self.insert(doc, size);
        if !self.started && self.documents >= self.arrival.initial_docs {
            self.start_inserts();
        }
    }

    fn insert(&mut self, doc: &Document, size: u64) {
        self.documents += 1;
        for (_, check) in &mut self.unique_checks {
            // An array makes the index multikey: each element is a key, not checked here.
            let _ = check.observe(doc, size);
        }
        for c in &mut self.candidates {
            c.insert(doc, size);
        }
    }

    /// Lays the documents so far out and starts the inserts.
    pub fn start_inserts(&mut self) {
        if self.started {
            return;
        }
        for c in &mut self.candidates {
            c.start_inserts(self.arrival.from_empty, self.spec.num_initial_chunks);
        }
        self.started = true;
    }

    /// How many new inserts the next tick takes.
    pub fn due(&mut self) -> u64 {
        let exact = self.arrival.rate_per_sec * TICK_MS as f64 / 1000.0 + self.carry;
        let n = exact.floor();
        self.carry = exact - n;
        n as u64
    }

    /// One tick: `docs` arrive as new inserts, then every cluster steps; each candidate's
    /// events of the tick.
    pub fn tick(&mut self, docs: &[(Document, u64)]) -> Vec<Vec<crate::cluster::Event>> {
        self.start_inserts();
        for (d, size) in docs {
            self.insert(d, *size);
        }
        self.candidates.iter_mut().map(CandidateRun::step).collect()
    }

    /// Runs every remaining document through, a tick's worth at a time.
    pub fn run_to_end<E>(
        &mut self,
        docs: &mut impl Iterator<Item = Result<(Document, u64), E>>,
    ) -> Result<(), E> {
        while !self.started {
            match docs.next() {
                Some(d) => {
                    let (doc, size) = d?;
                    self.take_initial(&doc, size);
                }
                None => self.start_inserts(),
            }
        }
        let mut batch = Vec::new();
        loop {
            batch.clear();
            let n = self.due().max(1);
            for d in docs.by_ref().take(n as usize) {
                batch.push(d?);
            }
            if batch.is_empty() {
                return Ok(());
            }
            self.tick(&batch);
        }
    }

    /// The reports, in the candidates' order.
    pub fn finish(self, traffic: &[Operation], unique: &[KeyPattern]) -> Report {
        let unique_contradicted = self
            .unique_checks
            .into_iter()
            .filter_map(|(k, c)| c.finish().unique_duplicate.map(|(v, n)| (k, v, n)))
            .collect();
        let candidates: Vec<CandidateReport> = self
            .candidates
            .into_iter()
            .map(|c| measure(c, traffic, unique))
            .collect();
        Report {
            unique_contradicted,
            documents: self.documents,
            operations: traffic.len(),
            shards: self.spec.shards,
            chunk_size_mb: self.spec.chunk_size_mb,
            server_version: self.spec.server_version.to_string(),
            candidates,
        }
    }
}

/// Whether a unique index supports `key` as `analyzeShardKey` chooses it: by field names (a
/// hashed field is named as any other), with exactly the key's fields, a unique one preferred
/// — so `{_id: "hashed"}` (the `_id` index) and `{x: "hashed"}` with a unique `{x: 1}` are
/// unique (8.0 `src/mongo/db/s/analyze_shard_key_cmd_util.cpp`,
/// `calculateKeyCharacteristicsMetrics`; jstest
/// `jstests/sharding/analyze_shard_key/cardinality_and_frequency_index_selection.js`).
pub fn has_unique_index(key: &KeyPattern, unique: &[KeyPattern]) -> bool {
    unique.iter().any(|u| same_fields(u, key)) || is_id(key)
}

fn same_fields(a: &KeyPattern, b: &KeyPattern) -> bool {
    a.len() == b.len()
        && a.fields()
            .iter()
            .zip(b.fields())
            .all(|(x, y)| x.path == y.path)
}

/// The `_id` index, unique on every collection.
fn is_id(k: &KeyPattern) -> bool {
    k.len() == 1 && &*k.fields()[0].path == "_id"
}
