//! One line per candidate in the words of seed 003's table ("Comparing candidate keys for
//! orders"): where the inserts go, which queries stay on one shard — told apart as
//! `analyzeShardKey` counts them (8.0 `src/mongo/db/s/analyze_shard_key_read_write_distribution.cpp`):
//! no shard key in the filter is a scatter-gather, a range of the key is targeted and spans as
//! many chunks and shards as the final layout gives it — how far the key divides against its
//! growth, and the documents that lack the key.

use super::{CandidateReport, Growth, QueryTargeting, percent_text};
use crate::analyze::characteristics::{KeyCharacteristics, Monotonicity};
use crate::analyze::distribution::Dispatch;

/// The share of inserts from which a shard takes "all inserts".
const ALL_ON_ONE: f64 = 0.9;
/// How far above an even share the busiest shard may be for the writes to be even.
const EVEN_SLACK: f64 = 1.2;

/// `writes: …; queries: …; divisibility: …[; missing: …]`.
pub fn verdict(r: &CandidateReport, shards: usize) -> String {
    let mut text = format!(
        "writes: {}; queries: {}; divisibility: {}",
        writes(r, shards),
        queries(r),
        divisibility(r)
    );
    if let Some(m) = missing(r) {
        text.push_str(&format!("; missing: {m}"));
    }
    if let Some(u) = shard_key_updates(r) {
        text.push_str(&format!("; shard-key updates: {u}"));
    }
    text
}

/// The traffic's updates that change the key's value: each must run in a transaction or as a
/// retryable write with an equality on the whole key (the manual's "Change a Document's Shard
/// Key Value", from 4.2); `None` when none does.
pub fn shard_key_updates(r: &CandidateReport) -> Option<String> {
    let u = &r.shard_key_updates;
    if u.operations == 0 {
        return None;
    }
    let writes = r.queries.iter().filter(|q| !is_read(q.command)).count();
    let mut text = format!(
        "{} of {writes} write{} change{} the key (each needs a transaction or a retryable write)",
        u.operations,
        if writes == 1 { "" } else { "s" },
        if u.operations == 1 { "s" } else { "" },
    );
    if u.without_full_key > 0 {
        text.push_str(&format!(
            ", {} without an equality on the whole key",
            u.without_full_key
        ));
    }
    if u.multi > 0 {
        text.push_str(&format!(", {} multi (refused)", u.multi));
    }
    Some(text)
}

fn is_read(command: &str) -> bool {
    matches!(command, "find" | "aggregate" | "count" | "distinct")
}

/// `1 at 128 MB` / `3 at 128 MB`: the chunks a range meets at the release line's default size.
fn at_default(chunks: usize, r_size: u64) -> String {
    format!("{chunks} at {} MB", r_size >> 20)
}

/// The documents lacking key fields, as a share, naming the fields: `63% of documents lack
/// customerId (routed as null)`; `None` when every document has the whole key.
pub fn missing(r: &CandidateReport) -> Option<String> {
    let ch = &r.characteristics;
    if ch.missing == 0 || ch.num_docs == 0 {
        return None;
    }
    let fields: Vec<&str> = r
        .key
        .fields()
        .iter()
        .zip(&ch.missing_by_field)
        .filter(|(_, n)| **n > 0)
        .map(|(f, _)| &*f.path)
        .collect();
    Some(format!(
        "{} of documents lack {} (routed as null)",
        percent_text(ch.missing as f64 * 100.0 / ch.num_docs as f64),
        fields.join(" or ")
    ))
}

/// The first key field no document has (a key that routes every document as null).
pub fn absent_field(r: &CandidateReport) -> Option<&str> {
    let ch = &r.characteristics;
    if ch.num_docs == 0 {
        return None;
    }
    r.key
        .fields()
        .iter()
        .zip(&ch.missing_by_field)
        .find(|(_, n)| **n == ch.num_docs)
        .map(|(f, _)| &*f.path)
}

/// Whether the key has too few values for the chunks the data needs.
pub fn low_cardinality(r: &CandidateReport) -> bool {
    r.max_chunks.is_some() && too_few_values(r.characteristics.num_distinct_values, r.needed_chunks)
}

/// Whether `values` key values are fewer than the `needed` chunks the data fills: the rule of
/// the `N hot spots` verdict, and the one `--suggest` reasons a hashed key by (hashing a field of
/// few values makes no more places for the inserts than the values).
pub fn too_few_values(values: u64, needed: u64) -> bool {
    values < needed
}

/// The share of documents from which the key's first field is taken as a date.
const DATED: f64 = 0.9;

/// The write distribution cell: where the new inserts went, then, when the key's first field
/// holds dates but the file is not in their order, the hint to insert in that order.
pub fn writes(r: &CandidateReport, shards: usize) -> String {
    let mut text = distribution_of_writes(r, shards);
    if let Some(hint) = order_hint(r) {
        text.push_str(&hint);
    }
    text
}

/// `; the file is not in placedAt order (…): if documents arrive as they are dated, --order-by
/// placedAt inserts them so` when the first key field holds dates (nine documents in ten or
/// more) and the key is not monotonic over the file's order: dated records are most often
/// inserted as they are dated, and a file sorted otherwise (by licence, by id) makes an ascending
/// key look spread.
pub fn order_hint(r: &CandidateReport) -> Option<String> {
    let ch = &r.characteristics;
    if ch.num_docs == 0
        || (r.dated as f64) < DATED * ch.num_docs as f64
        || ch.monotonicity != Monotonicity::NotMonotonic
    {
        return None;
    }
    let field = &r.key.fields()[0].path;
    let coefficient = ch
        .coefficient
        .map_or_else(String::new, |c| format!(", coefficient {c:.2}"));
    Some(format!(
        " (but {field} holds dates and the file is not in their order{coefficient}: if documents arrive as they are dated, give --order-by {field})"
    ))
}

fn distribution_of_writes(r: &CandidateReport, shards: usize) -> String {
    if r.new_inserts == 0 {
        return "no new inserts".into();
    }
    if low_cardinality(r) {
        let mut text = hot_spots(&r.characteristics);
        if r.max_shard_share >= ALL_ON_ONE {
            text.push_str(", all on one shard");
        }
        return text;
    }
    if r.max_shard_share >= ALL_ON_ONE {
        let why = if r.characteristics.monotonicity == Monotonicity::Monotonic {
            " (monotonic)"
        } else {
            ""
        };
        return format!("all inserts to one shard{why}");
    }
    if r.max_shard_share <= EVEN_SLACK / shards.max(1) as f64 {
        if r.key.hashed_field().is_some() {
            return "even".into();
        }
        return format!("spread across {} values", r.key.fields()[0].path);
    }
    format!(
        "uneven: {} of inserts to one shard",
        percent_text(r.max_shard_share * 100.0)
    )
}

/// `2 hot spots (the last tenth of the documents carry 2 of its 7 values)`: the places the
/// newest inserts land are the values they carry, in the data's insertion order — not every
/// value the key ever had (a league field of 7 historical values whose new rows carry 2).
fn hot_spots(ch: &KeyCharacteristics) -> String {
    let all = ch.num_distinct_values;
    let recent = ch.recent_values;
    if recent == 0 || recent >= all {
        return crate::units::count(all, "hot spot");
    }
    format!(
        "{} (the last tenth of the documents carry {recent} of its {all} values)",
        crate::units::count(recent, "hot spot")
    )
}

/// One query's cell in the TUI, as `analyzeShardKey` tells them apart: `one shard` (the whole
/// key by equality), `scatter-gather` (no shard key in the filter), or a targeted range and the
/// shards the chunks as they stand send it to (`range: one shard`, `range: 3 shards`).
pub fn targeting(dispatch: Dispatch, asked: usize) -> String {
    match dispatch {
        Dispatch::SingleShard => "one shard".into(),
        Dispatch::ScatterGather => "scatter-gather".into(),
        Dispatch::Variable if asked <= 1 => "range: one shard".into(),
        Dispatch::Variable => format!("range: {asked} shards"),
    }
}

/// One query's cell as `analyzeShardKey` tells them apart: `one shard` (the whole key by
/// equality), `scatter-gather` (no shard key in the filter), or a targeted range and what the
/// final layout makes of it (`range: one shard`, `range: 12 chunks on 3 shards`).
///
/// A range's cell ends with the chunks it meets when the data is cut at the release line's
/// default chunk size (`default_size`, bytes): `range: 12 chunks on 3 shards (1 at 128 MB)`.
pub fn query_cell(q: &QueryTargeting, default_size: u64) -> String {
    let real = at_default(q.default_size_chunks, default_size);
    match q.dispatch {
        Dispatch::SingleShard => "one shard".into(),
        Dispatch::ScatterGather => "scatter-gather".into(),
        Dispatch::Variable if q.shards <= 1 => {
            format!("range: {} ({real})", chunks_text(q.chunks))
        }
        Dispatch::Variable => format!(
            "range: {} on {} shards ({real})",
            chunks_text(q.chunks),
            q.shards
        ),
    }
}

fn chunks_text(n: usize) -> String {
    crate::units::count(n as u64, "chunk")
}

fn queries(r: &CandidateReport) -> String {
    let total = r.queries.len();
    if total == 0 {
        return "no traffic".into();
    }
    let count = |d: Dispatch| r.queries.iter().filter(|q| q.dispatch == d).count();
    let (single, scatter) = (count(Dispatch::SingleShard), count(Dispatch::ScatterGather));
    let ranges: Vec<&QueryTargeting> = r
        .queries
        .iter()
        .filter(|q| q.dispatch == Dispatch::Variable)
        .collect();
    if single == total {
        return "every query on one shard".into();
    }
    if scatter == total {
        return "every query scatter-gather (no shard key in the filter)".into();
    }
    let mut parts = vec![format!("{single} of {total} on one shard")];
    if !ranges.is_empty() {
        let on_one = ranges.iter().filter(|q| q.shards <= 1).count();
        let most = ranges.iter().map(|q| q.shards).max().unwrap_or(0);
        let real = ranges
            .iter()
            .map(|q| q.default_size_chunks)
            .max()
            .unwrap_or(0);
        let real = if real <= 1 {
            format!("one chunk at {} MB", r.default_chunk_size >> 20)
        } else {
            format!("up to {}", at_default(real, r.default_chunk_size))
        };
        let mut text = format!("{} a targeted range", ranges.len());
        if on_one == ranges.len() {
            text.push_str(&format!(" on one shard ({real})"));
        } else {
            text.push_str(&format!(" (up to {most} shards as laid out; {real})"));
        }
        parts.push(text);
    }
    if scatter > 0 {
        parts.push(format!(
            "{scatter} scatter-gather (no shard key in the filter)"
        ));
    }
    parts.join(", ")
}

/// The divisibility cell: the ceiling the key's values set (`N chunks max`, or `no ceiling`
/// while new values keep arriving), then when its most common value outgrows a chunk.
pub fn divisibility(r: &CandidateReport) -> String {
    let mut text = match r.max_chunks {
        Some(m) => format!("{} max", crate::units::count(m, "chunk")),
        None => "no ceiling (new values keep arriving)".to_string(),
    };
    match &r.growth {
        Growth::Over => text.push_str(", the most common value is over the chunk size"),
        Growth::After(n) => text.push_str(&format!(
            ", the most common value fills a chunk after ~{} more documents",
            crate::units::grouped(*n)
        )),
        // A key whose values keep arriving has no ceiling to outgrow.
        Growth::Unknown(why) if r.max_chunks.is_some() => {
            text.push_str(&format!(", its growth can't be judged ({why})"));
        }
        Growth::Never | Growth::Unknown(_) => {}
    }
    if r.jumbo > 0 {
        text.push_str(&format!(", {} jumbo", r.jumbo));
    }
    if r.ranges_on_hashed_field
        && let Some(h) = r.key.hashed_field()
    {
        text.push_str(&format!(
            ", but no range targeting on {}",
            r.key.fields()[h].path
        ));
    }
    text
}
