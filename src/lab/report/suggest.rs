//! `--suggest`: candidate keys proposed from the traffic and a sample of the documents, each
//! with its reason — the fields the traffic most often names by equality (so those queries stay
//! on one shard), a hashed variant of the first (even writes, no range targeting), and the first
//! followed by a field of many values when the first's values repeat (seed 003's "a big customer
//! splits by date").

use std::collections::{BTreeMap, BTreeSet};

use bson::{Bson, Document};

use crate::analyze::operation::Operation;

/// The most candidates proposed.
pub const MAX: usize = 4;
/// Documents sampled for the fields' cardinalities.
pub const SAMPLE: usize = 10_000;

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

/// Up to [`MAX`] candidates with reasons; empty when the traffic names no field by equality.
pub fn suggest(traffic: &[Operation], stats: &FieldStats) -> Vec<Suggestion> {
    let total: u64 = traffic.iter().map(|o| o.weight).sum();
    let mut by_field: BTreeMap<String, u64> = BTreeMap::new();
    let mut by_pair: BTreeMap<(String, String), u64> = BTreeMap::new();
    for op in traffic {
        let mut fields = BTreeSet::new();
        equality_fields(&op.filter, &mut fields);
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
    let mut out = vec![Suggestion {
        key: format!(r#"{{"{first}": 1}}"#),
        reason: format!(
            "{first} is named by equality in {:.0}% of the traffic: those queries go to one shard",
            share(weight)
        ),
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
        .filter(|f| **f != first && f.as_str() != "_id")
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
