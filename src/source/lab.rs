//! `shardtop lab` as a source: every candidate in lockstep in virtual time. At time 0 the
//! initial documents are laid out; each tick then takes its share of the new inserts (the lab's
//! rate) and steps every candidate's cluster. A view is the chosen candidate's cluster in the
//! full layout (its collections list names the candidates, so the collection keys choose one)
//! with every candidate side by side beside it. Going back starts again from the layout (the
//! documents are kept, and the run is deterministic).

use bson::Document;

use super::Timeline;
use crate::analyze::distribution::{self, ReplacementRule};
use crate::analyze::operation::Operation;
use crate::analyze::ranges;
use crate::lab::report::markdown::{query_text, shell};
use crate::lab::report::verdict::targeting;
use crate::lab::trial::{Trial, jumbo_chunks};
use crate::model::targeting::target;
use crate::sim::engine::TICK_MS;
use crate::view::lab::{ColumnCounts, LabView, column};
use crate::view::{self, ClockView, ClusterView, LogLine, ViewRequest};

/// Builds a fresh trial (the same every time).
pub type NewTrial = Box<dyn Fn() -> Result<Trial, String> + Send>;

/// The operations a column lists (the first of the traffic; all are counted).
const LISTED: usize = 12;

/// The candidates over the documents.
pub struct LabTimeline {
    new_trial: NewTrial,
    trial: Trial,
    docs: Vec<(Document, u64)>,
    /// The next document to insert.
    next: usize,
    traffic: Vec<Operation>,
    labels: Vec<String>,
    /// The listed operations as mongosh shows them.
    listed: Vec<String>,
    /// Per candidate, what its column shows of the traffic and its jumbo chunks, brought up to
    /// date after each tick (the targeting only when the chunks changed), not at each frame.
    columns: Vec<Targets>,
}

/// One candidate's targeting of the traffic under the chunks of `version`.
#[derive(Default)]
struct Targets {
    version: Option<crate::model::ChunkVersion>,
    single_shard: usize,
    listed: Vec<(String, String)>,
    jumbo: u64,
    /// `numReadsByRange` / `numWritesByRange` as heat glyphs (empty: too few key values).
    reads_by_range: String,
    writes_by_range: String,
}

impl LabTimeline {
    /// `docs` in insertion order; `new_trial` makes the candidates' clusters.
    pub fn new(
        new_trial: NewTrial,
        docs: Vec<(Document, u64)>,
        traffic: Vec<Operation>,
    ) -> Result<Self, String> {
        let trial = new_trial()?;
        let labels = trial
            .candidates
            .iter()
            .map(|c| shell(&c.key.to_document()))
            .collect();
        let listed = traffic
            .iter()
            .take(LISTED)
            .map(|op| query_text(op.command.as_str(), &op.filter))
            .collect();
        let mut tl = Self {
            new_trial,
            trial,
            docs,
            next: 0,
            traffic,
            labels,
            listed,
            columns: Vec::new(),
        };
        tl.lay_out();
        Ok(tl)
    }

    /// Brings the columns' targeting (when the chunks changed) and jumbo chunks up to date.
    fn refresh(&mut self) {
        self.columns
            .resize_with(self.trial.candidates.len(), Targets::default);
        for (c, t) in self.trial.candidates.iter().zip(&mut self.columns) {
            let coll = c.collection();
            t.jumbo = jumbo_chunks(coll, c.sim.cluster.chunk_size_of(0));
            let version = coll.table.version();
            if t.version == Some(version) {
                continue;
            }
            t.version = Some(version);
            let v = c.sim.cluster.version;
            let rule = ReplacementRule::of_release(v.major, v.minor);
            let targeted: Vec<_> = self
                .traffic
                .iter()
                .map(|op| target(&c.key, &coll.table, &op.filter))
                .collect();
            t.single_shard = targeted.iter().filter(|x| x.is_single_shard()).count();
            t.listed = self
                .listed
                .iter()
                .zip(&targeted)
                .zip(&self.traffic)
                .map(|((q, x), op)| {
                    let dispatch = distribution::classify(&c.key, op, rule).0;
                    (q.clone(), targeting(dispatch, x.shards.len()))
                })
                .collect();
            let by_range = c
                .key_sample
                .split_points()
                .map(|s| ranges::by_range(&c.key, &self.traffic, &s, rule));
            (t.reads_by_range, t.writes_by_range) = match by_range {
                Ok(b) => (ranges::heat_strip(&b.reads), ranges::heat_strip(&b.writes)),
                Err(_) => (String::new(), String::new()),
            };
        }
    }

    fn lay_out(&mut self) {
        while !self.trial.inserting() && self.next < self.docs.len() {
            let (d, size) = &self.docs[self.next];
            self.trial.take_initial(d, *size);
            self.next += 1;
        }
        self.trial.start_inserts();
        self.columns.clear();
        self.refresh();
    }

    fn tick(&mut self, log: Option<&mut Vec<LogLine>>) {
        let n = self.trial.due() as usize;
        let end = (self.next + n).min(self.docs.len());
        let events = self.trial.tick(&self.docs[self.next..end]);
        self.next = end;
        self.refresh();
        let Some(log) = log else { return };
        for (i, evs) in events.iter().enumerate() {
            let cluster = &self.trial.candidates[i].sim.cluster;
            log.extend(
                evs.iter()
                    .filter_map(|e| {
                        super::event_detail::log_line(cluster, e, super::event_detail::SIMULATOR)
                    })
                    .map(|mut l| {
                        l.text = format!("{} · {}", self.labels[i], l.text);
                        l
                    }),
            );
        }
    }

    fn lab_view(&self) -> LabView {
        let columns = self
            .trial
            .candidates
            .iter()
            .zip(&self.labels)
            .zip(&self.columns)
            .map(|((c, label), t)| {
                let counts = ColumnCounts {
                    inserts_per_shard: c.inserts.per_shard.clone(),
                    new_inserts: c.inserts.total,
                    migrations: c.inserts.migrations,
                    hot_chunk: c.hot_chunk(),
                    single_shard: t.single_shard,
                    operations: self.traffic.len(),
                    jumbo: t.jumbo,
                    targets: t.listed.clone(),
                    reads_by_range: t.reads_by_range.clone(),
                    writes_by_range: t.writes_by_range.clone(),
                };
                column(label.clone(), &c.sim.cluster, &counts)
            })
            .collect();
        LabView {
            documents: self.next as u64,
            total: self.docs.len() as u64,
            columns,
        }
    }
}

impl Timeline for LabTimeline {
    fn label(&self) -> String {
        "lab".into()
    }

    fn now_ms(&self) -> u64 {
        self.trial.candidates.first().map_or(0, |c| c.sim.now_ms())
    }

    fn stop_at_ms(&self) -> Option<u64> {
        self.end_ms()
    }

    fn end_ms(&self) -> Option<u64> {
        let rate = self.trial.arrival.rate_per_sec.max(1.0);
        let left = (self.docs.len() - self.next) as f64;
        let ticks = (left * 1000.0 / rate / TICK_MS as f64).ceil() as u64;
        Some(self.now_ms() + ticks * TICK_MS)
    }

    fn advance_to(&mut self, t_ms: u64, log: &mut Vec<LogLine>) -> color_eyre::Result<()> {
        while self.now_ms() + TICK_MS <= t_ms && self.next < self.docs.len() {
            self.tick(Some(log));
        }
        Ok(())
    }

    /// Going back starts the trial again and replays it, so the log is rebuilt up to `t_ms`;
    /// going forward adds the lines on the way.
    fn seek(&mut self, t_ms: u64, log: &mut Vec<LogLine>) -> color_eyre::Result<()> {
        if t_ms < self.now_ms() {
            self.trial = (self.new_trial)().map_err(|e| color_eyre::eyre::eyre!(e))?;
            self.next = 0;
            self.lay_out();
            log.clear();
        }
        while self.now_ms() + TICK_MS <= t_ms && self.next < self.docs.len() {
            self.tick(Some(log));
        }
        Ok(())
    }

    fn migration(&mut self, _forward: bool, _log: &mut Vec<LogLine>) -> color_eyre::Result<bool> {
        Ok(false)
    }

    fn view(
        &self,
        req: &ViewRequest,
        clock: ClockView,
        _diagnoses: Option<&crate::diagnosis::Diagnoses>,
    ) -> ClusterView {
        let i = req
            .collection
            .min(self.trial.candidates.len().saturating_sub(1));
        let mut one = req.clone();
        one.collection = 0;
        one.heatmap = None;
        one.history = None;
        let cluster = &self.trial.candidates[i].sim.cluster;
        let parts = view::frame::Parts {
            lab: Some((self.lab_view(), self.labels.clone(), req.clone())),
            ..view::frame::Parts::default()
        };
        view::frame::frame(cluster, (&one, &self.label(), clock), parts)
    }
}
