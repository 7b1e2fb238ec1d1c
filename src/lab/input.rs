//! What the lab reads before a trial: the user's documents ([`data`]: mongodump BSON,
//! mongoexport JSON lines or array, gzipped or not), the traffic ([`traffic`]: workload files and
//! the slow queries of a MongoDB log), the unique indexes a dump's metadata lists ([`dump`]) and
//! seed 003's example documents and traffic ([`example`]). Every reading error is an
//! [`data::InputError`] naming the file and where in it.
//!
//! The input imports [`crate::analyze`] (the operations), [`crate::model`], [`crate::wire`]
//! (BSON depth) and the simulator's seeded random numbers (the example); never the lab's trial
//! or report, and it reads no cluster (a live collection's sample is the `--from` command's).

pub mod data;
pub mod dump;
pub mod example;
pub mod traffic;
