//! `shardtop lab`: candidate shard keys tried on a user's documents and queries, side by side,
//! before the collection is sharded. In three parts, each importing only the ones before it:
//!
//! - [`input`]: reading the documents, the traffic, a dump's unique indexes, and seed 003's
//!   example;
//! - [`report`]: what is reported per candidate and its JSON, the verdicts, the markdown table,
//!   the proposed candidates;
//! - [`trial`]: each candidate's simulated cluster ([`trial::run`]), all of them in lockstep, and
//!   each finished run measured into its report.
//!
//! The numbers `analyzeShardKey` (7.0+) defines and the operations they are counted over are
//! [`crate::analyze`]'s. The lab reads no cluster and draws and prints nothing (the command, the
//! lab source and the UI build on it); it never imports `live`, `serve`, `source`, `view` or
//! `ui`.

pub mod input;
pub mod report;
pub mod trial;
