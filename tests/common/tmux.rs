//! The real binary in tmux (a tmux server of its own per test) and `shardtop serve` as a child
//! process: what the end-to-end tests share. tmux is required (CI installs it).
#![allow(clippy::unwrap_used)]

use std::process::Command;
use std::time::{Duration, Instant};

pub const BIN: &str = env!("CARGO_BIN_EXE_shardtop");

/// A tmux server of its own, running one command in a detached session.
pub struct Tmux {
    socket: String,
    dir: tempfile::TempDir,
}

impl Tmux {
    pub fn start(args: &str, width: u16, height: u16) -> Self {
        Self::start_in(&std::env::temp_dir(), args, width, height)
    }

    /// The same, with `dir` as the working folder.
    pub fn start_in(cwd: &std::path::Path, args: &str, width: u16, height: u16) -> Self {
        let version = Command::new("tmux").arg("-V").output();
        assert!(
            version.is_ok_and(|o| o.status.success()),
            "tmux is required for the end-to-end tests"
        );
        let dir = tempfile::tempdir().unwrap();
        let socket = format!("shardtop-e2e-{}-{}", std::process::id(), rand_suffix());
        let d = dir.path().display();
        let script = format!(
            "stty -g > {d}/before; {BIN} {args}; rc=$?; stty -g > {d}/after; echo EXIT=$rc; sleep 60"
        );
        let status = Command::new("tmux")
            .args([
                "-L",
                &socket,
                "-f",
                "/dev/null",
                "new-session",
                "-d",
                "-s",
                "t",
            ])
            .args(["-x", &width.to_string(), "-y", &height.to_string()])
            .args(["-c", &cwd.display().to_string()])
            .args(["sh", "-c", &script])
            .env("TERM", "xterm-256color")
            .env_remove("NO_COLOR")
            .status()
            .unwrap();
        assert!(status.success());
        Self { socket, dir }
    }

    /// An interactive bash (job control on) whose prompt is `READY$ `, for commands typed with
    /// [`Tmux::keys`]: `shardtop` is on its `PATH`'s front as `$ST`.
    pub fn shell(width: u16, height: u16) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let socket = format!("shardtop-e2e-{}-{}", std::process::id(), rand_suffix());
        let status = Command::new("tmux")
            .args([
                "-L",
                &socket,
                "-f",
                "/dev/null",
                "new-session",
                "-d",
                "-s",
                "t",
            ])
            .args(["-x", &width.to_string(), "-y", &height.to_string()])
            .args(["bash", "--norc", "--noprofile", "-i"])
            .env("TERM", "xterm-256color")
            .env("PS1", "READY$ ")
            .env("ST", BIN)
            .env_remove("NO_COLOR")
            .status()
            .unwrap();
        assert!(status.success());
        Self { socket, dir }
    }

    pub fn screen(&self) -> String {
        let out = Command::new("tmux")
            .args(["-L", &self.socket, "capture-pane", "-p", "-t", "t"])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Polls the screen until it contains `text`; panics with the screen after `timeout`.
    pub fn wait_for(&self, text: &str, timeout: Duration) -> String {
        let deadline = Instant::now() + timeout;
        loop {
            let screen = self.screen();
            if screen.contains(text) {
                return screen;
            }
            assert!(
                Instant::now() < deadline,
                "{text:?} did not appear within {timeout:?}:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Polls the screen until it no longer contains `text`; panics with the screen after
    /// `timeout`.
    pub fn wait_gone(&self, text: &str, timeout: Duration) {
        let deadline = Instant::now() + timeout;
        loop {
            let screen = self.screen();
            if !screen.contains(text) {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "{text:?} was still there after {timeout:?}:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    pub fn keys(&self, keys: &str) {
        let status = Command::new("tmux")
            .args(["-L", &self.socket, "send-keys", "-t", "t", keys])
            .status()
            .unwrap();
        assert!(status.success());
    }

    pub fn stty(&self, which: &str) -> String {
        std::fs::read_to_string(self.dir.path().join(which)).unwrap_or_default()
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-L", &self.socket, "kill-server"])
            .status();
    }
}

fn rand_suffix() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos())
}

/// How long a first frame may take: a bound, not an expectation (on a loaded 2-core machine the
/// lab's first frame took over 20 s).
pub const START: Duration = Duration::from_secs(60);

/// `shardtop serve` as a child process, killed on drop.
pub struct Served(pub std::process::Child, pub u16);

impl Served {
    pub fn start() -> Self {
        Self::with(&[])
    }

    /// `serve ascending` with more options.
    pub fn with(extra: &[&str]) -> Self {
        Self::of("ascending", extra)
    }

    /// `serve SCENARIO` with more options.
    pub fn of(scenario: &str, extra: &[&str]) -> Self {
        let port = {
            let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            l.local_addr().unwrap().port()
        };
        let child = Command::new(BIN)
            .args(["serve", scenario, "--listen", &format!("127.0.0.1:{port}")])
            .args(extra)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let deadline = Instant::now() + START;
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "shardtop serve did not listen");
            std::thread::sleep(Duration::from_millis(50));
        }
        Self(child, port)
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Tmux {
    pub fn format(&self, f: &str) -> String {
        let out = Command::new("tmux")
            .args(["-L", &self.socket, "display-message", "-p", "-t", "t", f])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    /// The pid of the shardtop process the pane's shell runs.
    pub fn shardtop_pid(&self) -> String {
        let shell = self.format("#{pane_pid}");
        let out = Command::new("pgrep").args(["-P", &shell]).output().unwrap();
        let pid = String::from_utf8_lossy(&out.stdout).trim().to_string();
        assert!(!pid.is_empty(), "no child of the pane's shell {shell}");
        pid
    }
}

/// `shardtop serve ARGS` as a child process with stderr piped, and the address its first line
/// says it listens on (`… listening on 127.0.0.1:PORT …`).
pub fn serve_child(args: &[&str]) -> (std::process::Child, String) {
    let mut serve = Command::new(BIN);
    serve.arg("serve").args(args);
    spawn_serve(serve)
}

/// Spawns `command` (a `shardtop serve …`, maybe behind a wrapper such as `prlimit`) with stderr
/// piped: the child and the address its first line says it listens on.
pub fn spawn_serve(mut command: Command) -> (std::process::Child, String) {
    use std::io::BufRead;
    let mut child = command
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufReader::new(child.stderr.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let addr = line
        .split_whitespace()
        .find(|w| w.starts_with("127.0.0.1:"))
        .unwrap_or_else(|| panic!("no address in {line:?}"))
        .to_string();
    (child, addr)
}

impl Tmux {
    /// A tmux command on this test's server (`set-option …`, `show-buffer`); its output.
    pub fn command(&self, args: &[&str]) -> String {
        let out = Command::new("tmux")
            .args(["-L", &self.socket])
            .args(args)
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }
}
