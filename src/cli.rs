//! The command line (see the contract in the README): subcommands and their options.

use clap::{Parser, Subcommand};

/// How a MongoDB sharded cluster places its data: chunks, key space, balancer, migrations.
#[derive(Debug, Parser)]
#[command(name = "shardtop", version, about, long_about = None)]
pub struct Cli {
    /// Disable colours (also honoured: the NO_COLOR environment variable).
    #[arg(long, global = true)]
    pub no_color: bool,

    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Print MongoDB's hashed-index value of VALUE (what convertShardKeyToHashed returns).
    ///
    /// VALUE is Extended JSON: '"abc"', '42', '{"$oid":"…"}', '{"$numberLong":"42"}'. The result is
    /// one signed 64-bit integer in decimal.
    Hash {
        /// The value, as Extended JSON.
        #[arg(allow_hyphen_values = true)]
        value: String,
    },
}
