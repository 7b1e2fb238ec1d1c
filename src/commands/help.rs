//! `shardtop config --print-template`, `shardtop completions SHELL` and `shardtop man`: the
//! configuration template and the completion scripts and manual page, generated from the same
//! definitions the program runs on (the settings tables, clap's command line).

use std::io::Write;

mod man_page;

use clap::CommandFactory;

use super::{Failure, write_failed};
use crate::cli::Cli;

pub fn template(out: &mut impl Write) -> Result<(), Failure> {
    out.write_all(crate::config::template().as_bytes())
        .map_err(|e| write_failed(&e))
}

/// The command line with the built-in scenario names as the values of every SCENARIO argument,
/// for the shells' completion and the manual page. Parsing does not use them: an unknown name
/// gets shardtop's own message (the closest name and the list), not clap's.
fn with_scenario_names(cmd: clap::Command) -> clap::Command {
    let names = crate::sim::scenario::names();
    let mut cmd = cmd;
    for sub in ["demo", "sim", "serve"] {
        let names = names.clone();
        cmd = cmd.mut_subcommand(sub, |c| {
            c.mut_arg("scenario", |a| {
                a.value_parser(clap::builder::PossibleValuesParser::new(names))
            })
        });
    }
    cmd
}

pub fn completions(shell: clap_complete::Shell, out: &mut impl Write) -> Result<(), Failure> {
    let mut cmd = with_scenario_names(Cli::command());
    clap_complete::generate(shell, &mut cmd, "shardtop", out);
    out.flush().map_err(|e| write_failed(&e))
}

/// The manual page: the top-level page (without clap's list of `shardtop-demo(1)` pages, which
/// do not exist: the commands are listed here and each described under a heading of its own on
/// this page), each subcommand (synopsis, description, options), then KEYS, EXAMPLES, FILES,
/// ENVIRONMENT and VERSION.
pub fn man(out: &mut impl Write) -> Result<(), Failure> {
    let cmd = with_scenario_names(Cli::command());
    let man = clap_mangen::Man::new(cmd.clone());
    man.render_title(out).map_err(|e| write_failed(&e))?;
    man.render_name_section(out).map_err(|e| write_failed(&e))?;
    man.render_synopsis_section(out)
        .map_err(|e| write_failed(&e))?;
    man.render_description_section(out)
        .map_err(|e| write_failed(&e))?;
    man.render_options_section(out)
        .map_err(|e| write_failed(&e))?;
    man_page::commands(out, &cmd).map_err(|e| write_failed(&e))?;
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        let name = format!("shardtop {}", sub.get_name());
        let sub = sub.clone().bin_name(name.clone());
        let page = clap_mangen::Man::new(sub);
        writeln!(out, ".SH \"{}\"", name.to_uppercase()).map_err(|e| write_failed(&e))?;
        page.render_synopsis_section(out)
            .map_err(|e| write_failed(&e))?;
        page.render_description_section(out)
            .map_err(|e| write_failed(&e))?;
        page.render_options_section(out)
            .map_err(|e| write_failed(&e))?;
    }
    man_page::keys(out).map_err(|e| write_failed(&e))?;
    man_page::closing(out).map_err(|e| write_failed(&e))?;
    man.render_version_section(out)
        .map_err(|e| write_failed(&e))
}
