#![allow(clippy::unwrap_used)]
//! Real clients against the real binary: mongosh 2.x and PyMongo 4.x run the recipes of the
//! teaching seeds (the scripts in `tests/clients/`, one `shardtop serve` per script) and assert the
//! seeds' answers; the Node.js driver 6.x and Mongoose 8.x (`*.cjs`, from `tests/clients/
//! node_modules`, which `scripts/test.sh` installs from `tests/clients/package.json`) run what an
//! application's test suite does. A script prints `OK <name>` last and exits 0, or lists its
//! failed checks and exits 1. A missing mongosh, python3, PyMongo, node or Node package fails the
//! test (`.ci/run` installs them), and every client runs under a deadline, killed past it.

use std::fs;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex, OnceLock};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

/// Every script, the server version it is served, and its deadline in seconds.
const SCRIPTS: &[(&str, &str, u64)] = &[
    ("000_hashed_presplit.js", "7.0", 120),
    ("000_zones.js", "7.0", 120),
    ("000_zones_balancer.js", "7.0", 240),
    ("000_firehose.js", "7.0", 120),
    ("000_manual_movechunk.js", "7.0", 180),
    ("000_gridfs.py", "7.0", 120),
    ("003_low_cardinality.js", "9.0", 120),
    ("003_refine.js", "9.0", 120),
    ("003_orders.js", "9.0", 180),
    ("003_shard_key_update.py", "9.0", 120),
    ("mongosh_helpers.js", "8.0", 120),
    ("transactions.py", "8.0", 120),
    ("transactions_lifetime.py", "8.0", 120),
    ("indexes_queries.js", "8.0", 120),
    ("reshard_currentop.py", "9.0", 180),
    ("analyze_shard_key.js", "8.0", 120),
    ("analyze_shard_key.py", "8.0", 120),
    ("retryable_writes.py", "8.0", 120),
    ("serve_admin_rules.js", "8.0", 240),
    ("serve_rules_44.js", "4.4", 120),
    ("list_cluster_catalog.js", "8.1", 120),
    ("list_cluster_catalog_8010.js", "8.0.10", 120),
    ("sessions_presplit_60.js", "6.0", 120),
    ("drain_collections_to_move.js", "8.0", 120),
    ("drain_83.js", "8.3", 120),
    ("app_aggregation.js", "8.0", 120),
    ("server_answers.py", "8.0", 120),
    ("node_driver_app.cjs", "8.0", 60),
    ("mongoose_app.cjs", "8.0", 60),
];

/// The helpers the scripts load; not scripts themselves.
const HELPERS: &[&str] = &["lib.js", "clientlib.py"];

fn clients_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/clients")
}

/// A `shardtop serve` child on a free loopback port, killed when dropped.
struct Serve {
    child: Child,
    addr: String,
    log: Arc<Mutex<String>>,
}

impl Serve {
    fn start(version: &str) -> Serve {
        let mut child = Command::new(env!("CARGO_BIN_EXE_shardtop"))
            .args([
                "serve",
                "--listen",
                "127.0.0.1:0",
                "--server-version",
                version,
            ])
            .env("NO_COLOR", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start shardtop serve");
        let stderr = child.stderr.take().unwrap();
        let log = Arc::new(Mutex::new(String::new()));
        let sink = Arc::clone(&log);
        let (tx, rx) = mpsc::channel();
        // Its first line says where it listens; the rest is kept for a failure's report (and read
        // so that the pipe never fills).
        thread::spawn(move || {
            let mut tx = Some(tx);
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                if let Some(addr) = line
                    .split_whitespace()
                    .find(|w| w.starts_with("127.0.0.1:"))
                    && let Some(tx) = tx.take()
                {
                    let _ = tx.send(addr.to_string());
                }
                let mut log = sink.lock().unwrap();
                log.push_str(&line);
                log.push('\n');
            }
        });
        match rx.recv_timeout(Duration::from_secs(30)) {
            Ok(addr) => Serve { child, addr, log },
            Err(e) => {
                let _ = child.kill();
                let status = child.wait();
                panic!(
                    "shardtop serve --server-version {version} did not say where it listens \
                     ({e}; exit: {status:?}); its stderr:\n{}",
                    log.lock().unwrap()
                );
            }
        }
    }

    fn log(&self) -> String {
        self.log.lock().unwrap().clone()
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `program args…`'s stdout, or why it cannot run.
fn probe(program: &str, args: &[&str]) -> Result<String, String> {
    match Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .output()
    {
        Err(e) => Err(format!("`{program}` cannot be run: {e}")),
        Ok(o) if !o.status.success() => Err(format!(
            "`{program} {}` failed ({}): {}{}",
            args.join(" "),
            o.status,
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        )),
        Ok(o) => Ok(String::from_utf8_lossy(&o.stdout).trim().to_string()),
    }
}

/// The mongosh version, or a failure saying how to install it.
fn mongosh_version() -> &'static str {
    static V: OnceLock<Result<String, String>> = OnceLock::new();
    match V.get_or_init(|| probe("mongosh", &["--version"])) {
        Ok(v) => v,
        Err(e) => panic!(
            "mongosh 2.x is required by the real-client tests and is missing: {e}\n\
             install it with `npm install -g mongosh@2` (.ci/run does when it is missing)"
        ),
    }
}

/// The versions of node, the Node.js driver and Mongoose in `tests/clients/node_modules`, or a
/// failure saying how to install them.
fn node_versions() -> &'static str {
    static V: OnceLock<Result<String, String>> = OnceLock::new();
    let check = "console.log(`node ${process.version}, mongodb ${require('mongodb/package.json').version}, mongoose ${require('mongoose/package.json').version}`)";
    let probe_in_clients = || {
        let out = Command::new("node")
            .args(["-e", check])
            .current_dir(clients_dir())
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("`node` cannot be run: {e}"))?;
        if !out.status.success() {
            return Err(String::from_utf8_lossy(&out.stderr).into_owned());
        }
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
    };
    match V.get_or_init(probe_in_clients) {
        Ok(v) => v,
        Err(e) => panic!(
            "node with the `mongodb` 6.x and `mongoose` 8.x packages in tests/clients/node_modules \
             is required by the real-client tests and is missing: {e}\n\
             install them with `npm install --prefix tests/clients` (.ci/run does when missing)"
        ),
    }
}

/// The PyMongo version, or a failure saying how to install it.
fn pymongo_version() -> &'static str {
    static V: OnceLock<Result<String, String>> = OnceLock::new();
    let check = "import pymongo, gridfs; print(pymongo.version)";
    match V.get_or_init(|| probe("python3", &["-c", check])) {
        Ok(v) => v,
        Err(e) => panic!(
            "python3 with PyMongo 4.x is required by the real-client tests and is missing: {e}\n\
             install it with `python3 -m pip install pymongo` (.ci/run does when it is missing)"
        ),
    }
}

fn reader(mut from: impl Read + Send + 'static) -> JoinHandle<String> {
    thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = from.read_to_end(&mut bytes);
        String::from_utf8_lossy(&bytes).into_owned()
    })
}

/// Waits for `child` until `deadline`; `None` when it had to be killed.
fn wait_until(child: &mut Child, deadline: Instant) -> Option<ExitStatus> {
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return Some(status);
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        thread::sleep(Duration::from_millis(50));
    }
}

/// Runs `script` of `SCRIPTS` with its client against a fresh `shardtop serve`; its stdout.
fn run(script: &str) -> String {
    let &(_, version, secs) = SCRIPTS
        .iter()
        .find(|(s, _, _)| *s == script)
        .unwrap_or_else(|| panic!("{script} is not in SCRIPTS"));
    let path = clients_dir().join(script);
    assert!(path.is_file(), "{} is missing", path.display());
    let name = script.rsplit_once('.').unwrap().0;
    let python = Path::new(script).extension().is_some_and(|e| e == "py");
    let node = Path::new(script).extension().is_some_and(|e| e == "cjs");
    let client_version = if python {
        format!("PyMongo {}", pymongo_version())
    } else if node {
        node_versions().to_string()
    } else {
        format!("mongosh {}", mongosh_version())
    };

    let server = Serve::start(version);
    let uri = format!(
        "mongodb://{}/?directConnection=true&serverSelectionTimeoutMS=10000",
        server.addr
    );
    let mut cmd = if node {
        let mut c = Command::new("node");
        c.arg(&path).arg(&uri);
        c
    } else if python {
        let mut c = Command::new("python3");
        c.arg("-u").arg(&path).arg(&uri);
        c.env("PYTHONDONTWRITEBYTECODE", "1");
        c
    } else {
        let mut c = Command::new("mongosh");
        c.args(["--quiet", "--norc"]).arg(&uri).arg(&path);
        // No telemetry (no network) in a test.
        c.env("MONGOSH_FORCE_DISABLE_TELEMETRY_FOR_TESTING", "1");
        c
    };
    let started = Instant::now();
    let mut child = cmd
        .current_dir(clients_dir())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start the client for {script}: {e}"));
    let out = reader(child.stdout.take().unwrap());
    let err = reader(child.stderr.take().unwrap());
    let status = wait_until(&mut child, started + Duration::from_secs(secs));
    let (stdout, stderr) = (out.join().unwrap(), err.join().unwrap());
    let report = format!(
        "{script} ({client_version}) against shardtop serve --server-version {version} at {}\n\
         --- client stdout:\n{stdout}\n--- client stderr:\n{stderr}\n--- serve stderr:\n{}",
        server.addr,
        server.log()
    );
    drop(server);
    let Some(status) = status else {
        panic!("{script} did not finish within {secs} s and was killed\n{report}");
    };
    assert!(status.success(), "{script} failed ({status})\n{report}");
    let ok = format!("OK {name}");
    assert!(
        stdout.lines().any(|l| l.trim() == ok),
        "{script} exited 0 without its `{ok}` line\n{report}"
    );
    stdout
}

#[test]
fn every_script_in_tests_clients_has_a_test() {
    let mut found: Vec<String> = fs::read_dir(clients_dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|f| {
            let ext = Path::new(f).extension().and_then(|e| e.to_str());
            matches!(ext, Some("js" | "py" | "cjs")) && !HELPERS.contains(&f.as_str())
        })
        .collect();
    found.sort();
    let mut listed: Vec<String> = SCRIPTS.iter().map(|(s, _, _)| (*s).to_string()).collect();
    listed.sort();
    assert_eq!(found, listed, "tests/clients and SCRIPTS differ");
}

#[test]
fn mongosh_000_hashed_presplit() {
    run("000_hashed_presplit.js");
}

#[test]
fn mongosh_000_zones() {
    run("000_zones.js");
}

#[test]
fn mongosh_000_zones_balancer() {
    run("000_zones_balancer.js");
}

#[test]
fn mongosh_000_firehose() {
    run("000_firehose.js");
}

#[test]
fn mongosh_000_manual_movechunk() {
    run("000_manual_movechunk.js");
}

#[test]
fn pymongo_000_gridfs() {
    run("000_gridfs.py");
}

#[test]
fn mongosh_003_low_cardinality() {
    run("003_low_cardinality.js");
}

#[test]
fn mongosh_003_refine() {
    run("003_refine.js");
}

#[test]
fn mongosh_003_orders() {
    run("003_orders.js");
}

#[test]
fn pymongo_003_shard_key_update() {
    run("003_shard_key_update.py");
}

#[test]
fn mongosh_helpers() {
    run("mongosh_helpers.js");
}

#[test]
fn pymongo_transactions() {
    run("transactions.py");
}

#[test]
fn pymongo_transactions_lifetime() {
    run("transactions_lifetime.py");
}

#[test]
fn mongosh_indexes_queries() {
    run("indexes_queries.js");
}

#[test]
fn pymongo_reshard_currentop() {
    run("reshard_currentop.py");
}

#[test]
fn mongosh_analyze_shard_key() {
    let out = run("analyze_shard_key.js");
    // The keyCharacteristics as mongosh prints them.
    for text in [
        "numDocsTotal: Long('2000')",
        "numDistinctValues: Long('1000')",
        "{ value: { customerId: 0 }, frequency: Long('2') }",
        "type: 'not monotonic'",
    ] {
        assert!(out.contains(text), "no `{text}` in:\n{out}");
    }
}

#[test]
fn pymongo_analyze_shard_key() {
    run("analyze_shard_key.py");
}

#[test]
fn pymongo_retryable_writes() {
    run("retryable_writes.py");
}

#[test]
fn mongosh_serve_admin_rules() {
    run("serve_admin_rules.js");
}

#[test]
fn mongosh_serve_rules_44() {
    run("serve_rules_44.js");
}

#[test]
fn mongosh_list_cluster_catalog() {
    run("list_cluster_catalog.js");
}

#[test]
fn mongosh_list_cluster_catalog_8010() {
    run("list_cluster_catalog_8010.js");
}

#[test]
fn mongosh_sessions_presplit_60() {
    run("sessions_presplit_60.js");
}

#[test]
fn mongosh_drain_collections_to_move() {
    run("drain_collections_to_move.js");
}

#[test]
fn mongosh_drain_83() {
    run("drain_83.js");
}

#[test]
fn mongosh_app_aggregation() {
    run("app_aggregation.js");
}

#[test]
fn pymongo_server_answers() {
    run("server_answers.py");
}

#[test]
fn node_driver_app() {
    run("node_driver_app.cjs");
}

#[test]
fn mongoose_app() {
    run("mongoose_app.cjs");
}
