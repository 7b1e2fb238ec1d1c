//! Carries out each subcommand; the only module that prints. Failures map to the contract's exit
//! codes: 1 for runtime failures the user can act on, 2 for bad usage or bad input.

use std::io::Write;
use std::process::ExitCode;

use crate::cli::{Cli, Command};
use crate::model::{KeyPattern, RoutingTable, ShardIdx, extjson, hash64};

/// A failure with the exit code it maps to.
#[derive(Debug)]
pub struct Failure {
    pub code: u8,
    pub message: String,
}

impl Failure {
    /// Bad usage or bad input (exit 2).
    pub fn input(message: impl Into<String>) -> Self {
        Self {
            code: 2,
            message: message.into(),
        }
    }

    /// A runtime failure the user can act on (exit 1).
    pub fn runtime(message: impl Into<String>) -> Self {
        Self {
            code: 1,
            message: message.into(),
        }
    }
}

/// Runs the parsed command line, printing to stdout, and returns the process exit code.
pub fn run(cli: Cli) -> ExitCode {
    let mut out = std::io::stdout().lock();
    let result = match cli.command {
        Some(Command::Hash { value }) => hash(&value, &mut out),
        None => overview(&mut out),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => {
            eprintln!("shardtop: {}", failure.message);
            ExitCode::from(failure.code)
        }
    }
}

fn write_failed(e: &std::io::Error) -> Failure {
    Failure::runtime(format!("cannot write the output: {e}"))
}

/// `shardtop hash VALUE`.
pub fn hash(value: &str, out: &mut impl Write) -> Result<(), Failure> {
    let parsed = extjson::parse(value)
        .map_err(|e| Failure::input(format!("malformed VALUE {value:?}: {e}")))?;
    writeln!(out, "{}", hash64(&parsed)).map_err(|e| write_failed(&e))
}

/// `shardtop` with no subcommand, until the TUI exists: routes a few usernames through a hashed
/// collection pre-split like MongoDB's, and says what else is available.
fn overview(out: &mut impl Write) -> Result<(), Failure> {
    let pattern = KeyPattern::parse_json(r#"{"username": "hashed"}"#)
        .map_err(|e| Failure::runtime(e.to_string()))?;
    let table = hashed_presplit(&pattern);
    let mut text = String::from(
        "shardtop — the interactive view is not built yet (see README, Status).\n\
         Meanwhile, MongoDB's placement rules are: {username: \"hashed\"} on 3 shards is \
         pre-split into 6 chunks, and these usernames route as a mongos would route them:\n\n",
    );
    for name in ["alice", "bob", "carol", "dave", "erin", "frank"] {
        let key = pattern
            .key_of(vec![crate::model::KeyValue::string(name)])
            .map_err(|e| Failure::runtime(e.to_string()))?;
        let i = table.route(&key);
        let hashed = pattern.bound_to_json(&key);
        text.push_str(&format!(
            "  {name:<6} hash {:<34} → chunk {i} on {}\n",
            hashed["username"],
            crate::model::Shard::default_name(table.chunk(i).info.shard.index())
        ));
    }
    text.push_str("\nTry: shardtop hash '\"alice\"'   ·   shardtop --help\n");
    out.write_all(text.as_bytes()).map_err(|e| write_failed(&e))
}

/// Six chunks at MongoDB's hashed split points for three shards, two per shard.
fn hashed_presplit(pattern: &KeyPattern) -> RoutingTable {
    let points = crate::model::hashed_split_points(6);
    let mut chunks = vec![(
        pattern.global_min(),
        crate::model::ChunkInfo::new(ShardIdx(0), crate::model::ChunkVersion::new(1, 0)),
    )];
    for (i, p) in points.into_iter().enumerate() {
        let shard = ShardIdx(((i + 1) / 2) as u32);
        let version = crate::model::ChunkVersion::new(1, (i + 1) as u32);
        chunks.push((
            crate::model::ShardKey::single(crate::model::KeyValue::Int64(p)),
            crate::model::ChunkInfo::new(shard, version),
        ));
    }
    RoutingTable::from_chunks(chunks, pattern.global_max()).unwrap_or_else(|_| {
        RoutingTable::single(pattern.global_min(), pattern.global_max(), ShardIdx(0))
    })
}
