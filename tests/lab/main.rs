//! The lab: analyzeShardKey's key characteristics, the orders example of seed 003, `--from` against
//! `serve`, and the data, traffic and log readers.
//! What belongs here: a test of `lab` or `analyze` in process.
#![allow(clippy::unwrap_used)] // tests: a failed unwrap is a failed test

mod characteristics;
#[path = "../common/mod.rs"]
mod common;
mod example;
mod from;
mod readers;
mod rules;
mod targeting;
mod verdicts;
