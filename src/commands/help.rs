//! `shardtop config --print-template`, `shardtop completions SHELL` and `shardtop man`: the
//! configuration template and the completion scripts and manual page, generated from the same
//! definitions the program runs on (the settings tables, clap's command line).

use std::io::Write;

use clap::CommandFactory;

use super::{Failure, write_failed};
use crate::cli::Cli;

pub fn template(out: &mut impl Write) -> Result<(), Failure> {
    out.write_all(crate::config::template().as_bytes())
        .map_err(|e| write_failed(&e))
}

pub fn completions(shell: clap_complete::Shell, out: &mut impl Write) -> Result<(), Failure> {
    let mut cmd = Cli::command();
    clap_complete::generate(shell, &mut cmd, "shardtop", out);
    out.flush().map_err(|e| write_failed(&e))
}

/// The manual page: the top-level page, then each subcommand (synopsis, description, options)
/// under a heading of its own.
pub fn man(out: &mut impl Write) -> Result<(), Failure> {
    let cmd = Cli::command();
    let man = clap_mangen::Man::new(cmd.clone());
    man.render(out).map_err(|e| write_failed(&e))?;
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
    Ok(())
}
