//! Zone ranges as `config.tags` holds them before a collection is sharded, and zone bounds read
//! from documents. The zone commands and their refusals are `sim::zones`'.

use bson::Document;

use super::error::MongoError;
use crate::model::{KeyPattern, KeyValue, ShardKey, ZoneRanges};

/// A zone range of a namespace that is not sharded yet, with its bounds as given.
#[derive(Clone, Debug, PartialEq)]
pub struct PendingZoneRange {
    pub ns: String,
    pub min: Document,
    pub max: Document,
    pub zone: String,
}

/// The values of a bound document, in its field order.
pub fn values(doc: &Document) -> Vec<KeyValue> {
    doc.values().map(crate::model::extjson::from_bson).collect()
}

/// The pending ranges of `ns` as zone ranges of `pattern` (every bound must name a prefix of the
/// shard key's fields).
pub fn zones_for(
    pending: &[PendingZoneRange],
    ns: &str,
    pattern: &KeyPattern,
) -> Result<ZoneRanges, MongoError> {
    let mut zones = ZoneRanges::new();
    for r in pending.iter().filter(|r| r.ns == ns) {
        let min = zone_bound(pattern, &r.min)?;
        let max = zone_bound(pattern, &r.max)?;
        zones
            .add(min, max, r.zone.clone())
            .map_err(|e| MongoError::range_overlap(e.to_string()))?;
    }
    Ok(zones)
}

/// A zone bound: the shard key's fields in order, a missing trailing field being MinKey.
pub fn zone_bound(
    pattern: &crate::model::KeyPattern,
    doc: &bson::Document,
) -> Result<ShardKey, MongoError> {
    let fields = pattern.fields();
    let names: Vec<&str> = doc.keys().map(String::as_str).collect();
    if names.is_empty()
        || names.len() > fields.len()
        || names.iter().zip(fields).any(|(n, f)| **n != *f.path)
    {
        return Err(MongoError::bad_value(format!(
            "zone bound {} must be a prefix of the shard key {}",
            crate::model::shell_text::document(doc),
            pattern.server_text()
        )));
    }
    let mut values: Vec<KeyValue> = doc.values().map(crate::model::extjson::from_bson).collect();
    values.extend(std::iter::repeat_n(
        KeyValue::MinKey,
        fields.len() - names.len(),
    ));
    ShardKey::from_values(values).ok_or_else(|| MongoError::bad_value("empty zone bound"))
}
