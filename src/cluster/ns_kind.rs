//! What a sharded namespace is, from its name, and the name a person knows it by: a time-series
//! collection is sharded as its buckets collection `db.system.buckets.coll` (its documents are
//! buckets, not measurements) and is known by its view `db.coll`; a `reshardCollection` in
//! flight has a temporary collection `db.system.resharding.<uuid>` that is not a user's.
//!
//! Owns: those naming rules. May not touch: anything but the name.

// mongo `src/mongo/db/namespace_string.h`: `kTimeseriesBucketsCollectionPrefix`
// ("system.buckets."), `kTemporaryReshardingCollectionPrefix` ("system.resharding.").
const BUCKETS: &str = "system.buckets.";
const RESHARDING: &str = "system.resharding.";

/// What a namespace is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NsKind {
    /// A user's collection.
    Plain,
    /// The buckets of the time-series collection whose view is `view`.
    TimeseriesBuckets { view: String },
    /// The temporary collection of a resharding in flight (`uuid`: the original collection's).
    ReshardingTemporary { uuid: String },
}

impl NsKind {
    pub fn of(ns: &str) -> Self {
        let Some((db, coll)) = ns.split_once('.') else {
            return Self::Plain;
        };
        if let Some(rest) = coll.strip_prefix(BUCKETS).filter(|r| !r.is_empty()) {
            return Self::TimeseriesBuckets {
                view: format!("{db}.{rest}"),
            };
        }
        if let Some(uuid) = coll.strip_prefix(RESHARDING).filter(|r| !r.is_empty()) {
            return Self::ReshardingTemporary {
                uuid: uuid.to_string(),
            };
        }
        Self::Plain
    }

    /// What the collection's documents are: `buckets` for a time series, `docs` otherwise.
    pub fn unit(&self) -> &'static str {
        match self {
            Self::TimeseriesBuckets { .. } => "buckets",
            _ => "docs",
        }
    }
}

/// The name a person knows the namespace by (a time series: its view).
pub fn display_ns(ns: &str) -> String {
    match NsKind::of(ns) {
        NsKind::TimeseriesBuckets { view } => view,
        _ => ns.to_string(),
    }
}

/// A label for what the namespace is, when it is not a plain collection.
pub fn label(ns: &str) -> Option<String> {
    match NsKind::of(ns) {
        NsKind::Plain => None,
        NsKind::TimeseriesBuckets { .. } => Some(format!("time series (buckets in {ns})")),
        NsKind::ReshardingTemporary { uuid } => Some(format!(
            "resharding's temporary collection (of the collection with uuid {uuid})"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_and_resharding_collections_are_named_for_what_they_are() {
        assert_eq!(display_ns("iot.system.buckets.weather"), "iot.weather");
        assert_eq!(
            NsKind::of("iot.system.buckets.weather").unit(),
            "buckets",
            "a buckets collection counts buckets"
        );
        assert_eq!(display_ns("shop.orders"), "shop.orders");
        assert_eq!(NsKind::of("shop.orders"), NsKind::Plain);
        assert_eq!(
            NsKind::of("shop.system.resharding.2d0b2e5c-1a0e-4a55-9a59-4d6c3b6f1d3e"),
            NsKind::ReshardingTemporary {
                uuid: "2d0b2e5c-1a0e-4a55-9a59-4d6c3b6f1d3e".into()
            }
        );
        assert!(
            label("shop.system.resharding.x")
                .is_some_and(|l| l.starts_with("resharding's temporary collection"))
        );
        // Not a prefix match on the database, nor an empty rest.
        assert_eq!(NsKind::of("system.buckets.x"), NsKind::Plain);
        assert_eq!(NsKind::of("db.system.buckets."), NsKind::Plain);
    }
}
