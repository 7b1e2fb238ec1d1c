//! `shardtop serve [SCENARIO]`: checks the listen address, builds the simulator, starts the
//! server and runs until Ctrl-C.

use std::net::{SocketAddr, ToSocketAddrs};

use super::Failure;
use crate::cli::ServeArgs;
use crate::cluster::ServerVersion;
use crate::serve::{ServeOptions, start};
use crate::sim::Simulator;

/// The simulator `serve` runs: the scenario's (or the empty three-shard cluster).
pub fn simulator(
    scenario_name: Option<&str>,
    scenario_file: Option<&std::path::Path>,
    seed: Option<u64>,
    version: Option<ServerVersion>,
) -> Result<Simulator, Failure> {
    let (sc, label) = if scenario_name.is_some() || scenario_file.is_some() {
        super::scenario_file::load(scenario_name, scenario_file)?
    } else {
        return crate::serve::empty_cluster(version)
            .map_err(|e| Failure::runtime(format!("built-in empty cluster is broken: {e}")));
    };
    Simulator::from_scenario(&sc, seed.unwrap_or(sc.seed), version)
        .map_err(|e| Failure::input(format!("scenario {label}: {e}")))
}

/// The patch release `--server-version` (or the configuration's `server-version`) names, checked
/// against the release line simulated: `8.0.10` reports 8.0.10 and has what 8.0.10 added
/// (`$listClusterCatalog`); a patch before the line's first simulated one (6.0.0–6.0.2: 6.0 is
/// simulated as from 6.0.3) is refused.
fn reported_patch(
    flag: Option<&str>,
    config: &crate::config::Config,
    line: ServerVersion,
) -> Result<Option<u32>, Failure> {
    let located = config.server_version.as_ref();
    let (text, at) = match (flag, located) {
        (Some(t), _) => (t.to_string(), "--server-version".to_string()),
        (None, Some(l)) => (l.value.clone(), l.at.clone()),
        (None, None) => return Ok(None),
    };
    let Some(patch) = ServerVersion::patch_of(&text) else {
        return Ok(None);
    };
    let first = line.first_simulated_patch();
    if patch < first {
        return Err(Failure::input(format!(
            "{at} {text}: {line} is simulated as from {line}.{first} (no auto-splitter, \
             $shardedDataDistribution); give {line} or {line}.{first} or later"
        )));
    }
    Ok(Some(patch))
}

/// Resolves `--listen` and refuses a non-loopback address without `--allow-remote`.
pub fn listen_address(text: &str, allow_remote: bool) -> Result<SocketAddr, Failure> {
    let addr = text
        .to_socket_addrs()
        .ok()
        .and_then(|mut a| a.next())
        .ok_or_else(|| {
            Failure::input(format!(
                "--listen {text:?}: give HOST:PORT, e.g. 127.0.0.1:27017"
            ))
        })?;
    if !addr.ip().is_loopback() && !allow_remote {
        return Err(Failure::input(format!(
            "--listen {text}: not a loopback address; the simulator has no authentication, so listening beyond this machine needs --allow-remote"
        )));
    }
    Ok(addr)
}

/// `shardtop serve`.
pub fn run(args: &ServeArgs, config: &crate::config::Config) -> Result<(), Failure> {
    if let Some(log) = &args.log_commands {
        let scenario_file = ("--scenario-file", args.scenario_file.as_deref());
        super::refuse_writing_an_input("--log-commands", log, &[scenario_file])?;
    }
    let listen = listen_address(&args.listen, args.allow_remote)?;
    let version = super::server_version(args.server_version.as_deref(), config)?;
    let sim = simulator(
        args.scenario.as_deref(),
        args.scenario_file.as_deref(),
        args.seed,
        version,
    )?;
    let patch = reported_patch(args.server_version.as_deref(), config, sim.cluster.version)?;
    // Documents may nest 200 levels (`wire::MAX_BSON_DEPTH`); the stack has room for walking them.
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_stack_size(16 << 20)
        .build()
        .map_err(|e| Failure::runtime(format!("cannot start the runtime: {e}")))?;
    let access = args
        .user_roles
        .as_deref()
        .map(crate::serve::access::Access::parse)
        .transpose()
        .map_err(|e| Failure::input(format!("--user-roles {e}")))?;
    rt.block_on(async {
        let opts = ServeOptions {
            listen,
            sim,
            paused: args.paused,
            command_log: args.log_commands.clone(),
            // A stderr that is gone (closed by whoever started serve) loses the line; it never
            // stops the task that logs it (`eprintln!` would panic there).
            lines: Some(std::sync::Arc::new(|text: &str| {
                use std::io::Write;
                let _ = writeln!(std::io::stderr().lock(), "shardtop serve: {text}");
            })),
            argv: std::env::args().collect(),
            max_docs: args.max_docs,
            max_bytes: args.max_bytes,
            message_deadline: crate::serve::MESSAGE_DEADLINE,
            access,
            patch,
            max_connections: crate::serve::default_max_connections(),
        };
        let server = start(opts).await.map_err(|e| {
            Failure::runtime(format!(
                "cannot listen on {listen}: {e} (is another server using the port? try --listen 127.0.0.1:27018)"
            ))
        })?;
        eprintln!(
            "shardtop serve: listening on {} — connect with: mongosh mongodb://{}",
            server.local_addr(),
            server.local_addr()
        );
        let _ = tokio::signal::ctrl_c().await;
        server.shutdown().await;
        Ok(())
    })
}
