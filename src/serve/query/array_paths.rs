//! The values a dotted path reaches in a filter, as the matcher walks it
//! (`db/matcher/path.cpp`, `BSONElementIterator`): through embedded documents; through an array,
//! into each of its documents; and, when the next part is a number, also to the array's element
//! at that index (`{"dim_cm.1": {$gt: 25}}`, `{"arr.1": 20}`, nested `m.0.1`) — both, so a
//! numeric part reaches an element's field of that name too. A document that lacks the field
//! gives a missing value (which equals null).
//!
//! May import nothing else of `query`.

use bson::{Bson, Document};

/// Every value `path` reaches in `doc` (`None`: missing).
pub fn values(doc: &Document, path: &str) -> Vec<Option<Bson>> {
    let parts: Vec<&str> = path.split('.').collect();
    let mut out = Vec::new();
    in_document(doc, &parts, &mut out);
    if out.is_empty() {
        out.push(None);
    }
    out
}

fn in_document(d: &Document, parts: &[&str], out: &mut Vec<Option<Bson>>) {
    let Some((first, rest)) = parts.split_first() else {
        return;
    };
    match d.get(*first) {
        Some(v) => in_value(v, rest, out),
        None => out.push(None),
    }
}

fn in_value(v: &Bson, parts: &[&str], out: &mut Vec<Option<Bson>>) {
    let Some((first, rest)) = parts.split_first() else {
        out.push(Some(v.clone()));
        return;
    };
    match v {
        Bson::Document(d) => in_document(d, parts, out),
        Bson::Array(items) => {
            let before = out.len();
            if let Ok(i) = first.parse::<usize>()
                && let Some(x) = items.get(i)
            {
                in_value(x, rest, out);
            }
            for item in items {
                if let Bson::Document(d) = item {
                    in_document(d, parts, out);
                }
            }
            if out.len() == before && first.parse::<usize>().is_err() {
                out.push(None);
            }
        }
        _ => out.push(None),
    }
}

#[cfg(test)]
mod tests {
    use bson::doc;

    use super::*;

    #[test]
    fn numeric_parts_reach_array_elements_and_fields() {
        let d = doc! {
            "dim_cm": [14, 21], "m": [[1, 2], [3, 4]],
            "docs": [{ "1": "field" }, { "x": 1 }],
        };
        assert_eq!(values(&d, "dim_cm.1"), vec![Some(Bson::Int32(21))]);
        assert_eq!(values(&d, "m.0.1"), vec![Some(Bson::Int32(2))]);
        assert_eq!(
            values(&d, "docs.1"),
            vec![
                Some(Bson::Document(doc! { "x": 1 })),
                Some(Bson::String("field".into())),
                None
            ]
        );
        assert_eq!(values(&d, "dim_cm.5"), vec![None]);
        assert_eq!(values(&d, "docs.x"), vec![None, Some(Bson::Int32(1))]);
    }
}
