//! The write path: routing a write by shard key into the simulator, applying it to the kept
//! documents, observing it for change streams, and waiting for migrations and reshardings.
//!
//! May import `catalog`, `state`, `query` and `reply`; not the command handlers.
pub mod apply;
pub mod changelog;
pub mod completion;
pub mod diary;
pub mod hand_over;
pub mod namespaces;
pub mod observe;
pub mod route;
pub mod statements;
