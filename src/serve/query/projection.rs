//! Find's projection (and `$project`'s without computed fields): inclusion (`_id` kept unless
//! excluded) or exclusion, of top-level or dotted fields; a dotted field through an array is
//! taken in each of its documents (`{"arr.a": 1}` keeps `a` of each, scalars are dropped), as
//! `db/exec/projection_executor` projects it.
//!
//! May import the rest of `query` and `reply`.

use bson::{Bson, Document};

use crate::cluster::MongoError;
use crate::serve::query::{bad_value, truthy};

/// A projection: inclusion (`_id` kept unless excluded) or exclusion.
pub struct Projection {
    include: bool,
    fields: Vec<String>,
    keep_id: bool,
}

impl Projection {
    pub fn parse(spec: &Document) -> Result<Self, MongoError> {
        let mut include: Option<bool> = None;
        let mut fields = Vec::new();
        let mut keep_id = true;
        for (k, v) in spec {
            if matches!(v, Bson::Document(_) | Bson::String(_)) {
                return Err(bad_value(format!(
                    "projection of {k}: only inclusion (1) and exclusion (0) are supported"
                )));
            }
            let on = truthy(v);
            if k == "_id" {
                keep_id = on;
                continue;
            }
            if include.is_some_and(|i| i != on) {
                return Err(MongoError {
                    code: 31254,
                    code_name: "Location31254",
                    message: format!(
                        "Cannot do {} on field {k} in {} projection",
                        if on { "inclusion" } else { "exclusion" },
                        if on { "exclusion" } else { "inclusion" }
                    ),
                });
            }
            include = Some(on);
            fields.push(k.clone());
        }
        // Only `_id` named: `{_id: 1}` keeps just it, `{_id: 0}` drops just it.
        let include = include.unwrap_or(keep_id && !spec.is_empty());
        Ok(Self {
            include,
            fields,
            keep_id,
        })
    }

    pub fn apply(&self, doc: &Document) -> Document {
        if self.include {
            let mut out = Document::new();
            if self.keep_id
                && let Some(id) = doc.get("_id")
            {
                out.insert("_id", id.clone());
            }
            for f in &self.fields {
                let (head, rest) = f.split_once('.').map_or((f.as_str(), ""), |(h, r)| (h, r));
                let parts: Vec<&str> = if rest.is_empty() {
                    Vec::new()
                } else {
                    rest.split('.').collect()
                };
                let Some(v) = doc.get(head).and_then(|v| included(v, &parts)) else {
                    continue;
                };
                let merged = match out.remove(head) {
                    Some(before) => merge(before, v),
                    None => v,
                };
                out.insert(head, merged);
            }
            out
        } else {
            let mut out = doc.clone();
            if !self.keep_id {
                out.remove("_id");
            }
            for f in &self.fields {
                remove_path(&mut out, f);
            }
            out
        }
    }
}

/// What an inclusion of the dotted `parts` keeps of `v`: through a document its field, through
/// an array each element's (a document always stays, as an empty one when it lacks the field;
/// scalars go), `None` when nothing is kept.
fn included(v: &Bson, parts: &[&str]) -> Option<Bson> {
    let Some((first, rest)) = parts.split_first() else {
        return Some(v.clone());
    };
    match v {
        Bson::Document(d) => {
            let inner = d.get(*first).and_then(|x| included(x, rest))?;
            let mut out = Document::new();
            out.insert(*first, inner);
            Some(Bson::Document(out))
        }
        Bson::Array(items) => Some(Bson::Array(
            items
                .iter()
                .filter_map(|i| match i {
                    Bson::Document(_) => {
                        Some(included(i, parts).unwrap_or(Bson::Document(Document::new())))
                    }
                    Bson::Array(_) => included(i, parts),
                    _ => None,
                })
                .collect(),
        )),
        _ => None,
    }
}

/// Two inclusions of the same top-level field put together.
fn merge(a: Bson, b: Bson) -> Bson {
    match (a, b) {
        (Bson::Document(mut x), Bson::Document(y)) => {
            for (k, v) in y {
                let v = match x.remove(&k) {
                    Some(before) => merge(before, v),
                    None => v,
                };
                x.insert(k, v);
            }
            Bson::Document(x)
        }
        (Bson::Array(x), Bson::Array(y)) if x.len() == y.len() => {
            Bson::Array(x.into_iter().zip(y).map(|(a, b)| merge(a, b)).collect())
        }
        (_, b) => b,
    }
}

/// Removes dotted `path` (through an array, from each of its documents).
fn remove_path(doc: &mut Document, path: &str) {
    match path.split_once('.') {
        None => {
            doc.remove(path);
        }
        Some((head, rest)) => match doc.get_mut(head) {
            Some(Bson::Document(inner)) => remove_path(inner, rest),
            Some(Bson::Array(items)) => {
                for i in items {
                    if let Bson::Document(inner) = i {
                        remove_path(inner, rest);
                    }
                }
            }
            _ => {}
        },
    }
}
