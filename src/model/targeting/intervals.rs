//! Intervals of one shard-key field: bounds, intervals and ordered interval lists (MongoDB's
//! `OrderedIntervalList`), with their intersection and union.

use std::cmp::Ordering;

use crate::model::value::KeyValue;

/// One end of an interval.
#[derive(Clone, Debug)]
pub(super) struct Bound {
    pub(super) value: KeyValue,
    pub(super) inclusive: bool,
}

impl Bound {
    pub(super) fn incl(value: KeyValue) -> Self {
        Self {
            value,
            inclusive: true,
        }
    }

    pub(super) fn excl(value: KeyValue) -> Self {
        Self {
            value,
            inclusive: false,
        }
    }
}

/// Lower bounds in key order: at one value, inclusive starts first.
pub(super) fn cmp_lower(a: &Bound, b: &Bound) -> Ordering {
    a.value
        .cmp(&b.value)
        .then_with(|| b.inclusive.cmp(&a.inclusive))
}

/// Upper bounds in key order: at one value, exclusive ends first.
pub(super) fn cmp_upper(a: &Bound, b: &Bound) -> Ordering {
    a.value
        .cmp(&b.value)
        .then_with(|| a.inclusive.cmp(&b.inclusive))
}

/// A non-empty interval of one field's values.
#[derive(Clone, Debug)]
pub(super) struct Interval {
    pub(super) lo: Bound,
    pub(super) hi: Bound,
}

impl Interval {
    /// The interval, or `None` when it holds no value.
    pub(super) fn new(lo: Bound, hi: Bound) -> Option<Self> {
        let empty = match lo.value.cmp(&hi.value) {
            Ordering::Less => false,
            Ordering::Equal => !(lo.inclusive && hi.inclusive),
            Ordering::Greater => true,
        };
        (!empty).then_some(Self { lo, hi })
    }

    pub(super) fn point(value: KeyValue) -> Self {
        Self {
            lo: Bound::incl(value.clone()),
            hi: Bound::incl(value),
        }
    }

    pub(super) fn everything() -> Self {
        Self {
            lo: Bound::incl(KeyValue::MinKey),
            hi: Bound::incl(KeyValue::MaxKey),
        }
    }

    pub(super) fn is_point(&self) -> bool {
        self.lo.inclusive && self.hi.inclusive && self.lo.value == self.hi.value
    }

    pub(super) fn intersect(&self, other: &Self) -> Option<Self> {
        let lo = if cmp_lower(&self.lo, &other.lo).is_ge() {
            &self.lo
        } else {
            &other.lo
        };
        let hi = if cmp_upper(&self.hi, &other.hi).is_le() {
            &self.hi
        } else {
            &other.hi
        };
        Self::new(lo.clone(), hi.clone())
    }
}

/// The values one key field may take: sorted, disjoint intervals (MongoDB's ordered interval
/// list). No interval: the field can take no value, so the conjunction matches nothing.
#[derive(Clone, Debug)]
pub(super) struct FieldBounds(pub(super) Vec<Interval>);

impl FieldBounds {
    pub(super) fn everything() -> Self {
        Self(vec![Interval::everything()])
    }

    pub(super) fn nothing() -> Self {
        Self(Vec::new())
    }

    pub(super) fn interval(interval: Option<Interval>) -> Self {
        Self(interval.into_iter().collect())
    }

    pub(super) fn points(mut values: Vec<KeyValue>) -> Self {
        values.sort_unstable();
        values.dedup();
        Self(values.into_iter().map(Interval::point).collect())
    }

    pub(super) fn is_everything(&self) -> bool {
        matches!(&self.0[..], [only] if only.lo.value == KeyValue::MinKey
            && only.hi.value == KeyValue::MaxKey
            && only.lo.inclusive
            && only.hi.inclusive)
    }

    /// The smallest single interval holding all of them; `None` when there are none.
    pub(super) fn hull(&self) -> Option<Interval> {
        let (first, last) = (self.0.first()?, self.0.last()?);
        Some(Interval {
            lo: first.lo.clone(),
            hi: last.hi.clone(),
        })
    }

    /// The values in both, by a merge of the two sorted lists.
    pub(super) fn intersect(&self, other: &Self) -> Self {
        let (a, b) = (&self.0, &other.0);
        let (mut i, mut j) = (0, 0);
        let mut out = Vec::new();
        while i < a.len() && j < b.len() {
            out.extend(a[i].intersect(&b[j]));
            if cmp_upper(&a[i].hi, &b[j].hi).is_le() {
                i += 1;
            } else {
                j += 1;
            }
        }
        Self(out)
    }
}
