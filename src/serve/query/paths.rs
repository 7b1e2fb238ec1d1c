//! Writing at dotted paths (through embedded documents and array indexes), as the update
//! operators do, and the document an upsert starts from.

use bson::oid::ObjectId;
use bson::{Bson, Document, doc};

use crate::cluster::MongoError;

fn path_not_viable(path: &str, part: &str) -> MongoError {
    MongoError {
        code: 28,
        code_name: "PathNotViable",
        message: format!("Cannot create field '{part}' in element {{{path}}}"),
    }
}

/// The value at dotted `path` as an update operator reads it: through embedded documents and,
/// by a numeric part, an array's element (`update/path_support.cpp`).
pub fn value_at<'a>(doc: &'a Document, path: &str) -> Option<&'a Bson> {
    let mut parts = path.split('.');
    let mut current = doc.get(parts.next()?)?;
    for p in parts {
        current = match current {
            Bson::Document(inner) => inner.get(p)?,
            Bson::Array(items) => items.get(p.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(current)
}

/// Sets `value` at dotted `path`, creating embedded documents on the way.
pub fn set_path(doc: &mut Document, path: &str, value: Bson) -> Result<(), MongoError> {
    match path.split_once('.') {
        None => {
            doc.insert(path, value);
            Ok(())
        }
        Some((head, rest)) => {
            if doc.get(head).is_none() {
                doc.insert(head, Document::new());
            }
            match doc.get_mut(head) {
                Some(Bson::Document(inner)) => set_path(inner, rest, value),
                Some(Bson::Array(items)) => set_in_array(items, path, rest, value),
                _ => Err(path_not_viable(path, rest)),
            }
        }
    }
}

fn set_in_array(
    items: &mut Vec<Bson>,
    path: &str,
    rest: &str,
    value: Bson,
) -> Result<(), MongoError> {
    let (index, after) = rest
        .split_once('.')
        .map_or((rest, None), |(i, a)| (i, Some(a)));
    let Ok(i) = index.parse::<usize>() else {
        return Err(path_not_viable(path, index));
    };
    if i > 1_500_000 {
        return Err(path_not_viable(path, index));
    }
    while items.len() <= i {
        items.push(Bson::Null);
    }
    match after {
        None => {
            items[i] = value;
            Ok(())
        }
        Some(after) => {
            if matches!(items[i], Bson::Null) {
                items[i] = Bson::Document(Document::new());
            }
            match &mut items[i] {
                Bson::Document(inner) => set_path(inner, after, value),
                Bson::Array(inner) => set_in_array(inner, path, after, value),
                _ => Err(path_not_viable(path, after)),
            }
        }
    }
}

/// Removes dotted `path` (an array element becomes null, as `$unset` leaves it).
pub fn remove_path(doc: &mut Document, path: &str) {
    match path.split_once('.') {
        None => {
            doc.remove(path);
        }
        Some((head, rest)) => match doc.get_mut(head) {
            Some(Bson::Document(inner)) => remove_path(inner, rest),
            Some(Bson::Array(items)) => {
                if let Ok(i) = rest.parse::<usize>()
                    && i < items.len()
                {
                    items[i] = Bson::Null;
                }
            }
            _ => {}
        },
    }
}

/// The document an upsert starts from: the query's equality conditions (top level, `$eq`, and
/// inside `$and`), operators and `$`-fields left out.
pub fn upsert_base(q: &Document) -> Result<Document, MongoError> {
    let mut out = Document::new();
    for (k, v) in q {
        if k == "$and" {
            if let Bson::Array(items) = v {
                for i in items {
                    if let Bson::Document(d) = i {
                        for (k2, v2) in upsert_base(d)? {
                            set_path(&mut out, &k2, v2)?;
                        }
                    }
                }
            }
            continue;
        }
        if k.starts_with('$') {
            continue;
        }
        match v {
            Bson::Document(d) if d.keys().next().is_some_and(|x| x.starts_with('$')) => {
                if let (1, Some(eq)) = (d.len(), d.get("$eq")) {
                    set_path(&mut out, k, eq.clone())?;
                }
            }
            Bson::RegularExpression(_) => {}
            v => set_path(&mut out, k, v.clone())?,
        }
    }
    Ok(out)
}

/// `d` with its `_id` first (a new ObjectId when it has none).
pub fn with_id(mut d: Document) -> Document {
    if d.keys().next().map(String::as_str) == Some("_id") {
        return d;
    }
    // As the server does, `_id` goes first (drivers that add it append it).
    let id = d
        .remove("_id")
        .unwrap_or_else(|| Bson::ObjectId(ObjectId::new()));
    let mut out = doc! { "_id": id };
    out.extend(d);
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use bson::doc;

    use super::*;

    #[test]
    fn upsert_base_takes_equalities() {
        let q = doc! { "a": 1, "b": { "$gt": 2 }, "c": { "$eq": 3 }, "$and": [{ "d.e": 4 }] };
        assert_eq!(
            upsert_base(&q).unwrap(),
            doc! { "a": 1, "c": 3, "d": { "e": 4 } }
        );
    }

    #[test]
    fn set_creates_documents_and_fills_arrays() {
        let mut d = doc! { "a": [1] };
        set_path(&mut d, "a.2", Bson::Int32(3)).unwrap();
        set_path(&mut d, "b.c", Bson::Int32(4)).unwrap();
        assert_eq!(d, doc! { "a": [1, Bson::Null, 3], "b": { "c": 4 } });
        assert_eq!(set_path(&mut d, "b.c.x", Bson::Null).unwrap_err().code, 28);
        remove_path(&mut d, "a.0");
        remove_path(&mut d, "b.c");
        assert_eq!(d, doc! { "a": [Bson::Null, Bson::Null, 3], "b": {} });
    }
}
