//! The past of a cluster, rebuilt from its diary: `config.changelog` and `config.actionlog`
//! read as typed entries ([`diary`]), the chunks undone backward from the present, per
//! collection, to each shard's chunk counts after every event the diary holds ([`rebuild`]),
//! and each migration, balancer round and drain the entries tell ([`story`]).
//!
//! What cannot be known is said, never filled in: an entry that does not match the chunks
//! rebuilt so far, a layout replaced wholesale (resharding, `moveCollection`, a refined key, a
//! drop), the time before the oldest entry (the collections are capped), and the counts a
//! `moveRange` leaves open (whether the donor kept a piece of the range's chunk: a count known
//! only to within one).
//!
//! Invariant: pure functions of the documents and a `Cluster` — no I/O, no clock; imports
//! `cluster`, `model` and `units` only.

pub mod diary;
pub mod rebuild;
pub mod story;
mod undo;

pub use diary::{Diary, Entry, Log};
pub use rebuild::{CollectionPast, Count, Gap, Past, PastState, rebuild};
pub use story::{Drain, Migration, Round, Story, story};
