//! One BSON value as it can appear in a shard key, compact enough to keep a million of them,
//! with MongoDB's total order across types (`BSONElement::woCompare`, simple collation).

use std::cmp::Ordering;

use super::decimal::Decimal128;
use super::number;

/// A field of an embedded document: its name and value, in document order.
pub type Field = (Box<str>, KeyValue);

/// A BSON value in a shard key or a document being routed.
///
/// Equality is MongoDB's: `42`, `42.0` and `NumberLong(42)` are equal; it is the `Eq` of the total
/// order, so the type deliberately has no `Hash`.
#[derive(Clone, Debug)]
pub enum KeyValue {
    MinKey,
    Undefined,
    Null,
    Int32(i32),
    Int64(i64),
    Double(f64),
    Decimal(Decimal128),
    String(Box<str>),
    Symbol(Box<str>),
    Document(Box<[Field]>),
    Array(Box<[KeyValue]>),
    Binary(Box<Binary>),
    ObjectId([u8; 12]),
    Bool(bool),
    DateTime(i64),
    Timestamp { time: u32, increment: u32 },
    Regex(Box<Regex>),
    DbPointer(Box<DbPointer>),
    Code(Box<str>),
    CodeWithScope(Box<CodeWithScope>),
    MaxKey,
}

/// BinData: subtype and bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Binary {
    pub subtype: u8,
    pub bytes: Box<[u8]>,
}

/// A regular expression: pattern and options.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Regex {
    pub pattern: Box<str>,
    pub options: Box<str>,
}

/// The deprecated DBPointer: a namespace and an ObjectId.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DbPointer {
    pub namespace: Box<str>,
    pub id: [u8; 12],
}

/// JavaScript code with a scope document.
#[derive(Clone, Debug)]
pub struct CodeWithScope {
    pub code: Box<str>,
    pub scope: Box<[Field]>,
}

impl KeyValue {
    /// MongoDB's canonical type (`canonicalizeBSONType`): values of different canonical types
    /// order by it; all numbers share one, so do strings and symbols.
    pub fn canonical_type(&self) -> i32 {
        match self {
            Self::MinKey => -1,
            Self::Undefined => 0,
            Self::Null => 5,
            Self::Int32(_) | Self::Int64(_) | Self::Double(_) | Self::Decimal(_) => 10,
            Self::String(_) | Self::Symbol(_) => 15,
            Self::Document(_) => 20,
            Self::Array(_) => 25,
            Self::Binary(_) => 30,
            Self::ObjectId(_) => 35,
            Self::Bool(_) => 40,
            Self::DateTime(_) => 45,
            Self::Timestamp { .. } => 47,
            Self::Regex(_) => 50,
            Self::DbPointer(_) => 55,
            Self::Code(_) => 60,
            Self::CodeWithScope(_) => 65,
            Self::MaxKey => 127,
        }
    }

    /// The BSON element type byte of this value.
    pub fn bson_type(&self) -> u8 {
        match self {
            Self::MinKey => 0xFF,
            Self::Undefined => 0x06,
            Self::Null => 0x0A,
            Self::Int32(_) => 0x10,
            Self::Int64(_) => 0x12,
            Self::Double(_) => 0x01,
            Self::Decimal(_) => 0x13,
            Self::String(_) => 0x02,
            Self::Symbol(_) => 0x0E,
            Self::Document(_) => 0x03,
            Self::Array(_) => 0x04,
            Self::Binary(_) => 0x05,
            Self::ObjectId(_) => 0x07,
            Self::Bool(_) => 0x08,
            Self::DateTime(_) => 0x09,
            Self::Timestamp { .. } => 0x11,
            Self::Regex(_) => 0x0B,
            Self::DbPointer(_) => 0x0C,
            Self::Code(_) => 0x0D,
            Self::CodeWithScope(_) => 0x0F,
            Self::MaxKey => 0x7F,
        }
    }

    pub fn is_number(&self) -> bool {
        self.canonical_type() == 10
    }

    /// A string value.
    pub fn string(s: impl Into<Box<str>>) -> Self {
        Self::String(s.into())
    }

    /// Compares two values of the same canonical type (`compareElementValues`).
    fn compare_values(&self, other: &Self) -> Ordering {
        use KeyValue as V;
        match (self, other) {
            (V::String(a) | V::Symbol(a), V::String(b) | V::Symbol(b))
            | (V::Code(a), V::Code(b)) => a.as_bytes().cmp(b.as_bytes()),
            (V::Document(a), V::Document(b)) => compare_fields(a, b),
            (V::Array(a), V::Array(b)) => compare_arrays(a, b),
            (V::Binary(a), V::Binary(b)) => a
                .bytes
                .len()
                .cmp(&b.bytes.len())
                .then(a.subtype.cmp(&b.subtype))
                .then_with(|| a.bytes.cmp(&b.bytes)),
            (V::ObjectId(a), V::ObjectId(b)) => a.cmp(b),
            (V::Bool(a), V::Bool(b)) => a.cmp(b),
            (V::DateTime(a), V::DateTime(b)) => a.cmp(b),
            (
                V::Timestamp {
                    time: t1,
                    increment: i1,
                },
                V::Timestamp {
                    time: t2,
                    increment: i2,
                },
            ) => (t1, i1).cmp(&(t2, i2)),
            (V::Regex(a), V::Regex(b)) => a
                .pattern
                .as_bytes()
                .cmp(b.pattern.as_bytes())
                .then_with(|| a.options.as_bytes().cmp(b.options.as_bytes())),
            (V::DbPointer(a), V::DbPointer(b)) => a
                .namespace
                .len()
                .cmp(&b.namespace.len())
                .then_with(|| a.namespace.as_bytes().cmp(b.namespace.as_bytes()))
                .then_with(|| a.id.cmp(&b.id)),
            (V::CodeWithScope(a), V::CodeWithScope(b)) => a
                .code
                .as_bytes()
                .cmp(b.code.as_bytes())
                .then_with(|| compare_fields(&a.scope, &b.scope)),
            _ if self.is_number() => number::compare(self, other),
            // MinKey, MaxKey, Null, Undefined: one value per type.
            _ => Ordering::Equal,
        }
    }
}

/// Two embedded documents, element by element: canonical type, then field name, then value; a
/// document that ends first is smaller (`BSONObj::woCompare` with field names considered).
fn compare_fields(a: &[Field], b: &[Field]) -> Ordering {
    for ((na, va), (nb, vb)) in a.iter().zip(b.iter()) {
        let order = va
            .canonical_type()
            .cmp(&vb.canonical_type())
            .then_with(|| na.as_bytes().cmp(nb.as_bytes()))
            .then_with(|| va.compare_values(vb));
        if order != Ordering::Equal {
            return order;
        }
    }
    a.len().cmp(&b.len())
}

/// Arrays compare as documents whose field names are the indexes, so names always match.
fn compare_arrays(a: &[KeyValue], b: &[KeyValue]) -> Ordering {
    for (va, vb) in a.iter().zip(b.iter()) {
        let order = va.cmp(vb);
        if order != Ordering::Equal {
            return order;
        }
    }
    a.len().cmp(&b.len())
}

impl Ord for KeyValue {
    fn cmp(&self, other: &Self) -> Ordering {
        self.canonical_type()
            .cmp(&other.canonical_type())
            .then_with(|| self.compare_values(other))
    }
}

impl PartialOrd for KeyValue {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for KeyValue {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for KeyValue {}

impl KeyValue {
    /// A 128-bit prefix that never contradicts the order: `a < b` implies
    /// `prefix(a) <= prefix(b)`. Equal prefixes need the full comparison. Routing searches these.
    pub fn order_prefix(&self) -> u128 {
        let rank = u128::from((self.canonical_type() + 1) as u8) << 120;
        let rest: u128 = match self {
            Self::Int32(_) | Self::Int64(_) | Self::Double(_) | Self::Decimal(_) => {
                u128::from(number::order_bits(self)) << 56
            }
            Self::String(s) | Self::Symbol(s) | Self::Code(s) => bytes_prefix(s.as_bytes(), 15),
            Self::ObjectId(oid) => bytes_prefix(oid, 12) << 24,
            Self::Bool(b) => u128::from(*b) << 112,
            Self::DateTime(ms) => u128::from((*ms as u64) ^ (1 << 63)) << 56,
            Self::Timestamp { time, increment } => {
                (u128::from(*time) << 88) | (u128::from(*increment) << 56)
            }
            Self::Binary(b) => {
                let len = u32::try_from(b.bytes.len()).unwrap_or(u32::MAX);
                (u128::from(len) << 88) | (u128::from(b.subtype) << 80) | bytes_prefix(&b.bytes, 10)
            }
            _ => 0,
        };
        rank | rest
    }
}

/// The first `n` (≤ 15) bytes of `bytes`, zero-padded, read as an `n`-byte big-endian number.
fn bytes_prefix(bytes: &[u8], n: usize) -> u128 {
    let mut out = [0u8; 16];
    let take = bytes.len().min(n);
    out[16 - n..16 - n + take].copy_from_slice(&bytes[..take]);
    u128::from_be_bytes(out)
}
