use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    shardtop::commands::run(shardtop::cli::Cli::parse())
}
