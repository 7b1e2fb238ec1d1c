//! The past rebuilt from the changelog (`shardtop::past`): exact against the simulator's own
//! history for every built-in scenario and release line, and the real published documents read
//! as the server wrote them.
#![allow(clippy::unwrap_used)]

mod real;
mod rebuild;
