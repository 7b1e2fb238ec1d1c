//! shardtop: how a MongoDB sharded cluster places its data — chunks per shard, the key space from
//! MinKey to MaxKey, the balancer and its migrations — on a real cluster, a recorded trace, or a
//! built-in simulator of MongoDB sharding.
//!
//! # Module map
//!
//! ```text
//!   main.rs ──► cli ──► commands ──┬──► runtime ──► ui ──► view ─────────┐
//!                                  ├──► source ──┬──► sim ───────┐       │
//!                                  │             ├──► trace ─────┤       │
//!                                  │             ├──► live ──────┤       │
//!                                  │             └──► lab ───────┤       │
//!                                  ├──► serve ──► sim, wire      │       │
//!                                  │                             ▼       ▼
//!                                  └───────────────────────────► cluster ──► model
//!
//!   lab ──► analyze, sim, wire         serve ──► analyze          analyze ──► model
//! ```
//!
//! * [`model`] is pure: shard-key values and their order, key patterns, the hashed-index hash,
//!   chunks and versions, the routing table, zones, query targeting. It depends on nothing but
//!   std, the bson/serde_json data types and md-5.
//! * [`cluster`] is what a sharded cluster is at one instant: shards and their state, settings,
//!   databases, collections with their routing tables and zones, the balancer's state, the
//!   migrations and reshardings in flight, the recent writes, the events that change a cluster
//!   and how a state applies them, the JSON and text summaries, the server version and MongoDB's
//!   errors ([`cluster::MongoError`]). It builds on `model` only. Every producer below yields a
//!   [`cluster::Cluster`].
//! * [`sim`] is MongoDB's rules that change a cluster over virtual time (workloads, the splitter,
//!   the balancer policy, merges, drains, resharding, scenarios): deterministic, never touching
//!   I/O or the wall clock.
//! * [`live`] reads a real cluster through a mongos into a cluster state: typed `config.*`
//!   documents of 4.4–8.0, the allowlisted read-only client (the only `mongodb::` user outside
//!   tests), the mongos-like incremental routing cache, polling and recording. It never imports
//!   `sim`.
//! * [`capture`] is one poll of a live cluster kept as its reads and replies (a capture file's
//!   records), which `live` writes and replays offline; it builds on `model`, `files` and `trace`
//!   (compression) only.
//! * [`analyze`] is `analyzeShardKey`'s rules (7.0+): a candidate key's characteristics, the
//!   read and write distribution of a traffic under it, the operations it is counted over and
//!   the sampled queries read as operations. It builds on `model` only; both `lab` and `serve`
//!   use it.
//! * [`lab`] tries candidate shard keys on a user's documents and traffic before sharding: its
//!   input (documents, traffic, a dump's unique indexes, the example), its trial (each
//!   candidate's simulated cluster, all in lockstep) and its report (numbers, verdicts, the
//!   markdown table, suggested candidates). It builds on `analyze`, `sim`, `cluster`, `model`
//!   and `wire` (BSON depth); it reads no cluster, draws and prints nothing.
//! * [`trace`] stores cluster states and events over time (files, compression, keyframes,
//!   validation, replay control); a replay applies events to a state, with no simulator.
//! * [`view`] pre-aggregates what one frame shows from a cluster state (no ratatui, no I/O), so a
//!   frame costs the same whatever the chunk count.
//! * [`source`] drives a source in time and speaks to the UI through one message type:
//!   the simulator and replays (virtual time, `Timeline` + runner), a live cluster (polling); it
//!   also records the simulator into a trace.
//! * [`ui`] is the TUI's state, reducer, key map, theme and one file per pane; rendering is a
//!   pure function of the state and never does I/O. [`runtime`] is the event loop that wires
//!   keys, source messages and frames (generic over the backend, so tests drive it). [`units`]
//!   formats quantities for people (byte sizes). [`files`] is the one writer of every file
//!   shardtop writes (through FIFOs and devices, else a temporary file renamed, never
//!   overwriting without `--force`).
//! * [`past`] rebuilds a cluster's past from its `config.changelog` and `config.actionlog`:
//!   each collection's chunk counts undone backward from the present, its migrations, balancer
//!   rounds and drains; pure, on `cluster` and `model`.
//! * [`wire`] is the MongoDB wire protocol as a server reads and writes it (framing, OP_MSG,
//!   the legacy OP_QUERY handshake); bytes ⇄ BSON documents, nothing else.
//! * [`serve`] drives the simulator as a MongoDB endpoint that behaves like a mongos: a tokio TCP
//!   server in layers (`net` → `dispatch` → `commands` → `write_path`, `catalog` → `state` →
//!   `query` → `reply`, arrows pointing down only); it answers with MongoDB's errors. Its
//!   `analyzeShardKey` uses `analyze`, never `lab`.
//! * [`config`] reads the configuration file's text (theme, key bindings, defaults) into checked
//!   settings, naming the file, line and key of any mistake.
//! * [`cli`] declares the command line (clap); [`commands`] carries out each subcommand, owns the
//!   terminal and the runtimes, and maps failures to the contract's exit codes. Only `commands`
//!   prints.

pub mod analyze;
pub mod capture;
pub mod cli;
pub mod cluster;
pub mod commands;
pub mod config;
pub mod diagnosis;
pub mod files;
pub mod lab;
pub mod live;
pub mod model;
pub mod past;
pub mod runtime;
pub mod serve;
pub mod sim;
pub mod source;
pub mod trace;
pub mod ui;
pub mod units;
pub mod view;
pub mod wire;
