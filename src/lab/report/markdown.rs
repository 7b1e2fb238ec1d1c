//! The lab's report as text: seed 003's "Comparing candidate keys for orders" table (one row
//! per candidate: key, write distribution, each query's targeting, divisibility) as markdown,
//! then each candidate's numbers.

use bson::{Bson, Document};

use super::verdict;
use super::{CandidateReport, Report, percent_text};
use crate::analyze::ranges::{NUM_RANGES, heat_strip};

/// The most queries given a column of their own (the rest are summed up in the verdicts).
const QUERY_COLUMNS: usize = 6;

/// The table alone (`--markdown`).
pub fn table(report: &Report) -> String {
    let shards = report.shards as usize;
    let mut header = vec!["Key".to_string(), "Write distribution".to_string()];
    let first = report.candidates.first();
    let queries = first.map_or(&[][..], |c| &c.queries[..]);
    for q in queries.iter().take(QUERY_COLUMNS) {
        header.push(format!("`{}`", query_text(q.command, &q.filter)));
    }
    header.push("Divisibility".into());
    let mut out = row(&header);
    out.push_str(&row(&vec!["---".to_string(); header.len()]));
    for c in &report.candidates {
        let mut cells = vec![
            format!("`{}`", shell(&c.key.to_document())),
            verdict::writes(c, shards),
        ];
        for q in c.queries.iter().take(QUERY_COLUMNS) {
            cells.push(verdict::query_cell(q, c.default_chunk_size));
        }
        cells.push(verdict::divisibility(c));
        out.push_str(&row(&cells));
    }
    out
}

fn row(cells: &[String]) -> String {
    let escaped: Vec<String> = cells.iter().map(|c| c.replace('|', "\\|")).collect();
    format!("| {} |\n", escaped.join(" | "))
}

/// The table, then each candidate's numbers (the default text report).
pub fn text(report: &Report) -> String {
    let mut out = format!(
        "{} documents, {} operations of traffic, {} shards, {} MB chunks, MongoDB {}\n\n",
        report.documents,
        report.operations,
        report.shards,
        report.chunk_size_mb,
        report.server_version
    );
    for (k, v, n) in &report.unique_contradicted {
        out.push_str(&format!(
            "unique index {} could not exist on these documents: {} is in {n} of them (not counted as unique)\n\n",
            shell(&k.to_document()),
            shell(v)
        ));
    }
    out.push_str(&table(report));
    for c in &report.candidates {
        out.push('\n');
        out.push_str(&details(c, &report.server_version));
    }
    out
}

fn details(c: &CandidateReport, version: &str) -> String {
    let ch = &c.characteristics;
    let mut out = format!("{}\n", shell(&c.key.to_document()));
    out.push_str(&format!("  {}\n", c.verdict));
    let coefficient = ch
        .coefficient
        .map_or_else(|| "unknown".to_string(), |v| format!("{v:.4}"));
    out.push_str(&format!(
        "  {} documents, {} distinct values{}, {} ({}), {} bytes a document\n",
        ch.num_docs,
        ch.num_distinct_values,
        if ch.is_unique { " (unique)" } else { "" },
        ch.monotonicity.as_str(),
        coefficient,
        ch.avg_doc_size_bytes
    ));
    let common: Vec<String> = ch
        .most_common_values
        .iter()
        .map(|(v, n)| format!("{} ×{n}", shell(v)))
        .collect();
    out.push_str(&format!("  most common: {}\n", common.join(", ")));
    if let Some((value, n)) = &ch.unique_duplicate {
        out.push_str(&format!(
            "  a unique index on these fields could not exist: {} is in {n} documents (not counted as unique)\n",
            shell(value)
        ));
    }
    if let Some(m) = verdict::missing(c) {
        out.push_str(&format!("  {} documents ({m})\n", ch.missing));
    }
    let shares: Vec<String> = c
        .shares
        .iter()
        .map(|(s, v)| format!("{s} {}", percent_text(v * 100.0)))
        .collect();
    out.push_str(&format!(
        "  {} new inserts: {}; hottest chunk {}; {}; {}\n",
        c.new_inserts,
        shares.join(", "),
        percent_text(c.hottest_chunk_share * 100.0),
        crate::units::count(c.migrations, "migration"),
        crate::units::count(c.chunks as u64, "chunk")
    ));
    let r = &c.distribution.reads;
    let w = &c.distribution.writes;
    let p = |side: &crate::analyze::distribution::Counts, n: u64| percent_text(side.percent(n));
    out.push_str(&format!(
        "  reads: {} single-shard, {} multi-shard, {} scatter-gather; writes: {} single-shard, {} multi-shard, {} scatter-gather, {} shard-key updates, {} single writes without the shard key\n",
        p(r, r.single),
        p(r, r.variable),
        p(r, r.scatter),
        p(w, w.single),
        p(w, w.variable),
        p(w, w.scatter),
        p(w, w.shard_key_updates),
        p(w, w.single_without_key)
    ));
    out.push_str(&by_range(c, version));
    let max = max_chunks_text(c);
    out.push_str(&format!(
        "  max chunks: {max}; jumbo: {}; values over the chunk size: {}\n",
        c.jumbo, c.indivisible_values
    ));
    for (k, allowed) in &c.unique_indexes {
        let word = if *allowed { "allowed" } else { "not allowed" };
        out.push_str(&format!(
            "  unique index {}: {word}\n",
            shell(&k.to_document())
        ));
    }
    if !c.zones.is_empty() {
        let zones: Vec<String> = c
            .zones
            .iter()
            .map(|(z, applied)| {
                if *applied {
                    format!("{z} applied")
                } else {
                    format!("{z} not applied (the key does not start with its fields)")
                }
            })
            .collect();
        out.push_str(&format!("  zones: {}\n", zones.join(", ")));
    }
    if c.refused > 0 {
        out.push_str(&format!(
            "  {} documents refused: {}\n",
            c.refused,
            c.first_refusal.as_deref().unwrap_or("")
        ));
    }
    out
}

/// `max chunks`: the ceiling and the late new values it is judged by.
fn max_chunks_text(c: &CandidateReport) -> String {
    let ch = &c.characteristics;
    match c.max_chunks {
        Some(m) => format!(
            "{m} ({} of the last {} documents brought a new value)",
            ch.late_new_values, ch.last_tenth
        ),
        None => format!(
            "unbounded ({} of the last {} documents brought a new value: a twentieth or more)",
            ch.late_new_values, ch.last_tenth
        ),
    }
}

/// The per-range counts as heat strips, and the data at the default chunk size.
fn by_range(c: &CandidateReport, version: &str) -> String {
    let mut out = String::new();
    match &c.by_range {
        Ok(b) => {
            let most = |v: &[u64]| v.iter().copied().max().unwrap_or(0);
            out.push_str(&format!(
                "  reads by range  |{}| the most in one range: {}\n",
                heat_strip(&b.reads),
                most(&b.reads)
            ));
            out.push_str(&format!(
                "  writes by range |{}| the most in one range: {}\n",
                heat_strip(&b.writes),
                most(&b.writes)
            ));
        }
        Err(made) => out.push_str(&format!(
            "  by range: the key makes only {made} of analyzeShardKey's {NUM_RANGES} ranges (it fails with error 4952606)\n"
        )),
    }
    out.push_str(&format!(
        "  at the default {} MB chunks of MongoDB {}: {}\n",
        c.default_chunk_size >> 20,
        version,
        match c.default_size_chunks {
            1 => "1 chunk (every targeted range on one shard)".to_string(),
            n => format!("{n} chunks"),
        }
    ));
    out
}

/// `find({customerId: 4242})`, `update({_id: …})`.
pub fn query_text(command: &str, filter: &Document) -> String {
    format!("{command}({})", shell(filter))
}

/// A document as mongosh shows it: `{customerId: 4242, placedAt: {$gte: ISODate("2026-06-01")}}`.
pub fn shell(doc: &Document) -> String {
    let fields: Vec<String> = doc
        .iter()
        .map(|(k, v)| format!("{k}: {}", value(v)))
        .collect();
    format!("{{{}}}", fields.join(", "))
}

fn value(v: &Bson) -> String {
    match v {
        Bson::Document(d) => shell(d),
        Bson::Array(a) => format!("[{}]", a.iter().map(value).collect::<Vec<_>>().join(", ")),
        Bson::String(s) => serde_json::Value::String(s.clone()).to_string(),
        Bson::Int32(n) => n.to_string(),
        Bson::Int64(n) => n.to_string(),
        Bson::Double(x) => x.to_string(),
        Bson::Boolean(b) => b.to_string(),
        Bson::Null => "null".into(),
        Bson::ObjectId(o) => format!("ObjectId(\"{o}\")"),
        Bson::DateTime(d) => {
            let iso = d.try_to_rfc3339_string().unwrap_or_else(|_| d.to_string());
            let short = iso
                .strip_suffix("T00:00:00Z")
                .or_else(|| iso.strip_suffix("T00:00:00.000Z"));
            format!("ISODate(\"{}\")", short.unwrap_or(&iso))
        }
        other => other.clone().into_relaxed_extjson().to_string(),
    }
}
