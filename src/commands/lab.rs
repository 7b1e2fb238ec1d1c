//! `shardtop lab`: reads the documents and the traffic, tries every candidate key in lockstep
//! ([`crate::lab::trial`]) and prints the report (text, `--markdown` or `--json`). Its parts:
//! `from` reads a live collection (`--from`), `tui` shows the trial in a terminal.

mod from;
mod tui;

use std::io::{IsTerminal, Write};
use std::path::Path;

use bson::Document;

use super::{Failure, write_failed};
use crate::analyze::operation::Operation;
use crate::cli::lab::{LabArgs, LabExample};
use crate::lab::input::{data, dump, example, traffic};
use crate::lab::report::markdown;
use crate::lab::report::suggest::{self, FieldStats, Reservoir, Suggestion};
use crate::lab::trial::run::{ClusterSpec, ZoneRangeSpec};
use crate::lab::trial::{Arrival, Trial};
use crate::model::KeyPattern;

/// The fewest and most candidates compared at once.
const CANDIDATES: std::ops::RangeInclusive<usize> = 2..=6;

pub(super) type Docs = Box<dyn Iterator<Item = Result<(Document, u64), Failure>>>;

pub fn run(
    args: &LabArgs,
    ctx: &super::settings::Context,
    out: &mut impl Write,
) -> Result<(), Failure> {
    check_inputs(args)?;
    let version = super::server_version(args.server_version.as_deref(), &ctx.config)?
        .unwrap_or(crate::cluster::ServerVersion::DEFAULT);
    let spec = cluster_spec(args, version)?;
    let mut from = match (&args.from, &args.ns) {
        (Some(uri), Some(ns)) => Some(from::read(uri, ns, args.sample, args.sampled_queries)?),
        _ => None,
    };
    let mut unique = unique_indexes(args)?;
    if let Some(path) = &args.data {
        let found = dump::unique_indexes(path).map_err(|e| Failure::input(e.to_string()))?;
        add_unique(&mut unique, found);
    }
    let (mut traffic, skipped) = traffic(args)?;
    if let Some(f) = from.as_mut() {
        add_unique(&mut unique, f.unique.drain(..));
        traffic.append(&mut f.traffic);
    }
    let (total, stats, docs) = documents(args, from.map(|f| f.docs))?;
    let suggested = suggestions(args, &traffic, &stats, total)?;
    let keys = candidates(args, &suggested)?;
    let interactive = !(args.json || args.markdown || args.text) && std::io::stdout().is_terminal();
    let arrival = Arrival {
        from_empty: args.from_empty,
        initial_docs: total * u64::from(args.initial.min(100)) / 100,
        rate_per_sec: args.rate,
    };
    if interactive && args.chunk_map.is_some() {
        return Err(Failure::input(
            "--chunk-map: the chunk map is the report's final layout; give --text, --json or --markdown with it",
        ));
    }
    if interactive {
        let trial = tui::TrialSpec {
            spec,
            arrival,
            keys,
            unique,
        };
        return tui::run(args, ctx, trial, docs, traffic);
    }
    let mut trial = Trial::new(spec, arrival, &keys, &unique).map_err(Failure::input)?;
    let mut docs = docs;
    trial.run_to_end(&mut docs)?;
    let report = trial.finish(&traffic, &unique);
    for c in &report.candidates {
        if let Some(field) = crate::lab::report::verdict::absent_field(c) {
            return Err(Failure::input(format!(
                "--key {}: no document has the field {field}",
                markdown::shell(&c.key.to_document())
            )));
        }
    }
    write_chunk_map(args, &report)?;
    let text = if args.json {
        let mut json = report.to_json();
        if args.log.is_some() {
            json["logSkippedLines"] = serde_json::json!({
                "count": skipped.lines,
                "first": skipped.first.as_ref().map(|(line, why)| serde_json::json!({"line": line, "reason": why})),
                "lines": skipped.named.iter().map(|(line, why)| serde_json::json!({"line": line, "reason": why})).collect::<Vec<_>>(),
            });
        }
        if args.suggest {
            json["suggested"] = suggested
                .iter()
                .map(|s| serde_json::json!({"key": key_json(&s.key), "reason": s.reason}))
                .collect();
        }
        let mut s =
            serde_json::to_string_pretty(&json).map_err(|e| Failure::runtime(e.to_string()))?;
        s.push('\n');
        s
    } else if args.markdown {
        skipped_text(args, &skipped).map_or_else(String::new, |t| t + "\n")
            + &markdown::table(&report)
    } else {
        let mut s = skipped_text(args, &skipped).unwrap_or_default();
        for g in &suggested {
            s.push_str(&format!("suggested {}: {}\n", g.key, g.reason));
        }
        if !s.is_empty() {
            s.push('\n');
        }
        s + &markdown::text(&report)
    };
    out.write_all(text.as_bytes()).map_err(|e| write_failed(&e))
}

/// `--suggest`'s candidates (none without it); an error when the traffic gives none.
fn suggestions(
    args: &LabArgs,
    traffic: &[Operation],
    stats: &FieldStats,
    total: u64,
) -> Result<Vec<Suggestion>, Failure> {
    if !args.suggest {
        return Ok(Vec::new());
    }
    let scale = suggest::Scale {
        documents: total,
        chunk_size_bytes: args.chunk_size << 20,
    };
    let s = suggest::suggest(traffic, stats, scale);
    if s.is_empty() {
        return Err(Failure::input(
            "--suggest: the traffic names no field by equality that it does not also update (give --workload or --log)",
        ));
    }
    Ok(s)
}

/// The lab has documents to read, and `--chunk-map` does not name one of its inputs.
fn check_inputs(args: &LabArgs) -> Result<(), Failure> {
    if args.data.is_none() && args.from.is_none() && args.example.is_none() {
        return Err(Failure::input(
            "lab needs documents: --data FILE (JSON lines, a JSON array or BSON), --from URI --ns DB.COLL (a live collection's sample), or the built-in example: `shardtop lab --example orders`",
        ));
    }
    let Some(map) = &args.chunk_map else {
        return Ok(());
    };
    let inputs = [
        ("--data", args.data.as_deref()),
        ("--workload", args.workload.as_deref()),
        ("--log", args.log.as_deref()),
    ];
    super::refuse_writing_an_input("--chunk-map", map, &inputs)
}

/// `--chunk-map FILE`: each candidate's final chunks, through the safe writer.
fn write_chunk_map(args: &LabArgs, report: &crate::lab::report::Report) -> Result<(), Failure> {
    let Some(path) = &args.chunk_map else {
        return Ok(());
    };
    let mut body = serde_json::to_string_pretty(&report.chunk_map_json())
        .map_err(|e| Failure::runtime(e.to_string()))?;
    body.push('\n');
    let existing = if args.force {
        crate::files::Existing::Replace
    } else {
        crate::files::Existing::Refuse
    };
    super::terminal::write_whole(path, body.as_bytes(), existing)
}

/// The first candidate with a field no document of `docs` has, as the error the report gives
/// for it (`--key {…}: no document has the field F`); checked before the TUI starts, which
/// would otherwise show a key that routes every document as null.
pub(super) fn absent_key_field(
    keys: &[KeyPattern],
    docs: &[(Document, u64)],
) -> Result<(), Failure> {
    if docs.is_empty() {
        return Ok(());
    }
    for k in keys {
        for f in k.fields() {
            if !docs
                .iter()
                .any(|(d, _)| crate::model::value_at(d, &f.path).is_some())
            {
                return Err(Failure::input(format!(
                    "--key {}: no document has the field {}",
                    markdown::shell(&k.to_document()),
                    f.path
                )));
            }
        }
    }
    Ok(())
}

fn pattern(text: &str, what: &str) -> Result<KeyPattern, Failure> {
    KeyPattern::parse_json(text)
        .map_err(|e| Failure::input(format!("{what} {text}: not a valid key pattern: {}", e.0)))
}

fn key_json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap_or(serde_json::Value::Null)
}

fn candidates(args: &LabArgs, suggested: &[Suggestion]) -> Result<Vec<KeyPattern>, Failure> {
    let mut texts: Vec<&str> =
        if args.keys.is_empty() && args.example.is_some() && suggested.is_empty() {
            example::CANDIDATES.to_vec()
        } else {
            args.keys.iter().map(String::as_str).collect()
        };
    for s in suggested {
        let key = pattern(&s.key, "--suggest")?;
        let given = texts
            .iter()
            .any(|t| KeyPattern::parse_json(t).is_ok_and(|k| k == key));
        if !given && texts.len() < *CANDIDATES.end() {
            texts.push(&s.key);
        }
    }
    if !CANDIDATES.contains(&texts.len()) {
        return Err(Failure::input(format!(
            "give 2 to 6 candidate keys with --key (got {})",
            texts.len()
        )));
    }
    let keys = texts
        .iter()
        .map(|t| pattern(t, "--key"))
        .collect::<Result<Vec<_>, _>>()?;
    for (i, k) in keys.iter().enumerate() {
        if keys[..i].contains(k) {
            return Err(Failure::input(format!("--key {}: given twice", texts[i])));
        }
    }
    Ok(keys)
}

/// Adds the unique indexes of `more` not already in `unique`.
fn add_unique(unique: &mut Vec<KeyPattern>, more: impl IntoIterator<Item = KeyPattern>) {
    for u in more {
        if !unique.contains(&u) {
            unique.push(u);
        }
    }
}

fn unique_indexes(args: &LabArgs) -> Result<Vec<KeyPattern>, Failure> {
    let mut texts: Vec<&str> = args.unique.iter().map(String::as_str).collect();
    if args.example.is_some() && texts.is_empty() {
        texts.push(example::UNIQUE_INDEX);
    }
    texts.iter().map(|t| pattern(t, "--unique")).collect()
}

/// The traffic of `--workload`, `--log` (with the slow-query lines it could not read) or the
/// example.
fn traffic(args: &LabArgs) -> Result<(Vec<Operation>, traffic::Skipped), Failure> {
    let mut ops = Vec::new();
    let mut skipped = traffic::Skipped::default();
    if let Some(path) = &args.workload {
        ops.extend(traffic::read_workload(path).map_err(|e| Failure::input(e.to_string()))?);
    }
    if let (Some(path), Some(ns)) = (&args.log, &args.ns) {
        let (read, s) =
            traffic::read_log_counted(path, ns).map_err(|e| Failure::input(e.to_string()))?;
        ops.extend(read);
        skipped = s;
    }
    if ops.is_empty() && args.workload.is_none() && args.log.is_none() && args.example.is_some() {
        ops = example::traffic();
    }
    Ok((ops, skipped))
}

/// `--log`'s skipped lines in words (`None`: none skipped).
fn skipped_text(args: &LabArgs, s: &traffic::Skipped) -> Option<String> {
    let (line, why) = s.first.as_ref()?;
    let path = args
        .log
        .as_deref()
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    let mut text = format!(
        "--log {path}: {} slow-query line{} skipped, not counted in the traffic (the first, line {line}: {why})\n",
        s.lines,
        if s.lines == 1 { "" } else { "s" }
    );
    for (line, why) in s.named.iter().skip(1) {
        text.push_str(&format!("--log {path}, line {line}: skipped: {why}\n"));
    }
    Some(text)
}

fn cluster_spec(
    args: &LabArgs,
    server_version: crate::cluster::ServerVersion,
) -> Result<ClusterSpec, Failure> {
    if !(1..=1000).contains(&args.shards) {
        return Err(Failure::input("--shards: 1 to 1000"));
    }
    if !(1..=1024).contains(&args.chunk_size) {
        return Err(Failure::input("--chunk-size: 1 to 1024 MB"));
    }
    if args.initial > 100 {
        return Err(Failure::input("--initial: a percentage, 0 to 100"));
    }
    if !(args.rate.is_finite() && args.rate >= 1.0) {
        return Err(Failure::input("--rate: at least 1 insert a second"));
    }
    if args.num_initial_chunks == Some(0) {
        return Err(Failure::input("--num-initial-chunks: at least 1"));
    }
    Ok(ClusterSpec {
        shards: args.shards,
        chunk_size_mb: args.chunk_size,
        server_version,
        num_initial_chunks: args.num_initial_chunks,
        zones: args
            .zones
            .iter()
            .map(|z| zone(z))
            .collect::<Result<_, _>>()?,
        zone_ranges: args
            .zone_ranges
            .iter()
            .map(|r| zone_range(r))
            .collect::<Result<_, _>>()?,
    })
}

/// `ZONE=SHARD,SHARD`.
fn zone(text: &str) -> Result<(String, Vec<String>), Failure> {
    let bad = || Failure::input(format!("--zone {text}: give ZONE=SHARD[,SHARD…]"));
    let (zone, shards) = text.split_once('=').ok_or_else(bad)?;
    let shards: Vec<String> = shards.split(',').map(|s| s.trim().to_string()).collect();
    if zone.trim().is_empty() || shards.iter().any(String::is_empty) {
        return Err(bad());
    }
    Ok((zone.trim().to_string(), shards))
}

/// `{"zone": …, "min": {…}, "max": {…}}`.
fn zone_range(text: &str) -> Result<ZoneRangeSpec, Failure> {
    let bad = |why: &str| Failure::input(format!("--zone-range {text}: {why}"));
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|e| bad(&format!("not JSON: {e}")))?;
    let Ok(bson::Bson::Document(d)) = bson::Bson::try_from(value) else {
        return Err(bad("not an Extended JSON document"));
    };
    if let Some(k) = d
        .keys()
        .find(|k| !["zone", "min", "max"].contains(&k.as_str()))
    {
        return Err(bad(&format!("unknown field `{k}`")));
    }
    let zone = d
        .get_str("zone")
        .map_err(|_| bad("`zone` must be a string"))?;
    let min = d
        .get_document("min")
        .map_err(|_| bad("`min` must be a document"))?;
    let max = d
        .get_document("max")
        .map_err(|_| bad("`max` must be a document"))?;
    let same: bool = min.keys().eq(max.keys());
    if min.is_empty() || !same {
        return Err(bad("`min` and `max` must name the same fields, in order"));
    }
    Ok(ZoneRangeSpec {
        zone: zone.to_string(),
        min: min.clone(),
        max: max.clone(),
    })
}

/// How many documents there are, the fields of a sample drawn across them (for `--suggest`),
/// and the documents in insertion order.
fn documents(
    args: &LabArgs,
    from: Option<Vec<(Document, u64)>>,
) -> Result<(u64, FieldStats, Docs), Failure> {
    let mut sample = Reservoir::default();
    if let Some(docs) = from {
        for (d, _) in &docs {
            sample.offer(d);
        }
        let stats = sample.stats();
        let total = docs.len() as u64;
        let docs: Docs = Box::new(docs.into_iter().map(Ok));
        return match &args.order_by {
            None => Ok((total, stats, docs)),
            Some(field) => Ok((total, stats, ordered(docs, field)?)),
        };
    }
    let (total, docs): (u64, Docs) = match (args.example, &args.data) {
        (Some(LabExample::Orders), _) => {
            for d in example::orders(example::SEED) {
                sample.offer(&d);
            }
            let docs = example::orders(example::SEED).map(|d| {
                let size = bson::to_vec(&d).map_or(0, |v| v.len() as u64);
                Ok((d, size))
            });
            (example::ORDERS, Box::new(docs))
        }
        (None, Some(path)) if args.suggest => (count(path, &mut sample)?, open(path)?),
        // Without --suggest no sample is drawn: the documents are only counted.
        (None, Some(path)) => (
            data::open(path)
                .and_then(data::Documents::count)
                .map_err(|e| Failure::input(e.to_string()))?,
            open(path)?,
        ),
        (None, None) => {
            return Err(Failure::input(
                "give --data FILE, --from URI or --example orders",
            ));
        }
    };
    let stats = sample.stats();
    match &args.order_by {
        None => Ok((total, stats, docs)),
        Some(field) => Ok((total, stats, ordered(docs, field)?)),
    }
}

fn open(path: &Path) -> Result<Docs, Failure> {
    let docs = data::open(path).map_err(|e| Failure::input(e.to_string()))?;
    Ok(Box::new(docs.enumerate().map(|(n, d)| {
        d.map(|(doc, size)| crate::lab::input::stored(doc, size, n as u64))
            .map_err(|e| Failure::input(e.to_string()))
    })))
}

/// A first pass over the file: every document read (so a bad one fails before any work), each
/// offered to the sample.
fn count(path: &Path, sample: &mut Reservoir) -> Result<u64, Failure> {
    let mut n = 0u64;
    for d in data::open(path).map_err(|e| Failure::input(e.to_string()))? {
        let (doc, size) = d.map_err(|e| Failure::input(e.to_string()))?;
        sample.offer(&crate::lab::input::stored(doc, size, n).0);
        n += 1;
    }
    Ok(n)
}

/// The documents sorted by `field` (stable; a missing field sorts as null). They are all held
/// in memory for it.
fn ordered(docs: Docs, field: &str) -> Result<Docs, Failure> {
    let by = KeyPattern::parse(&bson::doc! { field: 1 })
        .map_err(|e| Failure::input(format!("--order-by {field}: {}", e.0)))?;
    let mut all = Vec::new();
    for d in docs {
        let (doc, size) = d?;
        let key = by.extract(&doc).map_err(|e| {
            Failure::input(format!(
                "--order-by {field}: a document cannot be ordered: {}",
                e.0
            ))
        })?;
        all.push((key, doc, size));
    }
    all.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(Box::new(all.into_iter().map(|(_, d, s)| Ok((d, s)))))
}
