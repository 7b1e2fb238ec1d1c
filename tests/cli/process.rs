//! The binary run as a process, as the command-line tests run it: no colour and no configuration
//! file; its output read as text. Owns nothing of what is tested.

use std::process::{Command, Output};

/// `shardtop ARGS`.
pub fn shardtop(args: &[&str]) -> Output {
    shardtop_env(args, &[])
}

/// `shardtop ARGS` with these environment variables set too.
pub fn shardtop_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_shardtop"))
        .args(args)
        .envs(env.iter().copied())
        .env("NO_COLOR", "1")
        .env("XDG_CONFIG_HOME", "/nonexistent")
        .env_remove("SHARDTOP_CONFIG")
        .output()
        .unwrap()
}

/// `shardtop lab ARGS`.
pub fn lab(args: &[&str]) -> Output {
    let mut all = vec!["lab"];
    all.extend_from_slice(args);
    shardtop(&all)
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}
