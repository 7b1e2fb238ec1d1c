//! Zone ranges of a collection (`config.tags`): half-open ranges of the shard key, each tagged
//! with a zone name, never overlapping. A chunk belongs to a zone only when it lies wholly inside
//! one of the zone's ranges.

use std::fmt;

use super::key::ShardKey;

/// One zone range `[min, max)` → zone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ZoneRange {
    pub min: ShardKey,
    pub max: ShardKey,
    pub zone: String,
}

/// The zone ranges of one collection, sorted by `min`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ZoneRanges {
    ranges: Vec<ZoneRange>,
}

/// A refused zone-range change, with MongoDB's wording where it has one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ZoneError {
    /// `min` is not below `max`.
    EmptyRange,
    /// The new range overlaps an existing one (of any zone).
    Overlap { existing: ZoneRange },
    /// No range with exactly these bounds exists (removal needs an exact match).
    NoExactMatch,
}

impl fmt::Display for ZoneError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::EmptyRange => f.write_str("the zone range's min must be less than its max"),
            Self::Overlap { existing } => write!(
                f,
                "zone range overlaps the existing range [{}, {}) of zone {}",
                super::shell_text::stripped_key(&existing.min),
                super::shell_text::stripped_key(&existing.max),
                existing.zone
            ),
            Self::NoExactMatch => f.write_str(
                "no zone range with exactly these bounds: removing a range needs an exact match",
            ),
        }
    }
}

impl std::error::Error for ZoneError {}

impl ZoneRanges {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn iter(&self) -> impl ExactSizeIterator<Item = &ZoneRange> {
        self.ranges.iter()
    }

    pub fn len(&self) -> usize {
        self.ranges.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// Adds `[min, max)` to `zone`; refused when empty or overlapping any existing range.
    pub fn add(
        &mut self,
        min: ShardKey,
        max: ShardKey,
        zone: impl Into<String>,
    ) -> Result<(), ZoneError> {
        if min >= max {
            return Err(ZoneError::EmptyRange);
        }
        let at = self.ranges.partition_point(|r| r.min < min);
        let overlaps_prev = at
            .checked_sub(1)
            .map(|k| &self.ranges[k])
            .filter(|r| r.max > min);
        let overlaps_next = self.ranges.get(at).filter(|r| r.min < max);
        if let Some(existing) = overlaps_prev.or(overlaps_next) {
            return Err(ZoneError::Overlap {
                existing: existing.clone(),
            });
        }
        self.ranges.insert(
            at,
            ZoneRange {
                min,
                max,
                zone: zone.into(),
            },
        );
        Ok(())
    }

    /// Removes the range with exactly these bounds, returning it.
    pub fn remove(&mut self, min: &ShardKey, max: &ShardKey) -> Result<ZoneRange, ZoneError> {
        let at = self.ranges.partition_point(|r| r.min < *min);
        match self.ranges.get(at) {
            Some(r) if r.min == *min && r.max == *max => Ok(self.ranges.remove(at)),
            _ => Err(ZoneError::NoExactMatch),
        }
    }

    /// The range containing `key`, if any.
    pub fn range_of_key(&self, key: &ShardKey) -> Option<&ZoneRange> {
        let at = self.ranges.partition_point(|r| r.min <= *key);
        at.checked_sub(1)
            .map(|k| &self.ranges[k])
            .filter(|r| *key < r.max)
    }

    /// The zone of the chunk `[min, max)`: only when the chunk lies wholly inside one range.
    pub fn zone_of_chunk(&self, min: &ShardKey, max: &ShardKey) -> Option<&str> {
        self.range_of_key(min)
            .filter(|r| *max <= r.max)
            .map(|r| r.zone.as_str())
    }

    /// Zone bounds that fall strictly inside `[min, max)`: where a chunk must be split so that
    /// each piece lies in at most one zone range.
    pub fn boundaries_inside(&self, min: &ShardKey, max: &ShardKey) -> Vec<ShardKey> {
        let mut out: Vec<ShardKey> = self
            .ranges
            .iter()
            .flat_map(|r| [&r.min, &r.max])
            .filter(|b| *b > min && *b < max)
            .cloned()
            .collect();
        out.dedup();
        out
    }
}
