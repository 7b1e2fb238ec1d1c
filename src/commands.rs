//! Carries out each subcommand; the only module that prints. Failures map to the contract's exit
//! codes: 1 for runtime failures the user can act on, 2 for bad usage or bad input.
//!
//! One module per command (or command family); no command imports another. What several share is
//! the toolbox: `terminal` (the runtime, signals, `require_terminal`, running a source in the TUI),
//! `settings` (the configuration and the shared flags), `scenario_file` (the scenario a command
//! line names), `source_arg` (the source a command line names: `sim:`, a trace, `mongodb://`) and
//! `time_views` (`--heatmap`/`--history` of the JSON summaries).

mod capture;
mod explain;
mod export;
mod hash;
mod help;
mod lab;
mod replay;
mod scenario_file;
mod serve;
mod settings;
mod sim;
mod source_arg;
mod terminal;
mod time_views;
mod tui;
mod watch;
mod watch_check;
mod whatif;

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

/// `--server-version V`, else the configuration's, if either is given.
pub(crate) fn server_version(
    v: Option<&str>,
    config: &crate::config::Config,
) -> Result<Option<crate::cluster::ServerVersion>, Failure> {
    settings::flag_or_config(
        v.map(str::to_string),
        config.server_version.as_ref(),
        |text| {
            crate::cluster::ServerVersion::from_user_text(&text)
                .map_err(|e| Failure::input(format!("--server-version: {e}")))
        },
    )
}

/// `--force` as what to do with a file already at an output's name.
pub(crate) fn existing(force: bool) -> crate::files::Existing {
    if force {
        crate::files::Existing::Replace
    } else {
        crate::files::Existing::Refuse
    }
}

/// Refuses, before any work, an output `path` (`flag` names it) that is a folder or an existing
/// file without `--force` (exit 2).
pub(crate) fn check_output(flag: &str, path: &std::path::Path, force: bool) -> Result<(), Failure> {
    crate::files::check(path, existing(force))
        .map(|_| ())
        .map_err(|e| Failure::input(format!("{flag} {}: {e}", path.display())))
}

/// Refuses writing `output` (given as `flag`) when it is one of `inputs` (each given as its flag
/// or argument) however named — a symbolic link, a hard link, `./a` and `a` (the same device and
/// inode) —, even with `--force`: exit 2 naming both.
pub(crate) fn refuse_writing_an_input(
    flag: &str,
    output: &std::path::Path,
    inputs: &[(&str, Option<&std::path::Path>)],
) -> Result<(), Failure> {
    for (what, input) in inputs {
        if let Some(input) = input.filter(|i| crate::files::same_file(i, output)) {
            return Err(Failure::input(format!(
                "{flag} {}: the same file as {what} {} (it would be replaced by what is read from \
                 it): write to another file",
                output.display(),
                input.display()
            )));
        }
    }
    Ok(())
}

pub(crate) fn write_failed(e: &std::io::Error) -> Failure {
    Failure::runtime(format!("cannot write the output: {e}"))
}

/// Runs the parsed command line, printing to stdout, and returns the process exit code.
pub fn run(cli: Cli) -> ExitCode {
    terminal::driver_panic::install();
    let result = run_command(cli);
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => {
            let message = crate::live::client::redact(&failure.message);
            let message = crate::units::printable::printable(&message);
            eprintln!("shardtop: {message}");
            ExitCode::from(failure.code)
        }
    }
}

/// The commands that need no configuration answer first, so a bad file never hides them.
fn run_command(cli: Cli) -> Result<(), Failure> {
    // Not locked for the whole command: a TUI's panic hook (another thread's panic while the
    // runtime shuts down) writes to stdout too, and must not wait on this thread.
    let mut out = std::io::stdout();
    if cli.command.is_some() && cli.demo.any() {
        return Err(Failure::input(
            "--paused, --seed, --speed, --server-version and --scenario-file before a command are the demo's (`shardtop --paused`); give them after the command",
        ));
    }
    match cli.command {
        Some(Command::Hash { value }) => return hash::run(&value, &mut out),
        Some(Command::Scenarios { json }) => return sim::scenarios(json, &mut out),
        Some(Command::Config { .. }) => return help::template(&mut out),
        Some(Command::Completions { shell }) => return help::completions(shell, &mut out),
        Some(Command::Man) => return help::man(&mut out),
        _ => {}
    }
    let ctx = settings::load(cli.config.as_deref(), cli.theme.as_deref(), cli.no_color)?;
    if let Some(Command::Sim(args)) = &cli.command
        && let Some(path) = &args.export
    {
        let scenario_file = ("--scenario-file", args.scenario_file.as_deref());
        refuse_writing_an_input("--export", path, &[scenario_file])?;
        return export::sim(args, &ctx, &mut out);
    }
    if let Some(Command::Replay(args)) = &cli.command
        && let Some(path) = &args.export
    {
        refuse_writing_an_input("--export", path, &[("the trace", Some(&args.file))])?;
        return export::replay(args, &ctx, &mut out);
    }
    // Every other output goes through the one sanitizer (an export writes the terminal's own
    // sequences on purpose; the TUI draws its own cells).
    let mut out = crate::units::printable::Printable::new(out);
    match cli.command {
        Some(Command::Sim(args)) => sim::run(&args, &ctx.config, &mut out),
        Some(Command::Serve(args)) => serve::run(&args, &ctx.config),
        Some(Command::Lab(args)) => lab::run(&args, &ctx, &mut out),
        Some(Command::Record(args)) => watch::record(&args, &ctx.config, &mut out),
        Some(Command::Capture(args)) => capture::capture(&args, &mut out),
        Some(Command::Open(args)) => capture::open(&args, &ctx, &mut out),
        Some(Command::Watch(args)) if args.check => {
            watch_check::check_flags_then_run(&args, &ctx, &mut out)
        }
        Some(Command::Watch(args)) => watch::run(&args, &ctx, &mut out),
        Some(Command::Replay(args)) if !args.json => tui::replay(&args, &ctx),
        Some(Command::Replay(args)) => replay::run(&args, &mut out),
        Some(Command::Demo(args)) => tui::demo(&args, &ctx),
        Some(Command::Explain(args)) => explain::run(&args, &ctx.config, &mut out),
        Some(Command::Whatif(args)) => whatif::run(&args, &ctx.config, &mut out),
        _ => tui::demo(
            &crate::cli::DemoArgs {
                scenario: None,
                options: cli.demo,
            },
            &ctx,
        ),
    }
}
