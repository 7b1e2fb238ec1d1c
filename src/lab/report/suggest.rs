//! `--suggest`: candidate keys proposed from the traffic and a sample of the documents, each
//! with its reason — the fields the traffic most often names by equality (so those queries stay
//! on one shard), a hashed variant of the first (even writes, no range targeting), and the first
//! followed by a field of many values when the first's values repeat (seed 003's "a big customer
//! splits by date"). Fields the traffic's updates modify are left out (a shard key that changes
//! moves documents between shards), and a key monotonic over the sample is flagged.
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
    fields: BTreeMap<String, BTreeMap<String, u64>>,
    /// The sampled documents in stream order (for the monotonicity of a proposed key).
    sample: Vec<Document>,
}

impl FieldStats {
    /// Takes one sampled document (only its top-level fields with plain values).
    pub fn observe(&mut self, doc: &Document) {
        self.docs += 1;
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

/// Up to [`MAX`] candidates with reasons; empty when the traffic names no field by equality
/// that it does not also update.
pub fn suggest(traffic: &[Operation], stats: &FieldStats) -> Vec<Suggestion> {
    let mut out = propose(traffic, stats);
    for s in &mut out {
        if let Some(c) = monotonic_in_sample(&s.key, stats) {
            s.reason.push_str(&format!(
                "; warning: monotonic over the sample (coefficient {c:.2}): new documents go to one chunk at an end"
            ));
        }
    }
    out
}

fn propose(traffic: &[Operation], stats: &FieldStats) -> Vec<Suggestion> {
    let updated = updated_fields(traffic);
    let total: u64 = traffic.iter().map(|o| o.weight).sum();
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
    let mut out = vec![Suggestion {
        key: format!(r#"{{"{first}": 1}}"#),
        reason,
    }];
    out.push(Suggestion {
        key: format!(r#"{{"{first}": "hashed"}}"#),
        reason: format!(
            "hashed {first}: even writes even if {first} grows, the equality queries still on one shard, no range targeting on {first}"
        ),
    });
    let repeats = stats.max_frequency(&first) > 1;
    let suffix = stats
        .fields
        .keys()
        .filter(|f| **f != first && f.as_str() != "_id" && !updated.contains(*f))
        .max_by_key(|f| (stats.distinct(f), std::cmp::Reverse((*f).clone())));
    if let (true, Some(s)) = (repeats, suffix) {
        out.push(Suggestion {
            key: format!(r#"{{"{first}": 1, "{s}": 1}}"#),
            reason: format!(
                "{first} repeats (up to {} documents a value in {} sampled); {s} has {} values and splits a busy {first}",
                stats.max_frequency(&first),
                stats.docs,
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
