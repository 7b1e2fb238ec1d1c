//! The network layer: sockets, message framing, the connection tasks, the one lock over the
//! server's state and the ticker that advances the simulator.
//!
//! May import every layer below it (`dispatch` and down); nothing below imports it.
pub mod conn;
pub mod shared;
pub mod slots;
