use std::process::ExitCode;

use clap::Parser;

// mimalloc: serve builds and drops a document per chunk it sends; with glibc's allocator that
// malloc/free was a third of the time (benches/serve.rs: 82,000 → 112,000 raw chunk documents/s).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    shardtop::commands::run(shardtop::cli::Cli::parse())
}
