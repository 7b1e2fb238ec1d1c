//! Traces: one versioned, seekable recording format for the simulator and live clusters —
//! newline-delimited JSON with a header, events, periodic keyframes of the full state, and an end
//! marker; compressed by file name (`.gz`, `.zst`). See `docs/trace-format.md`.
//!
//! Owns: the trace format, writing, reading, validation and replay control: cluster states and
//! events over time. Builds on `cluster` (a replay applies events to a [`Cluster`] state, with no
//! simulator) and `model`. May not touch: `sim`, tokio, mongodb, ratatui.
//!
//! [`Cluster`]: crate::cluster::Cluster

mod compression;
pub mod event_codec;
pub mod fast;
pub mod header;
pub mod json;
mod keyframe_check;
pub mod keyframe_sanity;
mod lines;
pub mod logged;
mod probe;
pub mod reader;
pub mod replay;
pub mod state_codec;
pub mod writer;

pub use header::Header;
pub use logged::{LogCollection, Logged};
pub use reader::{Notable, ReadOptions, TraceError, TraceFile};
pub use replay::Replay;
