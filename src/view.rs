//! What the TUI shows, pre-aggregated: a `ClusterView` is built by a source (simulator, replay,
//! live cluster) from its cluster state for one `ViewRequest` (which collection, which window
//! of its chunks, how many strip cells, which cell is selected). Everything here is plain data,
//! so rendering a frame costs the same whatever the number of chunks.
//!
//! Owns: the view types, their construction from a [`Cluster`](crate::cluster::Cluster) state, and
//! event-log lines. May not touch: terminals, ratatui, tokio or any I/O.

mod build;
pub mod conformance;
pub mod diagnosis;
pub mod event_detail;
pub mod explain;
pub mod frame;
pub mod history;
pub mod key_visualizer;
pub mod lab;
mod log;
mod query;
mod strip;
pub mod whatif;

/// A source's refused reads, shown where the part of the state they feed is shown.
pub use crate::cluster::privileges::{Feeds, RefusedRead};
pub use build::build;
pub use event_detail::{EventDetail, EventDocument, EventError};
pub use log::{LogKind, LogLine, MigrationEntry, MigrationStep, append as append_log, log_line};

/// What the UI asks the source to aggregate.
#[derive(Clone, Debug, PartialEq)]
pub struct ViewRequest {
    /// Index of the collection (in namespace order).
    pub collection: usize,
    /// The visible window of the collection's chunks, as fractions of the chunk list: start and
    /// span (1.0 = all chunks).
    pub start: f64,
    pub span: f64,
    /// The strip's width in cells (terminal columns).
    pub cells: usize,
    /// The selected strip cell, if any.
    pub selected: Option<usize>,
    /// A query filter (relaxed Extended JSON) whose targeting to show.
    pub query: Option<String>,
    /// The key visualizer, when it is shown.
    pub heatmap: Option<key_visualizer::KeyVisualizerRequest>,
    /// The history view, when it is shown.
    pub history: Option<history::HistoryRequest>,
    /// The explain panel is open: explain the selected cell's first chunk.
    pub explain: bool,
}

impl Default for ViewRequest {
    fn default() -> Self {
        Self {
            collection: 0,
            start: 0.0,
            span: 1.0,
            cells: 64,
            selected: None,
            query: None,
            heatmap: None,
            history: None,
            explain: false,
        }
    }
}

/// The playback clock as the source reports it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ClockView {
    pub time_ms: u64,
    pub paused: bool,
    pub speed: f64,
    /// The end of a trace (replay) or of the scenario (simulator); `None` for live clusters.
    pub end_ms: Option<u64>,
    /// Whether the time is virtual (simulator, replay of a simulator's trace) or wall-clock
    /// (a live cluster, a replay of a live recording).
    pub virtual_time: bool,
    /// A replay of a live recording: the wall-clock milliseconds since the epoch of its time 0
    /// (the trace header's `startEpochSeconds`). Its times (`time_ms`, `end_ms`, log lines, time
    /// axes) are trace times, shown as wall-clock UTC time as the live view showed them.
    pub wall_start_ms: Option<u64>,
}

impl ClockView {
    /// A live cluster now (not a replay of a recording of one): it cannot be stepped or seeked.
    pub fn is_live(&self) -> bool {
        !self.virtual_time && self.wall_start_ms.is_none()
    }

    /// A time of this source as shown: a live recording's trace time as wall-clock milliseconds
    /// since the epoch; any other unchanged.
    pub fn shown_ms(&self, ms: u64) -> u64 {
        ms.saturating_add(self.wall_start_ms.unwrap_or(0))
    }
}

/// One migration in flight.
#[derive(Clone, Debug, PartialEq)]
pub struct MigrationView {
    pub id: u64,
    pub ns: String,
    pub range: String,
    pub from: String,
    pub to: String,
    /// 0.0..=1.0; `None` when the end is unknown (a live cluster).
    pub progress: Option<f64>,
    /// MongoDB's word for why it runs, or `unknown`.
    pub reason: String,
    /// The range's size; `None` when unknown.
    pub bytes: Option<u64>,
    /// `bytes` is an estimate (a live cluster's), not a measured size.
    pub bytes_estimated: bool,
}

/// The balancer.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BalancerView {
    /// The balancer migrates (mode `full`).
    pub enabled: bool,
    /// MongoDB's name of the mode: `full`, `autoSplitOnly` (never migrates) or `off`.
    pub mode: &'static str,
    /// `"02:00–06:00"` when an active window is set.
    pub window: Option<String>,
    /// The config server's reason when it rejects the balancer document's `activeWindow`: no
    /// round runs until it is fixed.
    pub window_rejected: Option<String>,
    pub in_round: bool,
    pub rounds: u64,
    pub completed: u64,
    /// The log a live cluster's `completed` is counted from (`"changelog"` or `"actionlog"`);
    /// `None`: the simulator's own count.
    pub completed_from: Option<&'static str>,
    pub failed: u64,
    pub in_flight: Vec<MigrationView>,
    /// One line each: why it is or is not balancing.
    pub why_not: Vec<String>,
    /// One line per draining shard of a live cluster: what remains, what blocks it, an estimate.
    pub drains: Vec<String>,
    /// `"data size"` (6.0.3+) or `"chunk count"` (before 6.0.3; a simulated 6.0 evens data size).
    pub policy: &'static str,
    /// Whether the AutoMerger is enabled (`None` before 7.0, which has none).
    pub auto_merger: Option<bool>,
}

/// How far back "recent writes" go, in seconds of the source's clock (`cluster::hotspot`).
pub const RECENT_SECS: u64 = crate::cluster::hotspot::WINDOW_MS / 1000;

/// One shard's row for the selected collection.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ShardRow {
    pub id: String,
    pub zones: Vec<String>,
    pub draining: bool,
    /// Named by chunks but not listed in `config.shards` (a live cluster's catalog).
    pub unlisted: bool,
    /// The shard's reported size of the collection was out of what a server reports: `docs`
    /// and `bytes` are not known.
    pub sizes_invalid: bool,
    /// The config server acting as a shard (8.0+ config shard).
    pub config_shard: bool,
    pub chunks: u64,
    pub jumbo: u64,
    pub docs: u64,
    pub bytes: u64,
    /// Share of the collection's recent writes (0.0..=1.0): the writes of the last 60 s of the
    /// source's clock; with a live `--heat size`, the share of the growth between two polls.
    pub write_share: f64,
    /// `write_share` is not known yet (a live `--heat size` measures growth between two polls):
    /// shown as unknown, never as 0%.
    pub share_unknown: bool,
    /// A hotspot by `cluster::hotspot`'s rule (never from growth alone).
    pub hot: bool,
    /// Writes routed to the shard since the start.
    pub writes: u64,
    /// Documents and bytes migrations left here for the range deleter (not owned).
    pub orphaned_docs: u64,
    pub orphaned_bytes: u64,
}

/// One cell of the key-space strip: a run of consecutive chunks.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Cell {
    /// Ordinal of the first chunk and number of chunks.
    pub first: usize,
    pub count: usize,
    /// The shard owning most of the cell's chunks (by index into `ClusterView::shards`).
    pub shard: usize,
    /// Whether the chunks of the cell live on more than one shard.
    pub mixed: bool,
    /// The shards owning the cell's chunks looked at (its sample: see `view::strip`), by index
    /// into `ClusterView::shards`, ascending: what lights a cell for a shard picked in the list.
    pub owners: Vec<usize>,
    pub jumbo: bool,
    /// The cell holds the hottest chunk and it is a hotspot by `cluster::hotspot`'s rule.
    pub hot: bool,
    /// Recent writes to the cell's chunks.
    pub writes: u64,
    /// Index into `CollectionView::zone_names`.
    pub zone: Option<usize>,
    /// A chunk of the cell lies in a zone range but not on one of that zone's shards.
    pub outside_zone: bool,
    /// The query being shown targets a chunk of the cell.
    pub targeted: bool,
}

/// The selected cell in words.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Selection {
    pub first: usize,
    pub count: usize,
    pub min: String,
    pub max: String,
    pub shards: Vec<String>,
    pub docs: u64,
    pub bytes: u64,
    pub writes: u64,
    pub jumbo: usize,
    pub zone: Option<String>,
    /// The chunk version when one chunk is selected.
    pub version: Option<String>,
}

/// Which shards a mongos would ask for the query (`explain`'s winning stage).
#[derive(Clone, Debug, PartialEq)]
pub enum QueryView {
    Targeted {
        filter: String,
        /// `SINGLE_SHARD` or `SHARD_MERGE`.
        stage: &'static str,
        shards: Vec<String>,
        chunks: usize,
    },
    /// The filter is not a JSON document.
    Invalid { filter: String, error: String },
}

/// The hottest chunk of the recent-writes window (the most written in the last 60 s).
#[derive(Clone, Debug, PartialEq)]
pub struct HotChunk {
    pub ordinal: usize,
    pub shard: String,
    pub share: f64,
    pub range: String,
    /// A hotspot by `cluster::hotspot`'s rule, not only the most written.
    pub hot: bool,
}

/// The selected collection.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CollectionView {
    /// The name a person knows it by (a time-series collection: its view, not its buckets).
    pub ns: String,
    /// What keeps the balancer, migrations or the AutoMerger from it (`noBalance`,
    /// `permitMigrations: false`, `enableAutoMerge: false`, a defragmentation).
    pub balancing: Vec<String>,
    /// A time-series collection: its documents (`docs`) are buckets, not measurements.
    pub buckets: bool,
    /// An untracked unsharded collection (no shard key, no chunk in the catalog): the key space
    /// stands for the whole collection on its shard.
    pub untracked: bool,
    pub key: String,
    pub chunks: usize,
    pub jumbo: u64,
    pub docs: u64,
    pub bytes: u64,
    /// The window's first chunk ordinal and its number of chunks.
    pub window_first: usize,
    pub window_len: usize,
    pub cells: Vec<Cell>,
    pub zone_names: Vec<String>,
    pub hot: Option<HotChunk>,
    /// Writes in the recent-writes window (the last 60 s of the source's clock).
    pub recent_writes: u64,
    pub selection: Option<Selection>,
    pub query: Option<QueryView>,
    /// What reshapes the collection now: a resharding, a defragmentation phase.
    pub activity: Option<String>,
}

/// Everything one frame shows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ClusterView {
    pub source: String,
    pub server_version: String,
    pub clock: ClockView,
    pub balancer: BalancerView,
    pub shards: Vec<ShardRow>,
    pub collections: Vec<String>,
    pub collection: Option<CollectionView>,
    /// The request this view answers.
    pub request: ViewRequest,
    /// The write signal: `None` for the simulator and replays (every write is seen); for a live
    /// cluster, the heat mode in use (`"off"`: no write signal, shares are unknown).
    pub heat: Option<&'static str>,
    /// The write signal was chosen by `--heat auto`, not asked for.
    pub heat_auto: bool,
    /// Reads a live cluster refused to this user, each with what it needs (the pane it feeds
    /// says so; everything else goes on).
    pub refused: Vec<RefusedRead>,
    /// A live source whose last poll failed: since when (wall-clock ms) it has had no answer;
    /// the state shown is the last one polled, its writes unknown (see
    /// [`ClusterView::disconnected`]).
    pub disconnected_since: Option<u64>,
    /// The key visualizer's frame, when asked for and the source keeps per-chunk writes.
    pub heatmap: Option<key_visualizer::KeyVisualizerView>,
    /// The history view's frame, when asked for and the source keeps history.
    pub history: Option<history::HistoryView>,
    /// The lab's candidates side by side, when the source is `shardtop lab`.
    pub lab: Option<lab::LabView>,
    /// A still state (a capture opened with `open`): what the header says in place of the live
    /// state — when it was taken; no clock runs and nothing is polled.
    pub still: Option<String>,
    /// The explain panel, when asked for and the source can run the balancer's rules.
    pub explain: Option<explain::ExplainView>,
    /// Each drain and the selected collection's resharding under way: its share done (0 to 1),
    /// `None` when the source does not tell it (the terminal's progress indicator shows these).
    pub under_way: Vec<Option<f64>>,
    /// Whether the cluster does what its release line's balancer rules say, over the polls seen
    /// (a live source or a live recording; `None` for the others).
    pub conformance: Option<conformance::Conformance>,
    /// The what-if mode's fork beside this view, when the UI asked for one.
    pub whatif: Option<Box<whatif::WhatIfView>>,
    /// The what-if fork asked for, while it is being made on a thread of its own: how far it got
    /// (`4312 of 10000 shards added`).
    pub forking: Option<String>,
    /// The selected collection's diagnosis (`None`: the source has none yet, or the collection
    /// is not sharded).
    pub diagnosis: Option<diagnosis::DiagnosisView>,
    /// Each draining shard: what is left and its estimate, as the diagnosis says it.
    pub drain_estimates: Vec<String>,
}

impl ClusterView {
    /// The hotspot shard (`cluster::hotspot`'s rule over the last 60 s of writes), if any.
    pub fn hot_shard(&self) -> Option<usize> {
        self.shards.iter().position(|s| s.hot)
    }

    /// The view of a live source whose polls fail since `since_ms` (wall-clock): the last state
    /// polled, but its writes unknown at once. The last poll's window says where writes went up
    /// to that poll, not now, so nothing claims a current hotspot: no shard or chunk is hot, no
    /// share or recent write is shown (the panes say the writes are unknown since the
    /// disconnection). What the cluster held (chunks, sizes, zones) stays: it is the last known.
    /// `None`: connected, nothing changes.
    pub fn disconnected(&mut self, since_ms: Option<u64>) {
        if since_ms.is_none() {
            return;
        }
        self.disconnected_since = since_ms;
        for row in &mut self.shards {
            row.hot = false;
            row.write_share = 0.0;
        }
        if let Some(c) = self.collection.as_mut() {
            c.hot = None;
            c.recent_writes = 0;
            for cell in &mut c.cells {
                cell.hot = false;
                cell.writes = 0;
            }
        }
    }
}
