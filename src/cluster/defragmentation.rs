//! A collection's defragmentation phase (`configureCollectionBalancing {defragmentCollection:
//! true}`, 5.3+), as `config.collections` `defragmentationPhase` holds it. The rules that advance
//! it are `sim::merges`'s.
// 8.0 `s/catalog/type_collection.idl` (`defragmentationPhase`), `db/s/balancer/
// balancer_defragmentation_policy.cpp` (`DefragmentationPhaseEnum`).

/// A phase of chunk defragmentation; `finished` is never stored (the fields are unset at once).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum DefragmentationPhase {
    /// Merge every run of contiguous chunks of one shard and zone; measure each chunk's size.
    MergeAndMeasureChunks,
    /// Move each small chunk (≤ 25 % of the chunk size) to a neighbour's shard and merge them.
    MoveAndMergeChunks,
    /// Merge the runs the moves left.
    MergeChunks,
    /// Before 6.0 (the auto-splitter's era): split the chunks above the chunk size.
    SplitChunks,
}

impl DefragmentationPhase {
    /// The name `config.collections` and `balancerCollectionStatus` use.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::MergeAndMeasureChunks => "mergeAndMeasureChunks",
            Self::MoveAndMergeChunks => "moveAndMergeChunks",
            Self::MergeChunks => "mergeChunks",
            Self::SplitChunks => "splitChunks",
        }
    }

    /// The phase a name denotes.
    pub fn parse(s: &str) -> Option<Self> {
        [
            Self::MergeAndMeasureChunks,
            Self::MoveAndMergeChunks,
            Self::MergeChunks,
            Self::SplitChunks,
        ]
        .into_iter()
        .find(|p| p.as_str() == s)
    }
}
