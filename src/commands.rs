//! Carries out each subcommand; the only module that prints. Failures map to the contract's exit
//! codes: 1 for runtime failures the user can act on, 2 for bad usage or bad input.

mod hash;
mod replay;
mod serve;
mod sim;
mod tui;
mod watch;

use std::process::ExitCode;

use crate::cli::{Cli, Command};

/// A failure with the exit code it maps to.
#[derive(Debug)]
pub struct Failure {
    pub code: u8,
    pub message: String,
}

impl Failure {
    /// Bad usage or bad input (exit 2).
    pub fn input(message: impl Into<String>) -> Self {
        Self {
            code: 2,
            message: message.into(),
        }
    }

    /// A runtime failure the user can act on (exit 1).
    pub fn runtime(message: impl Into<String>) -> Self {
        Self {
            code: 1,
            message: message.into(),
        }
    }
}

/// `--server-version V`, if given.
pub(crate) fn server_version(
    v: Option<&str>,
) -> Result<Option<crate::cluster::ServerVersion>, Failure> {
    v.map(str::parse::<crate::cluster::ServerVersion>)
        .transpose()
        .map_err(|e| Failure::input(format!("--server-version: {e}")))
}

pub(crate) fn write_failed(e: &std::io::Error) -> Failure {
    Failure::runtime(format!("cannot write the output: {e}"))
}

/// Runs the parsed command line, printing to stdout, and returns the process exit code.
pub fn run(cli: Cli) -> ExitCode {
    let mut out = std::io::stdout().lock();
    let result = match cli.command {
        Some(Command::Hash { value }) => hash::run(&value, &mut out),
        Some(Command::Scenarios { json }) => sim::scenarios(json, &mut out),
        Some(Command::Sim(args)) => sim::run(&args, &mut out),
        Some(Command::Serve(args)) => serve::run(&args),
        Some(Command::Record(args)) => watch::record(&args, &mut out),
        Some(Command::Watch(args)) => watch::run(&args, tui::colors_wanted(cli.no_color), &mut out),
        Some(Command::Demo(args)) => tui::demo(&args, tui::colors_wanted(cli.no_color)),
        Some(Command::Replay(args)) if !args.json => {
            tui::replay(&args, tui::colors_wanted(cli.no_color))
        }
        Some(Command::Replay(args)) => replay::run(&args, &mut out),
        None => tui::demo(
            &crate::cli::DemoArgs {
                speed: 4.0,
                ..crate::cli::DemoArgs::default()
            },
            tui::colors_wanted(cli.no_color),
        ),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => {
            eprintln!("shardtop: {}", failure.message);
            ExitCode::from(failure.code)
        }
    }
}
