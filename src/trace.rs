//! Traces: one versioned, seekable recording format for the simulator and live clusters —
//! newline-delimited JSON with a header, events, periodic keyframes of the full state, and an end
//! marker; compressed by file name (`.gz`, `.zst`). See `docs/trace-format.md`.
//!
//! Owns: the trace format, writing, reading, validation and replay control.
//! Builds on `model` and on the simulator's state and event types (`sim`), which both the
//! simulator and the live source produce. May not touch: tokio, mongodb, ratatui.

pub mod event_codec;
pub mod fast;
pub mod header;
pub mod json;
pub mod reader;
pub mod record;
pub mod replay;
pub mod state_codec;
pub mod writer;

pub use header::Header;
pub use reader::{Notable, ReadOptions, TraceError, TraceFile};
pub use replay::Replay;
