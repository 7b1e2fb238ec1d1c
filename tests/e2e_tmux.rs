#![allow(clippy::unwrap_used)]
//! The real binary in tmux: the demo shows the hot shard, `?` opens the help, `q` exits 0 and
//! leaves the terminal as it found it, a too-small terminal says so, a trace replays. tmux is
//! required (CI installs it): a missing tmux fails these tests.

use std::process::Command;
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_shardtop");

/// A tmux server of its own, running one command in a detached session.
struct Tmux {
    socket: String,
    dir: tempfile::TempDir,
}

impl Tmux {
    fn start(args: &str, width: u16, height: u16) -> Self {
        let version = Command::new("tmux").arg("-V").output();
        assert!(
            version.is_ok_and(|o| o.status.success()),
            "tmux is required for the end-to-end tests"
        );
        let dir = tempfile::tempdir().unwrap();
        let socket = format!("shardtop-e2e-{}-{}", std::process::id(), rand_suffix());
        let d = dir.path().display();
        let script = format!(
            "stty -g > {d}/before; {BIN} {args}; echo EXIT=$?; stty -g > {d}/after; sleep 60"
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
            .args(["sh", "-c", &script])
            .env("TERM", "xterm-256color")
            .env_remove("NO_COLOR")
            .status()
            .unwrap();
        assert!(status.success());
        Self { socket, dir }
    }

    fn screen(&self) -> String {
        let out = Command::new("tmux")
            .args(["-L", &self.socket, "capture-pane", "-p", "-t", "t"])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Polls the screen until it contains `text`; panics with the screen after `timeout`.
    fn wait_for(&self, text: &str, timeout: Duration) -> String {
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

    fn keys(&self, keys: &str) {
        let status = Command::new("tmux")
            .args(["-L", &self.socket, "send-keys", "-t", "t", keys])
            .status()
            .unwrap();
        assert!(status.success());
    }

    fn stty(&self, which: &str) -> String {
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

const START: Duration = Duration::from_secs(20);

#[test]
fn demo_shows_the_hot_shard_opens_help_and_quits_cleanly() {
    let t = Tmux::start("demo ascending", 100, 30);
    t.wait_for("sim:ascending", START);
    let first_frame = Instant::now();
    let screen = t.wait_for("◀ HOT", Duration::from_secs(10));
    assert!(
        first_frame.elapsed() <= Duration::from_secs(2),
        "the hot shard took {:?} after the first frame",
        first_frame.elapsed()
    );
    assert!(
        screen.contains("shard0000") && screen.contains("100%"),
        "{screen}"
    );
    t.keys("?");
    t.wait_for("any key closes", Duration::from_secs(5));
    t.keys("Escape");
    t.wait_for("Events", Duration::from_secs(5));
    t.keys("q");
    t.wait_for("EXIT=0", Duration::from_secs(10));
    let deadline = Instant::now() + Duration::from_secs(5);
    while t.stty("after").is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(
        t.stty("before"),
        t.stty("after"),
        "the terminal settings were not restored"
    );
    assert!(!t.stty("before").is_empty());
}

#[test]
fn a_too_small_terminal_shows_its_message() {
    let t = Tmux::start("demo", 50, 12);
    t.wait_for("terminal too small", START);
    t.keys("q");
    t.wait_for("EXIT=0", Duration::from_secs(10));
}

#[test]
fn a_fixture_trace_replays_and_pauses_at_its_end() {
    let trace = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/traces/ascending.ndjson.zst"
    );
    let t = Tmux::start(&format!("replay {trace} --speed 512"), 100, 30);
    t.wait_for("replay:ascending.ndjson.zst", START);
    let screen = t.wait_for("end of the trace", Duration::from_secs(15));
    assert!(screen.contains("paused"), "{screen}");
    assert!(screen.contains("moved 5"), "{screen}");
    t.keys("[");
    t.keys("q");
    t.wait_for("EXIT=0", Duration::from_secs(10));
}

#[test]
fn an_unknown_scenario_exits_2_with_the_terminal_untouched() {
    let t = Tmux::start("demo no-such-scenario", 100, 30);
    t.wait_for("EXIT=2", START);
    let screen = t.screen();
    assert!(screen.contains("unknown scenario"), "{screen}");
}

/// `shardtop serve` as a child process, killed on drop.
struct Served(std::process::Child, u16);

impl Served {
    fn start() -> Self {
        let port = {
            let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            l.local_addr().unwrap().port()
        };
        let child = Command::new(BIN)
            .args([
                "serve",
                "ascending",
                "--listen",
                &format!("127.0.0.1:{port}"),
            ])
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

#[test]
fn watch_shows_a_live_cluster_and_survives_losing_it() {
    let mut served = Served::start();
    let uri = format!("'mongodb://127.0.0.1:{}/?directConnection=true'", served.1);
    let t = Tmux::start(&format!("watch {uri} --interval 500ms"), 100, 30);
    let screen = t.wait_for("● live", START);
    assert!(
        screen.contains("app.events") && screen.contains("heat size"),
        "{screen}"
    );
    let _ = served.0.kill();
    let _ = served.0.wait();
    let screen = t.wait_for("disconnected since", Duration::from_secs(15));
    assert!(
        screen.contains("app.events"),
        "the last state stays on screen:\n{screen}"
    );
    t.keys("q");
    t.wait_for("EXIT=0", Duration::from_secs(10));
}

impl Tmux {
    fn format(&self, f: &str) -> String {
        let out = Command::new("tmux")
            .args(["-L", &self.socket, "display-message", "-p", "-t", "t", f])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    /// The pid of the shardtop process the pane's shell runs.
    fn shardtop_pid(&self) -> String {
        let shell = self.format("#{pane_pid}");
        let out = Command::new("pgrep").args(["-P", &shell]).output().unwrap();
        let pid = String::from_utf8_lossy(&out.stdout).trim().to_string();
        assert!(!pid.is_empty(), "no child of the pane's shell {shell}");
        pid
    }
}

#[test]
fn a_signal_gives_the_terminal_back() {
    for (signal, number) in [("TERM", 15), ("HUP", 1), ("QUIT", 3), ("INT", 2)] {
        let t = Tmux::start("demo ascending", 100, 30);
        t.wait_for("sim:ascending", START);
        assert_eq!(
            t.format("#{alternate_on}"),
            "1",
            "the TUI is on the alternate screen"
        );
        let pid = t.shardtop_pid();
        let status = Command::new("kill")
            .args(["-s", signal, &pid])
            .status()
            .unwrap();
        assert!(status.success());
        t.wait_for(&format!("EXIT={}", 128 + number), Duration::from_secs(10));
        let deadline = Instant::now() + Duration::from_secs(5);
        while t.stty("after").is_empty() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(50));
        }
        assert_eq!(
            t.stty("before"),
            t.stty("after"),
            "SIG{signal}: raw mode left on"
        );
        assert_eq!(
            t.format("#{alternate_on}"),
            "0",
            "SIG{signal}: still on the alternate screen"
        );
        assert_eq!(
            t.format("#{cursor_flag}"),
            "1",
            "SIG{signal}: the cursor is hidden"
        );
        assert_eq!(
            t.format("#{mouse_any_flag}"),
            "0",
            "SIG{signal}: mouse reporting is on"
        );
    }
}
