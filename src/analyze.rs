//! `analyzeShardKey`'s rules (7.0+), shared by the lab and by `serve`'s `analyzeShardKey`: a
//! candidate key's characteristics over documents in insertion order ([`characteristics`]), the
//! read and write distribution of a traffic under a key ([`distribution`]), the operations that
//! traffic is made of ([`operation`]), the per-range counts `numReadsByRange`/`numWritesByRange` ([`ranges`]) and the sampled queries of `$listSampledQueries` read as
//! operations ([`sampled`]).
//!
//! It imports only [`crate::model`] (shard keys, key patterns, targeting): never the lab, the
//! simulator, `serve`, a live cluster or anything above them; reads no file and no cluster.

pub mod characteristics;
pub mod distribution;
pub mod operation;
pub mod ranges;
pub mod sampled;
