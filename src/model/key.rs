//! A shard-key value: one value per field of the key pattern, compared field by field.

use std::cmp::Ordering;

use super::value::KeyValue;

/// The values of a document's shard-key fields, in key-pattern order (hashed fields already hashed).
/// A single-field key needs no allocation of its own.
#[derive(Clone, Debug)]
pub struct ShardKey {
    first: KeyValue,
    rest: Box<[KeyValue]>,
}

impl ShardKey {
    /// A one-field key.
    pub fn single(value: KeyValue) -> Self {
        Self {
            first: value,
            rest: Box::default(),
        }
    }

    /// A key from its values in pattern order; `None` for no values.
    pub fn from_values(values: Vec<KeyValue>) -> Option<Self> {
        let mut it = values.into_iter();
        let first = it.next()?;
        Some(Self {
            first,
            rest: it.collect(),
        })
    }

    /// A key of `fields` copies of `value` (the global MinKey / MaxKey bounds).
    pub fn repeat(value: &KeyValue, fields: usize) -> Self {
        Self {
            first: value.clone(),
            rest: vec![value.clone(); fields.saturating_sub(1)].into(),
        }
    }

    pub fn len(&self) -> usize {
        1 + self.rest.len()
    }

    pub fn is_empty(&self) -> bool {
        false
    }

    /// The values in pattern order.
    pub fn values(&self) -> impl Iterator<Item = &KeyValue> {
        std::iter::once(&self.first).chain(self.rest.iter())
    }

    /// The value of field `i`.
    pub fn get(&self, i: usize) -> Option<&KeyValue> {
        if i == 0 {
            Some(&self.first)
        } else {
            self.rest.get(i - 1)
        }
    }

    /// See [`KeyValue::order_prefix`]; compound keys use their first field.
    pub fn order_prefix(&self) -> u128 {
        self.first.order_prefix()
    }
}

impl Ord for ShardKey {
    fn cmp(&self, other: &Self) -> Ordering {
        self.first
            .cmp(&other.first)
            .then_with(|| self.rest.iter().cmp(other.rest.iter()))
    }
}

impl PartialOrd for ShardKey {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for ShardKey {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for ShardKey {}

impl From<KeyValue> for ShardKey {
    fn from(value: KeyValue) -> Self {
        Self::single(value)
    }
}
