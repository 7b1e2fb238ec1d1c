//! The command line (the contract in the README): subcommands and their options.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

pub mod lab;

/// How a MongoDB sharded cluster places its data: chunks, key space, balancer, migrations.
#[derive(Debug, Parser)]
#[command(
    name = "shardtop",
    version,
    about,
    long_about = None,
    after_help = "Without a command: `shardtop demo ascending` (the demo options above apply)."
)]
pub struct Cli {
    /// Disable colours (also honoured: the NO_COLOR environment variable).
    #[arg(long, global = true, help_heading = GLOBAL)]
    pub no_color: bool,

    /// The configuration file (default: `$SHARDTOP_CONFIG`, else
    /// `$XDG_CONFIG_HOME/shardtop/config.toml`, else `~/.config/shardtop/config.toml`).
    #[arg(long, global = true, value_name = "PATH", help_heading = GLOBAL)]
    pub config: Option<PathBuf>,

    /// Colour theme of the TUI: dark, light, high-contrast, okabe-ito, or one defined in the
    /// configuration file.
    #[arg(long, global = true, value_name = "NAME", help_heading = GLOBAL)]
    pub theme: Option<String>,

    /// The demo's options, for `shardtop` without a command (which is `shardtop demo
    /// ascending`).
    #[command(flatten, next_help_heading = "Demo options")]
    pub demo: DemoOptions,

    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// List the built-in scenarios: name, what each teaches, what happens in it.
    Scenarios {
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// The TUI over the built-in simulator running SCENARIO (default `ascending`).
    Demo(DemoArgs),
    /// Run the simulator headless to the scenario's end and print a summary.
    Sim(SimArgs),
    /// The TUI over a recorded trace (from `sim --record`); `--json` prints a summary instead.
    Replay(ReplayArgs),
    /// Run the simulator as a MongoDB endpoint that behaves like a mongos (mongosh, drivers).
    ///
    /// Without SCENARIO: an empty cluster of three shards (shard0000…shard0002), balancer on.
    Serve(ServeArgs),
    /// The TUI over a live cluster, through a mongos (read-only); `--once --json` prints the
    /// summary of one poll.
    Watch(WatchArgs),
    /// Try candidate shard keys side by side on your documents and queries, before sharding.
    ///
    /// Each candidate gets a simulated cluster of its own: the first documents are laid out as
    /// reshardCollection would lay them out for that key, the rest arrive as new inserts with
    /// the balancer on. Prints a table comparing the candidates (one row each: how the writes
    /// spread, the shards each query asks, whether the key's chunks can divide) and each key's numbers as analyzeShardKey defines
    /// them.
    Lab(lab::LabArgs),
    /// Record a live cluster (read-only) into a trace that `replay` reads.
    Record(RecordArgs),
    /// One read-only poll of a live cluster kept whole in one file, to open anywhere with `open`.
    ///
    /// The file holds every read the poll made and the cluster's answer (or its refusal), in
    /// Extended JSON; `.gz` or `.zst` compresses it. See docs/capture.md.
    Capture(CaptureArgs),
    /// The TUI over a capture (a still state: no clock); `--json` prints the summary `watch --once
    /// --json` printed for the same poll.
    Open(OpenArgs),
    /// Why a chunk moves or not: per shard, each balancer rule of the release line with its
    /// verdict and number, then the migration the next round would start.
    ///
    /// SOURCE: `sim:SCENARIO[@T]` (the simulator at virtual time T, default the scenario's end),
    /// a capture file (`shardtop capture`: the poll it kept), a trace file (with `--at T`, default
    /// its end), or `mongodb://…` / `mongodb+srv://…` (one read-only poll). See docs/explain.md.
    Explain(ExplainArgs),
    /// Fork a source into the simulator, change it (shards added or drained, chunk size,
    /// window, balancer, reshard) and predict when the collection is balanced, each drain done,
    /// the migrations and bytes moved, the blockers met and the end state per shard.
    ///
    /// SOURCE: `sim:SCENARIO[@T]`, a capture file, a trace file (with `--at T`), or
    /// `mongodb://…` / `mongodb+srv://…` (one read-only poll). See docs/whatif.md.
    Whatif(WhatifArgs),
    /// Print MongoDB's hashed-index value of VALUE (what convertShardKeyToHashed returns).
    ///
    /// VALUE is Extended JSON: '"abc"', '42', '{"$oid":"…"}', '{"$numberLong":"42"}'. The result is
    /// one signed 64-bit integer in decimal.
    Hash {
        /// The value, as Extended JSON.
        #[arg(allow_hyphen_values = true)]
        value: String,
    },
    /// The configuration file: `--print-template` prints every setting with its default.
    Config {
        /// Print a commented template of every setting (nothing is written anywhere).
        #[arg(long, required = true)]
        print_template: bool,
    },
    /// Print a shell completion script (e.g. `shardtop completions bash > ~/.local/share/bash-completion/completions/shardtop`).
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Print the manual page in roff (e.g. `shardtop man | man -l -`).
    Man,
}

/// Options of `shardtop sim`.
#[derive(Debug, Args)]
pub struct SimArgs {
    /// A built-in scenario (see `shardtop scenarios`).
    #[arg(required_unless_present = "scenario_file")]
    pub scenario: Option<String>,
    /// Seed of the simulation's random numbers (default: the scenario's).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Stop at this virtual time in seconds (0 = right after the collection is sharded).
    #[arg(long, allow_negative_numbers = true)]
    pub until: Option<f64>,
    /// Print the JSON summary instead of text.
    #[arg(long)]
    pub json: bool,
    /// Include every chunk in the JSON summary.
    #[arg(long)]
    pub chunks: bool,
    /// Print the event log (splits, migrations, jumbo marks, balancer rounds…) before the
    /// summary; write batches are left out.
    #[arg(long, conflicts_with = "json")]
    pub events: bool,
    /// Simulate this MongoDB release line (4.4, 5.0, 6.0, 7.0, 8.0, …).
    #[arg(long)]
    pub server_version: Option<String>,
    /// Run a scenario file instead of a built-in scenario.
    #[arg(long, conflicts_with = "scenario")]
    pub scenario_file: Option<PathBuf>,
    /// Record the run into a trace (`.gz` or `.zst` to compress), for `shardtop replay`.
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,
    /// Write the TUI's screen at the end (or `--until`) to FILE (`.txt`, `.ansi`, `.svg`,
    /// `.png`), or the whole run as an asciicast (`.cast`), instead of the summary.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["json", "events", "record"])]
    pub export: Option<PathBuf>,
    /// Replace a file already at `--record` or `--export` (otherwise refused, exit 2).
    #[arg(long)]
    pub force: bool,
    /// The exported screen's size (default 120x40).
    #[arg(long, value_name = "COLSxROWS", requires = "export")]
    pub size: Option<String>,
    /// The exported screen: the main layout, the key visualizer or the history view.
    #[arg(long, value_enum, default_value = "main", requires = "export")]
    pub view: ExportView,
    /// Add to each collection of the JSON summary its writes per key range (ROWS) and interval
    /// (COLS) over the run.
    #[arg(long, value_name = "COLSxROWS", requires = "json")]
    pub heatmap: Option<String>,
    /// Add to each collection of the JSON summary its data, chunks and writes per shard,
    /// sampled every virtual second (the newest 3,600 samples).
    #[arg(long, requires = "json")]
    pub history: bool,
}

/// Options of `shardtop watch`.
#[derive(Debug, Args)]
pub struct WatchArgs {
    /// `mongodb://…` or `mongodb+srv://…` of a mongos (the password never appears anywhere).
    pub uri: String,
    /// Time between polls: `2s`, `500ms`, `1m` (default 2s, or the configuration's).
    #[arg(long)]
    pub interval: Option<String>,
    /// Show this collection first (`db.coll`).
    #[arg(long)]
    pub ns: Option<String>,
    /// Write heat: `auto` (chosen after the first poll by what this user may read and what it
    /// costs the cluster: change streams where granted on at most 100 collections, else sampled
    /// queries when the cluster already samples some, else data growth; `--once`: growth),
    /// `size` (each shard's share of the growth between polls), `sampled`
    /// (`$listSampledQueries`, 7.0+, where query sampling is already enabled), `changestream`
    /// (change streams on the watched collections, mapped to chunks) or `off`. Default `auto`,
    /// or the configuration's.
    #[arg(long)]
    pub heat: Option<String>,
    /// Poll once and exit (with `--json`: the JSON summary; else the text summary).
    #[arg(long)]
    pub once: bool,
    /// Print the JSON summary (with `--once`).
    #[arg(long, requires = "once")]
    pub json: bool,
    /// List every read `watch` makes and whether this user may make it (from `connectionStatus`),
    /// with the roles that grant it; exit 0 when the view can run, 1 otherwise.
    #[arg(long, conflicts_with_all = ["once", "json"])]
    pub check: bool,
}

/// Options of `shardtop record`.
#[derive(Debug, Args)]
pub struct RecordArgs {
    /// `mongodb://…` or `mongodb+srv://…` of a mongos.
    pub uri: String,
    /// The trace file (`.gz` or `.zst` to compress).
    #[arg(short, long, value_name = "FILE")]
    pub output: PathBuf,
    /// Replace a file already at `--output` (otherwise refused, exit 2).
    #[arg(long)]
    pub force: bool,
    /// Stop after this long (`30s`, `10m`, `1h`); otherwise until Ctrl-C.
    #[arg(long)]
    pub duration: Option<String>,
    /// Time between polls (one keyframe each); default 2s, or the configuration's.
    #[arg(long)]
    pub interval: Option<String>,
}

/// Options of `shardtop capture`.
#[derive(Debug, Args)]
pub struct CaptureArgs {
    /// `mongodb://…` or `mongodb+srv://…` of a mongos (the password never appears anywhere), or,
    /// with `--anonymize`, a capture file to write anonymized.
    #[arg(required_unless_present = "script")]
    pub uri: Option<String>,
    /// The capture file (`.gz` or `.zst` to compress); with `--script`, the script's file.
    #[arg(short, long, value_name = "FILE", required_unless_present = "script")]
    pub output: Option<PathBuf>,
    /// Replace a file already at `--output` (otherwise refused, exit 2).
    #[arg(long)]
    pub force: bool,
    /// Replace every database, collection, shard, host, zone and user name by a stable pseudonym
    /// and every shard-key value by an order-preserving stand-in (docs/capture.md#anonymize).
    #[arg(long, conflicts_with = "script")]
    pub anonymize: bool,
    /// Print a mongosh script that makes the same capture without shardtop:
    /// `mongosh URI --quiet --file capture.js > FILE` (docs/capture.md).
    #[arg(long, conflicts_with = "uri")]
    pub script: bool,
    /// With `--script`: the mongos's version (`7.0`, `8.0.12`); the script stops on another.
    #[arg(long, value_name = "VERSION", requires = "script")]
    pub server_version: Option<String>,
}

/// Options of `shardtop open`.
#[derive(Debug, Args)]
pub struct OpenArgs {
    /// The capture file (from `shardtop capture`).
    pub file: PathBuf,
    /// Print the JSON summary instead of the TUI.
    #[arg(long)]
    pub json: bool,
    /// Show this collection first (`db.coll`).
    #[arg(long)]
    pub ns: Option<String>,
}

impl DemoOptions {
    /// Whether any is given (before a command, where they do not belong).
    pub fn any(&self) -> bool {
        self.seed.is_some()
            || self.speed.is_some()
            || self.server_version.is_some()
            || self.scenario_file.is_some()
            || self.paused
    }
}

/// The heading of the options every command takes, apart from each command's own in `--help`.
const GLOBAL: &str = "Global options";

/// Options of `shardtop demo`.
#[derive(Debug, Args, Default)]
pub struct DemoArgs {
    /// A built-in scenario (see `shardtop scenarios`); default `ascending`.
    #[arg(conflicts_with = "scenario_file")]
    pub scenario: Option<String>,
    #[command(flatten)]
    pub options: DemoOptions,
}

/// The options of the demo, with `shardtop demo` or without a command.
#[derive(Debug, Args, Default)]
pub struct DemoOptions {
    /// Seed of the simulation's random numbers (default: the scenario's).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Virtual seconds per real second (keys + and - change it while running); default 4, or
    /// the configuration's.
    #[arg(long)]
    pub speed: Option<f64>,
    /// Simulate this MongoDB release line (4.4, 5.0, 6.0, 7.0, 8.0, …).
    #[arg(long)]
    pub server_version: Option<String>,
    /// Run a scenario file instead of a built-in scenario.
    #[arg(long)]
    pub scenario_file: Option<PathBuf>,
    /// Start paused (Space plays).
    #[arg(long)]
    pub paused: bool,
}

/// Options of `shardtop replay`.
#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// The trace file.
    pub file: PathBuf,
    /// Print the JSON summary of the state at `--at` (default: the end) and exit.
    #[arg(long)]
    pub json: bool,
    /// The trace time in seconds.
    #[arg(long, allow_negative_numbers = true)]
    pub at: Option<f64>,
    /// Include every chunk in the JSON summary.
    #[arg(long)]
    pub chunks: bool,
    /// Trace seconds per real second in the TUI; default 4, or the configuration's.
    #[arg(long)]
    pub speed: Option<f64>,
    /// Start paused (Space plays).
    #[arg(long)]
    pub paused: bool,
    /// Write the TUI's screen at the end (or `--at`) to FILE (`.txt`, `.ansi`, `.svg`, `.png`),
    /// or the whole trace as an asciicast (`.cast`).
    #[arg(long, value_name = "FILE", conflicts_with = "json")]
    pub export: Option<PathBuf>,
    /// Replace a file already at `--export` (otherwise refused, exit 2).
    #[arg(long, requires = "export")]
    pub force: bool,
    /// Add to each collection of the JSON summary its writes per key range (ROWS) and interval
    /// (COLS) from the start of the trace to `--at`.
    #[arg(long, value_name = "COLSxROWS", requires = "json")]
    pub heatmap: Option<String>,
    /// Add to each collection of the JSON summary its data, chunks and writes per shard,
    /// sampled every trace second (the newest 3,600 samples).
    #[arg(long, requires = "json")]
    pub history: bool,
    /// The exported screen's size (default 120x40).
    #[arg(long, value_name = "COLSxROWS", requires = "export")]
    pub size: Option<String>,
    /// The exported screen: the main layout, the key visualizer or the history view.
    #[arg(long, value_enum, default_value = "main", requires = "export")]
    pub view: ExportView,
}

/// The screen `--export` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ExportView {
    Main,
    Heatmap,
    History,
}

/// Options of `shardtop serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// A built-in scenario (see `shardtop scenarios`); default: an empty three-shard cluster.
    pub scenario: Option<String>,
    /// Address to listen on; a non-loopback address needs `--allow-remote`.
    #[arg(long, default_value = "127.0.0.1:27017")]
    pub listen: String,
    /// Allow listening on a non-loopback address (there is no authentication).
    #[arg(long)]
    pub allow_remote: bool,
    /// Start with the simulator's clock stopped (the scenario's workload does not run).
    #[arg(long)]
    pub paused: bool,
    /// Simulate this MongoDB release line (4.4, 5.0, 6.0, 7.0, 8.0, …).
    #[arg(long)]
    pub server_version: Option<String>,
    /// Seed of the simulation's random numbers (default: the scenario's).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Run a scenario file instead of a built-in scenario.
    #[arg(long, conflicts_with = "scenario")]
    pub scenario_file: Option<PathBuf>,
    /// Write one JSON line per command received (command, db, ns, durationMicros).
    #[arg(long, value_name = "FILE")]
    pub log_commands: Option<PathBuf>,
    /// Documents kept in memory in all; past it writes are routed and counted, not kept.
    #[arg(long, value_name = "N", default_value_t = crate::serve::DEFAULT_MAX_DOCS)]
    pub max_docs: u64,
    /// BSON bytes of the documents kept in memory in all (default 512 MiB); a write past it is
    /// refused with ExceededMemoryLimit, as MongoDB's in-memory storage engine refuses one past
    /// its cache.
    #[arg(long, value_name = "BYTES", default_value_t = crate::serve::DEFAULT_MAX_BYTES)]
    pub max_bytes: u64,
    /// Answer as a user with these built-in roles (`clusterMonitor,read@shop`): connectionStatus
    /// reports them, and reads and writes they do not grant are refused (Unauthorized), as on
    /// a cluster with access control; there is no login.
    #[arg(long, value_name = "ROLE@DB,…")]
    pub user_roles: Option<String>,
}

/// Options of `shardtop explain`.
#[derive(Debug, Args)]
pub struct ExplainArgs {
    /// `sim:SCENARIO[@T]`, a capture file, a trace file, or `mongodb://…` / `mongodb+srv://…`.
    pub source: String,
    /// The collection (`db.coll`).
    #[arg(long)]
    pub ns: String,
    /// The chunk holding this shard-key value, in mongosh's syntax as `t` takes it (`'{_id: 5}'`,
    /// `'{customerId: 7, placedAt: ISODate("2026-01-01")}'`) or Extended JSON (`'{"x": 5}'`);
    /// default: the chunk the next round moves, else the hottest.
    #[arg(long, value_name = "DOC")]
    pub key: Option<String>,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
    /// A trace file's time (`90s`, `5m`; default: its end).
    #[arg(long, value_name = "T")]
    pub at: Option<String>,
    /// Run a `sim:` source as this release line (4.4, 5.0, 6.0, 7.0, 8.0).
    #[arg(long, value_name = "V")]
    pub server_version: Option<String>,
}

/// Options of `shardtop whatif`.
#[derive(Debug, Args)]
pub struct WhatifArgs {
    /// `sim:SCENARIO[@T]`, a capture file, a trace file, or `mongodb://…` / `mongodb+srv://…`.
    pub source: String,
    /// The collection (`db.coll`).
    #[arg(long)]
    pub ns: String,
    /// Add N empty shards (named added01, added02…).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub add_shards: u32,
    /// Drain SHARD (removeShard); repeat for several (one at a time before 8.3).
    #[arg(long, value_name = "SHARD")]
    pub drain: Vec<String>,
    /// Set the chunk size (config.settings chunksize), MB.
    #[arg(long, value_name = "MB")]
    pub chunk_size: Option<u64>,
    /// Set the balancer's active window, `HH:MM-HH:MM` (on the source's clock, UTC for a live
    /// cluster).
    #[arg(long, value_name = "HH:MM-HH:MM")]
    pub window: Option<String>,
    /// Start or stop the balancer.
    #[arg(long, value_name = "on|off")]
    pub balancer: Option<String>,
    /// Reshard the collection to this key (`'{"k": 1}'`).
    #[arg(long, value_name = "KEY")]
    pub reshard: Option<String>,
    /// How far to run past the fork (`90s`, `30m`, `6h`; default 24 h).
    #[arg(long, value_name = "T")]
    pub until: Option<String>,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
    /// A trace file's time (`90s`, `5m`; default: its end).
    #[arg(long, value_name = "T")]
    pub at: Option<String>,
    /// Run a `sim:` source as this release line (4.4, 5.0, 6.0, 7.0, 8.0).
    #[arg(long, value_name = "V")]
    pub server_version: Option<String>,
}
