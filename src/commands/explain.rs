//! `shardtop explain SOURCE --ns NS [--key DOC] [--json]`: per shard, each balancer rule of the
//! release line with its verdict and number, for one chunk, then the migration the next round
//! would start (docs/explain.md). The rules and the round are the simulator's own
//! (`sim::balancer::explain`); this module names the source, the collection and the chunk.
//!
//! May import the toolbox (`source_arg`) and the floors; never another command module.

use std::io::Write;

use super::source_arg::{SourceArg, resolve};
use super::{Failure, write_failed};
use crate::cli::ExplainArgs;
use crate::model::{KeyPattern, ShardKey};
use crate::sim::balancer::explain::Told;

pub fn run(
    args: &ExplainArgs,
    config: &crate::config::Config,
    out: &mut impl Write,
) -> Result<(), Failure> {
    let version = super::server_version(args.server_version.as_deref(), config)?;
    // Checked before the source is read (a live poll takes time).
    let key_doc = args.key.as_deref().map(key_document).transpose()?;
    let (kind, _) = SourceArg::parse(&args.source, args.at.as_deref())?;
    let resolved = resolve(&args.source, args.at.as_deref(), version)?;
    let (label, unread) = (resolved.label.clone(), resolved.unread);
    let point = resolved.fork_point(kind.forked_from());
    let sim = point.sim.clone();
    let c = sim.cluster.collection_index(&args.ns).ok_or_else(|| {
        Failure::input(format!(
            "--ns {}: no such sharded collection in {label} (it has: {})",
            args.ns,
            sim.cluster.namespaces().join(", ")
        ))
    })?;
    let key = key_doc
        .map(|doc| key_of(&doc, &sim.cluster.collections[c].pattern))
        .transpose()?;
    let diagnoses = crate::source::diagnose::of_point(point);
    let diagnosis = diagnoses.of(&args.ns);
    let told = diagnosis.map_or_else(
        || Told::Nothing("not a sharded collection: the balancer does not move it".into()),
        |d| d.next.told(),
    );
    let explanation = sim.explain(c, key.as_ref(), unread, told);
    let text = if args.json {
        let mut json = explanation.to_json();
        json["diagnosis"] = diagnosis.map_or(
            serde_json::Value::Null,
            crate::diagnosis::Diagnosis::to_json,
        );
        format!(
            "{}\n",
            serde_json::to_string_pretty(&json).unwrap_or_default()
        )
    } else {
        let at = |ms: u64| crate::units::clock_time(ms, diagnoses.unix_clock);
        let mut text = explanation.to_text();
        for line in diagnosis.map(|d| d.lines(&at)).unwrap_or_default() {
            text.push_str(&line);
            text.push('\n');
        }
        text
    };
    out.write_all(text.as_bytes()).map_err(|e| write_failed(&e))
}

/// `--key` as a document, read as the TUI's `t` reads a filter: mongosh's syntax (`{_id: 5}`,
/// `ObjectId("…")`, `ISODate("…")`) or Extended JSON (`{"x": {"$numberLong": "5"}}`).
fn key_document(text: &str) -> Result<bson::Document, Failure> {
    match crate::model::mongosh_read::value(text) {
        Ok(bson::Bson::Document(doc)) => Ok(doc),
        Ok(_) => Err(Failure::input(format!(
            "--key {text}: give a document of the shard key's fields, as '{{x: 5}}'"
        ))),
        Err(e) => Err(Failure::input(format!(
            "--key {text}: not a document in mongosh's syntax or Extended JSON: {e}"
        ))),
    }
}

/// The shard key of `doc`: every field of the pattern must be there (a hashed one is hashed).
fn key_of(doc: &bson::Document, pattern: &KeyPattern) -> Result<ShardKey, Failure> {
    for f in pattern.fields() {
        if crate::model::pattern::value_at(doc, &f.path).is_none() {
            return Err(Failure::input(format!(
                "--key: no value for the shard-key field {:?} (the key is {})",
                f.path,
                pattern.server_text()
            )));
        }
    }
    pattern
        .extract(doc)
        .map_err(|e| Failure::input(format!("--key: {e}")))
}
