//! `--suggest`: candidate keys proposed from the traffic and a sample of the documents, each
//! with its reason — the field the traffic most often names by equality (so those queries stay
//! on one shard); its hashed variant only when it has more values than the chunks the data fills
//! (the verdict's `N hot spots` rule: hashing 31 values still makes 31 places for the inserts);
//! the first followed by a field the traffic names with it, when the first's busiest value is
//! over the chunk size or its values are too few (seed 003's "a big customer splits by date" —
//! not a licence number of 3 documents, and not by a field no query uses); and the field it is
//! most often named with by equality. Fields the traffic's updates modify are left out (a shard
//! key that changes moves documents between shards), and a key monotonic over the sample is
//! flagged.
//!
//! The sample is drawn across the whole file by reservoir sampling (Vitter's algorithm R) with a
//! fixed seed: the same file gives the same sample, and data in date order is not judged by its
//! first days alone.

use std::collections::{BTreeMap, BTreeSet};

use bson::{Bson, Document};

use crate::analyze::characteristics::{Characteristics, Monotonicity};
use crate::analyze::operation::Operation;
use crate::model::KeyPattern;

/// The most candidates proposed.
pub const MAX: usize = 4;
/// Documents sampled for the fields' cardinalities.
pub const SAMPLE: usize = 10_000;
/// The reservoir's seed.
pub const SEED: u64 = 34;

/// A uniform sample of [`SAMPLE`] documents of a stream, each with its position in it (algorithm
/// R, seeded: deterministic).
#[derive(Clone, Debug)]
pub struct Reservoir {
    seen: u64,
    state: u64,
    docs: Vec<(u64, Document)>,
    capacity: usize,
}

impl Default for Reservoir {
    fn default() -> Self {
        Self::new(SAMPLE, SEED)
    }
}

impl Reservoir {
    /// A reservoir of `capacity` documents drawn with `seed`.
    pub fn new(capacity: usize, seed: u64) -> Self {
        Self {
            seen: 0,
            state: seed,
            docs: Vec::with_capacity(capacity.min(SAMPLE)),
            capacity,
        }
    }

    /// splitmix64.
    fn next(&mut self) -> u64 {
        crate::analyze::ranges::splitmix64(&mut self.state)
    }

    /// Offers the stream's next document: kept with probability `capacity / seen`.
    pub fn offer(&mut self, doc: &Document) {
        self.seen += 1;
        if self.docs.len() < self.capacity {
            self.docs.push((self.seen, doc.clone()));
            return;
        }
        let j = ((u128::from(self.next()) * u128::from(self.seen)) >> 64) as u64;
        if let Some(slot) = usize::try_from(j).ok().and_then(|j| self.docs.get_mut(j)) {
            *slot = (self.seen, doc.clone());
        }
    }

    /// The positions (1-based) of the documents kept, in stream order.
    pub fn positions(&self) -> Vec<u64> {
        let mut p: Vec<u64> = self.docs.iter().map(|(i, _)| *i).collect();
        p.sort_unstable();
        p
    }

    /// The field statistics of the documents kept, taken in stream order.
    pub fn stats(mut self) -> FieldStats {
        self.docs.sort_by_key(|(i, _)| *i);
        let mut stats = FieldStats::default();
        for (_, d) in self.docs {
            stats.observe(&d);
            stats.sample.push(d);
        }
        stats
    }
}

/// A proposed key (Extended JSON text, as `--key` takes it) and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Suggestion {
    pub key: String,
    pub reason: String,
}

/// Per top-level field of the sampled documents: distinct values and the largest frequency.
#[derive(Clone, Debug, Default)]
pub struct FieldStats {
    docs: u64,
    /// The sampled documents' bytes of BSON.
    bytes: u64,
    fields: BTreeMap<String, BTreeMap<String, u64>>,
    /// The sampled documents in stream order (for the monotonicity of a proposed key).
    sample: Vec<Document>,
}

impl FieldStats {
    /// Takes one sampled document (only its top-level fields with plain values).
    pub fn observe(&mut self, doc: &Document) {
        self.docs += 1;
        self.bytes += bson::to_vec(doc).map_or(0, |v| v.len() as u64);
        for (k, v) in doc {
            if matches!(v, Bson::Array(_) | Bson::Document(_)) {
                continue;
            }
            let values = self.fields.entry(k.clone()).or_default();
            if values.len() < SAMPLE || values.contains_key(&v.to_string()) {
                *values.entry(v.to_string()).or_default() += 1;
            }
        }
    }

    fn distinct(&self, field: &str) -> usize {
        self.fields.get(field).map_or(0, BTreeMap::len)
    }

    /// The average sampled document's bytes.
    fn avg_size(&self) -> u64 {
        self.bytes.checked_div(self.docs).unwrap_or(0)
    }

    fn max_frequency(&self, field: &str) -> u64 {
        self.fields
            .get(field)
            .and_then(|v| v.values().max().copied())
            .unwrap_or(0)
    }
}

/// The top-level fields a filter names by equality (`{f: v}`, `{f: {$eq: v}}`, inside `$and`).
fn equality_fields(filter: &Document, out: &mut BTreeSet<String>) {
    for (k, v) in filter {
        match (k.as_str(), v) {
            ("$and", Bson::Array(list)) => {
                for b in list {
                    if let Bson::Document(d) = b {
                        equality_fields(d, out);
                    }
                }
            }
            (k, _) if k.starts_with('$') => {}
            (k, Bson::Document(d)) if d.keys().next().is_some_and(|o| o.starts_with('$')) => {
                if d.contains_key("$eq") {
                    out.insert(k.to_string());
                }
            }
            (_, Bson::RegularExpression(_)) => {}
            (k, _) => {
                out.insert(k.to_string());
            }
        }
    }
}

/// The top-level fields a filter names at all (equality, range, any operator; inside `$and`,
/// `$or`, `$nor`).
fn named_fields(filter: &Document, out: &mut BTreeSet<String>) {
    for (k, v) in filter {
        match (k.as_str(), v) {
            ("$and" | "$or" | "$nor", Bson::Array(list)) => {
                for b in list {
                    if let Bson::Document(d) = b {
                        named_fields(d, out);
                    }
                }
            }
            (k, _) if k.starts_with('$') => {}
            (k, _) => {
                out.insert(top(k));
            }
        }
    }
}

/// The top-level fields the traffic's updates modify (`$set: {views: …}`, `$inc: {"a.b": 1}`
/// gives `a`; a `$rename`'s target too).
pub fn updated_fields(traffic: &[Operation]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for op in traffic {
        let Some(u) = op.update.as_ref() else {
            continue;
        };
        for (operator, fields) in u {
            let Bson::Document(fields) = fields else {
                continue;
            };
            if !operator.starts_with('$') {
                continue;
            }
            for (path, value) in fields {
                out.insert(top(path));
                if operator == "$rename"
                    && let Some(to) = value.as_str()
                {
                    out.insert(top(to));
                }
            }
        }
    }
    out
}

fn top(path: &str) -> String {
    path.split('.').next().unwrap_or(path).to_string()
}

/// The key's monotonicity over the sample, in stream order, when it is monotonic.
fn monotonic_in_sample(key: &str, stats: &FieldStats) -> Option<f64> {
    let pattern = KeyPattern::parse_json(key).ok()?;
    let mut c = Characteristics::new(&pattern, false);
    for d in &stats.sample {
        let size = bson::to_vec(d).map_or(0, |v| v.len() as u64);
        c.observe(d, size).ok()?;
    }
    let found = c.finish();
    (found.monotonicity == Monotonicity::Monotonic).then_some(found.coefficient.unwrap_or(0.0))
}

/// The collection the suggestions are for: how many documents, and the lab's chunk size. With
/// the sample's average size they give the chunks the data fills.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scale {
    pub documents: u64,
    pub chunk_size_bytes: u64,
}

impl Scale {
    /// The chunks the data fills at the chunk size (as the report's `needed_chunks`).
    fn needed_chunks(self, stats: &FieldStats) -> u64 {
        (self.documents * stats.avg_size()).div_ceil(self.chunk_size_bytes.max(1))
    }

    /// The bytes the busiest value of `field` holds in the whole data, projected from the
    /// sample.
    fn busiest_bytes(self, stats: &FieldStats, field: &str) -> u64 {
        let share = stats.max_frequency(field) as f64 / stats.docs.max(1) as f64;
        (share * self.documents as f64 * stats.avg_size() as f64) as u64
    }
}

/// Up to [`MAX`] candidates with reasons; empty when the traffic names no field by equality
/// that it does not also update.
pub fn suggest(traffic: &[Operation], stats: &FieldStats, scale: Scale) -> Vec<Suggestion> {
    let mut out = propose(traffic, stats, scale);
    for s in &mut out {
        if let Some(c) = monotonic_in_sample(&s.key, stats) {
            s.reason.push_str(&format!(
                "; warning: monotonic over the sample (coefficient {c:.2}): new documents go to one chunk at an end"
            ));
        }
    }
    out
}

/// Per field, the weight of the operations naming it by equality; per pair, named together.
type Weights = (BTreeMap<String, u64>, BTreeMap<(String, String), u64>);

fn equality_weights(traffic: &[Operation], updated: &BTreeSet<String>) -> Weights {
    let mut by_field: BTreeMap<String, u64> = BTreeMap::new();
    let mut by_pair: BTreeMap<(String, String), u64> = BTreeMap::new();
    for op in traffic {
        let mut fields = BTreeSet::new();
        equality_fields(&op.filter, &mut fields);
        fields.retain(|f| !updated.contains(f));
        for f in &fields {
            *by_field.entry(f.clone()).or_default() += op.weight;
        }
        let list: Vec<&String> = fields.iter().collect();
        for (i, a) in list.iter().enumerate() {
            for b in &list[i + 1..] {
                *by_pair.entry(((*a).clone(), (*b).clone())).or_default() += op.weight;
            }
        }
    }
    (by_field, by_pair)
}

/// The fields the traffic names (by any operator) in the same filter as `first`, with the
/// weight of those operations; not `first`, not a field the traffic updates.
fn named_with(
    traffic: &[Operation],
    first: &str,
    updated: &BTreeSet<String>,
) -> BTreeMap<String, u64> {
    let mut out: BTreeMap<String, u64> = BTreeMap::new();
    for op in traffic {
        let mut fields = BTreeSet::new();
        named_fields(&op.filter, &mut fields);
        if !fields.contains(first) {
            continue;
        }
        for f in fields {
            if f != first && !updated.contains(&f) {
                *out.entry(f).or_default() += op.weight;
            }
        }
    }
    out
}

fn propose(traffic: &[Operation], stats: &FieldStats, scale: Scale) -> Vec<Suggestion> {
    let updated = updated_fields(traffic);
    let total: u64 = traffic.iter().map(|o| o.weight).sum();
    let (by_field, by_pair) = equality_weights(traffic, &updated);
    let mut ranked: Vec<(String, u64)> = by_field.into_iter().collect();
    ranked.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let Some((first, weight)) = ranked.first().cloned() else {
        return Vec::new();
    };
    let share = |w: u64| w as f64 * 100.0 / total.max(1) as f64;
    let left_out: Vec<&str> = updated.iter().map(String::as_str).collect();
    let mut reason = format!(
        "{first} is named by equality in {:.0}% of the traffic: those queries go to one shard",
        share(weight)
    );
    if !left_out.is_empty() {
        reason.push_str(&format!(
            " (left out: {}, which the traffic updates)",
            left_out.join(", ")
        ));
    }
    let values = stats.distinct(&first) as u64;
    let needed = scale.needed_chunks(stats);
    let few = super::verdict::too_few_values(values, needed);
    if few {
        // The verdict's `N hot spots` rule: hashing makes no more places than the values.
        reason.push_str(&format!(
            "; not hashed: {first} has {values} values in the sample, fewer than the {needed} chunks the data fills, so a hashed {first} would still send the inserts to at most {values} chunks"
        ));
    }
    let busiest = scale.busiest_bytes(stats, &first);
    let busy = busiest > scale.chunk_size_bytes;
    let with = named_with(traffic, &first, &updated);
    let suffix = with
        .iter()
        .filter(|(f, _)| stats.distinct(f) > 1)
        .max_by_key(|(f, w)| (stats.distinct(f), **w, std::cmp::Reverse((*f).clone())));
    if busy && suffix.is_none() {
        reason.push_str(&format!(
            "; its busiest value holds about {} (over the {} chunk size) but no operation names another field with {first} to split it by",
            mib(busiest),
            mib(scale.chunk_size_bytes)
        ));
    }
    let mut out = vec![Suggestion {
        key: format!(r#"{{"{first}": 1}}"#),
        reason,
    }];
    if !few {
        out.push(Suggestion {
            key: format!(r#"{{"{first}": "hashed"}}"#),
            reason: format!(
                "hashed {first}: {values} values in the sample, more than the {needed} chunks the data fills, so the inserts spread even if {first} grows; the equality queries still on one shard, no range targeting on {first}"
            ),
        });
    }
    if let (true, Some((s, w))) = (busy || few, suffix) {
        let why = if busy {
            format!(
                "{first}'s busiest value holds about {} of the data ({} documents of {} sampled), over the {} chunk size",
                mib(busiest),
                stats.max_frequency(&first),
                stats.docs,
                mib(scale.chunk_size_bytes)
            )
        } else {
            format!("{first} has only {values} values for the {needed} chunks the data fills")
        };
        out.push(Suggestion {
            key: format!(r#"{{"{first}": 1, "{s}": 1}}"#),
            reason: format!(
                "{why}; {s}, named with {first} in {:.0}% of the traffic, has {} values in the sample and splits it",
                share(*w),
                stats.distinct(s)
            ),
        });
    }
    let pair = by_pair
        .iter()
        .filter(|((a, b), _)| *a == first || *b == first)
        .max_by_key(|(_, w)| **w);
    if let Some(((a, b), w)) = pair {
        let other = if *a == first { b } else { a };
        let key = format!(r#"{{"{first}": 1, "{other}": 1}}"#);
        if !out.iter().any(|s| s.key == key) {
            out.push(Suggestion {
                key,
                reason: format!(
                    "{first} and {other} are named together by equality in {:.0}% of the traffic",
                    share(*w)
                ),
            });
        }
    }
    out.truncate(MAX);
    out
}

/// Bytes as MiB, one decimal (`2.7 MiB`).
fn mib(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / f64::from(1u32 << 20))
}
