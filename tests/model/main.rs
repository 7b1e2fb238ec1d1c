//! The model's rules as pure values: the order of shard-key values across BSON types, the hashed-index hash
//! against the server's vectors, routing tables and ranges, query targeting, the wire encoding.
//! What belongs here: a test of `model` or `wire` that needs no cluster, simulator or server.
#![allow(clippy::unwrap_used)] // tests: a failed unwrap is a failed test

mod hash_vectors;
mod mongosh_round_trip;
mod order;
mod route_ties;
mod routing;
mod targeting;
mod wire;
