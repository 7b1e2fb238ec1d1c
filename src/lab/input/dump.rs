//! The unique indexes of a `mongodump` data source: beside `coll.bson` (or `coll.bson.gz`),
//! mongodump writes `coll.metadata.json` (`coll.metadata.json.gz` with `--gzip`), canonical
//! Extended JSON with the collection's `indexes` (`{v, key, name, unique?}`). Absent metadata
//! is no index; malformed metadata is an error naming the file. A descending field is shown as
//! 1 (the prefix rule reads field names only). Imports the lab's input errors and `model`.

use std::io::Read;
use std::path::{Path, PathBuf};

use super::data::InputError;
use crate::model::KeyPattern;

/// A metadata file is a few kilobytes; past this it is not one.
const MAX_METADATA_BYTES: u64 = 16 << 20;

/// The metadata file beside a dump's data file, when the data file is one.
fn metadata_of(data: &Path) -> Option<PathBuf> {
    let name = data.file_name()?.to_str()?;
    let meta = if let Some(stem) = name.strip_suffix(".bson.gz") {
        format!("{stem}.metadata.json.gz")
    } else {
        format!("{}.metadata.json", name.strip_suffix(".bson")?)
    };
    Some(data.with_file_name(meta))
}

/// The unique indexes (other than `_id`'s) the dump's metadata lists.
pub fn unique_indexes(data: &Path) -> Result<Vec<KeyPattern>, InputError> {
    let Some(meta) = metadata_of(data).filter(|m| m.exists()) else {
        return Ok(Vec::new());
    };
    let shown = meta.display().to_string();
    let bad = |why: String| InputError::in_file(&shown, why);
    let file = std::fs::File::open(&meta).map_err(|e| bad(e.to_string()))?;
    let mut text = String::new();
    let gzip = meta
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("gz"));
    let reader: Box<dyn Read> = if gzip {
        Box::new(flate2::read::MultiGzDecoder::new(file))
    } else {
        Box::new(file)
    };
    reader
        .take(MAX_METADATA_BYTES)
        .read_to_string(&mut text)
        .map_err(|e| bad(e.to_string()))?;
    let value: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| bad(format!("not valid JSON: {e}")))?;
    let Ok(bson::Bson::Document(doc)) = bson::Bson::try_from(value) else {
        return Err(bad("not an Extended JSON document".into()));
    };
    let Ok(indexes) = doc.get_array("indexes") else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for (i, index) in indexes.iter().enumerate() {
        let bson::Bson::Document(index) = index else {
            return Err(bad(format!("indexes[{i}] is not a document")));
        };
        if !matches!(index.get("unique"), Some(bson::Bson::Boolean(true))) {
            continue;
        }
        let key = index
            .get_document("key")
            .map_err(|_| bad(format!("indexes[{i}].key is not a document")))?;
        if key.len() == 1 && key.contains_key("_id") {
            continue;
        }
        // The prefix rule reads field names only: a direction is kept as 1; an index of another
        // kind (text, 2dsphere…) is not one the rule speaks of.
        let Some(fields) = key
            .iter()
            .map(|(f, v)| {
                matches!(
                    v,
                    bson::Bson::Int32(_) | bson::Bson::Int64(_) | bson::Bson::Double(_)
                )
                .then(|| (f.clone(), bson::Bson::Int32(1)))
            })
            .collect::<Option<bson::Document>>()
        else {
            continue;
        };
        let pattern =
            KeyPattern::parse(&fields).map_err(|e| bad(format!("indexes[{i}].key: {}", e.0)))?;
        out.push(pattern);
    }
    Ok(out)
}
