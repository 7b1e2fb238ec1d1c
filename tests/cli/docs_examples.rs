//! Every command shown in README.md and docs/*.md, run: each `shardtop …` line of a fenced block
//! (a `console` block's `$ ` lines; a `\` continues a line) is run as the doc writes it, in a
//! folder of its own per document (so one command's file is the next one's input, as a reader
//! following the doc would have it), and must exit 0 and name what it is about: the collection
//! of `--ns`, the shards `--add-shards` adds, the shard `--drain` names, the file it writes, and
//! in a `console` block each output line the doc shows (but those with `…`).
//!
//! A `mongosh` line of a `sh` block runs too (the capture script against the same `serve`).
//!
//! What is changed, and only that: a `mongodb://` URI is a `shardtop serve drain` on loopback
//! (no test uses the network); `--listen` is a free loopback port; `--duration` is 3 s. The part
//! after a pipe or a redirection is not run (`| jq …`, `> ~/.config/…`): shardtop's output is
//! checked instead. A line of placeholders (`SOURCE`, `[--json]`) is a synopsis: its command
//! must exist and take every option it names. A TUI command runs in tmux until its first pane shows,
//! then `q`.
#![allow(clippy::unwrap_used)]

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use clap::CommandFactory;

#[path = "docs_examples_input.rs"]
mod input;

use super::common::tmux::{BIN, START, Served, Tmux};

/// One command of a document.
#[derive(Debug)]
struct Example {
    line: usize,
    /// Its arguments after `shardtop`, up to a pipe, a redirection or a comment.
    args: Vec<String>,
    /// The output lines a `console` block shows after it.
    shown: Vec<String>,
    /// Whether the doc's line goes on past shardtop (a pipe, a redirection, `&&`).
    piped: bool,
}

/// The documents whose commands are run.
fn documents() -> Vec<std::path::PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut docs: Vec<_> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    docs.insert(0, root.join("README.md"));
    docs
}

/// The `shardtop` commands of a document's fenced blocks.
fn examples(text: &str) -> Vec<Example> {
    let (mut out, mut block): (Vec<Example>, Option<&str>) = (Vec::new(), None);
    let lines: Vec<&str> = text.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        let l = lines[i];
        i += 1;
        if let Some(lang) = l.trim_start().strip_prefix("```") {
            block = if block.is_some() { None } else { Some(lang) };
            continue;
        }
        let Some(lang) = block else { continue };
        let console = lang == "console" || lang == "text";
        let t = l.trim();
        let t = match t.strip_prefix("$ ") {
            Some(t) => t,
            None if console && lang == "console" => continue, // an output line
            None => t,
        };
        if lang == "sh" && t.starts_with("mongosh ") {
            out.push(Example {
                line: i,
                args: vec!["mongosh".into()],
                shown: vec![t.to_string()],
                piped: true,
            });
            continue;
        }
        if !(t == "shardtop" || t.starts_with("shardtop ")) || t.starts_with("shardtop serve:") {
            continue;
        }
        let line = i;
        let mut whole = t.to_string();
        while whole.ends_with('\\') && i < lines.len() {
            whole.pop();
            whole.push_str(lines[i].trim());
            i += 1;
        }
        let mut shown = Vec::new();
        while console
            && i < lines.len()
            && !lines[i].starts_with("$ ")
            && !lines[i].starts_with("```")
        {
            shown.push(lines[i].to_string());
            i += 1;
        }
        let (args, piped) = words(&whole);
        out.push(Example {
            line,
            args: args.into_iter().skip(1).collect(),
            shown,
            piped,
        });
    }
    out
}

/// A shell line's words up to `|`, `>`, `&&`, `;` or `#` outside quotes; whether it went on
/// past them (a comment does not count).
fn words(line: &str) -> (Vec<String>, bool) {
    let (mut out, mut word, mut quote, mut any) = (Vec::new(), String::new(), None, false);
    let mut piped = false;
    for c in line.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (None, '\'' | '"') => (quote, any) = (Some(c), true),
            (None, '#') => break,
            (None, '|' | '>' | ';' | '&') => {
                piped = true;
                break;
            }
            (None, c) if c.is_whitespace() => {
                if any || !word.is_empty() {
                    out.push(std::mem::take(&mut word));
                }
                any = false;
            }
            (_, c) => word.push(c),
        }
    }
    if any || !word.is_empty() {
        out.push(word);
    }
    (out, piped)
}

/// A synopsis: a word in brackets or a placeholder in capitals (`SOURCE`, `DB.COLL`).
fn synopsis(args: &[String]) -> bool {
    args.iter().any(|a| {
        a.starts_with('[')
            || (a.len() > 1
                && a.chars()
                    .all(|c| c.is_ascii_uppercase() || c == '.' || c == '_'))
    })
}

/// Whether the command opens the TUI (it needs a terminal).
fn tui(args: &[String]) -> bool {
    let has = |f: &str| args.iter().any(|a| a == f);
    let printed = [
        "--json",
        "--once",
        "--check",
        "--export",
        "--markdown",
        "--text",
        "--help",
    ];
    let subcommands = shardtop::cli::Cli::command();
    let sub = args.iter().find(|a| {
        subcommands
            .get_subcommands()
            .any(|c| c.get_name() == a.as_str())
    });
    match sub.map(String::as_str) {
        None | Some("demo") => true,
        Some("watch" | "open" | "replay" | "lab") => !printed.iter().any(|f| has(f)),
        _ => false,
    }
}

/// The doc's arguments as run here.
fn as_run(args: &[String], uri: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for a in args {
        let last = out.last().map(String::as_str);
        out.push(if a.starts_with("mongodb://") {
            uri.to_string()
        } else if last == Some("--listen") {
            "127.0.0.1:0".into()
        } else if last == Some("--duration") {
            "3s".into()
        } else {
            a.clone()
        });
    }
    if out.first().is_some_and(|a| a == "serve") && !out.iter().any(|a| a == "--listen") {
        out.extend(["--listen".into(), "127.0.0.1:0".into()]);
    }
    out
}

/// What the output must name, and the files the command must write.
fn expected(args: &[String]) -> (Vec<String>, Vec<String>) {
    let (mut names, mut files) = (Vec::new(), Vec::new());
    for w in args.windows(2) {
        match w[0].as_str() {
            "--ns" | "--drain" => names.push(w[1].clone()),
            "--add-shards" => names.push("added01".into()),
            "-o" | "--export" | "--record" | "--log-commands" => files.push(w[1].clone()),
            _ => {}
        }
    }
    (names, files)
}

#[test]
fn every_command_in_the_readme_and_the_docs_runs() {
    let served = Served::of("drain", &[]);
    let uri = format!("mongodb://127.0.0.1:{}/", served.1);
    // Each document in its own folder and in order; the documents three at a time (most of a
    // command's time is a child process starting or a TUI's first frame).
    let queue = std::sync::Mutex::new(documents());
    let ran = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..3 {
            scope.spawn(|| {
                while let Some(doc) = queue.lock().unwrap().pop() {
                    ran.fetch_add(
                        run_document(&doc, &uri),
                        std::sync::atomic::Ordering::Relaxed,
                    );
                }
            });
        }
    });
    let ran = ran.into_inner();
    assert!(ran >= 40, "only {ran} commands found in the docs");
}

/// Runs every command of `doc`, in order, in a folder of its own; how many.
fn run_document(doc: &Path, uri: &str) -> usize {
    let name = doc.file_name().unwrap().to_string_lossy().into_owned();
    let dir = tempfile::tempdir().unwrap();
    input::prepare(dir.path(), uri);
    let mut ran = 0;
    for ex in examples(&std::fs::read_to_string(doc).unwrap()) {
        let at = format!("{name}:{}: shardtop {}", ex.line, ex.args.join(" "));
        if ex.args == ["mongosh"] {
            mongosh(dir.path(), &ex.shown[0], uri, &at);
        } else if synopsis(&ex.args) {
            takes_its_options(&ex.args, &at);
        } else {
            run_one(dir.path(), &as_run(&ex.args, uri), &ex, &at);
        }
        ran += 1;
    }
    ran
}

/// A `mongosh` line of a `sh` block (a script shardtop wrote, run against a cluster), run by
/// the shell with the URI replaced.
fn mongosh(dir: &Path, line: &str, uri: &str, at: &str) {
    let quoted = line
        .split_whitespace()
        .map(|w| {
            if w.trim_matches('\'').starts_with("mongodb://") {
                format!("'{uri}'")
            } else {
                w.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(" ");
    let o = Command::new("sh")
        .args(["-c", &quoted])
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "{at}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// A synopsis's command exists and its help lists each option the synopsis names.
fn takes_its_options(args: &[String], at: &str) {
    let help = Command::new(BIN)
        .args([&args[0], "--help"])
        .output()
        .unwrap();
    assert!(help.status.success(), "{at}: no such command");
    let help = String::from_utf8_lossy(&help.stdout);
    for a in args.iter().map(|a| a.trim_matches(['[', ']'])) {
        if a.starts_with("--") {
            assert!(help.contains(a), "{at}: {} --help has no {a}", args[0]);
        }
    }
}

fn run_one(dir: &Path, args: &[String], ex: &Example, at: &str) {
    let (names, files) = expected(args);
    let out = if args.first().is_some_and(|a| a == "serve") {
        serve_briefly(dir, args, at)
    } else if tui(args) {
        tui_briefly(dir, args, at)
    } else {
        let o = Command::new(BIN)
            .args(args)
            .current_dir(dir)
            .env("NO_COLOR", "1")
            .env("XDG_CONFIG_HOME", dir)
            .env_remove("SHARDTOP_CONFIG")
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(
            o.status.success(),
            "{at}: exit {:?}\n{text}",
            o.status.code()
        );
        assert!(
            !o.stdout.is_empty() || !files.is_empty(),
            "{at}: printed nothing"
        );
        text
    };
    for n in &names {
        assert!(
            out.contains(n.as_str()),
            "{at}: the output does not name {n}\n{out}"
        );
    }
    for f in &files {
        let len = std::fs::metadata(dir.join(f)).map_or(0, |m| m.len());
        assert!(len > 0, "{at}: {f} was not written");
    }
    for s in ex
        .shown
        .iter()
        .filter(|s| !s.contains('…') && !s.trim().is_empty())
    {
        // The doc's output is compared where the command ran as written, whole.
        if !ex.piped && args == ex.args.as_slice() {
            assert!(
                out.contains(s.trim()),
                "{at}: the doc shows {s:?}; the output:\n{out}"
            );
        }
    }
}

/// `serve` until it says where it listens and has answered a `ping` from mongosh, then stopped.
fn serve_briefly(dir: &Path, args: &[String], at: &str) -> String {
    use std::io::BufRead;
    let mut child = Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufReader::new(child.stderr.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    // One client's command, so that what the server logs (`--log-commands`) is there.
    let ping = line
        .split_whitespace()
        .find(|w| w.starts_with("127.0.0.1:"))
        .map(|addr| {
            Command::new("mongosh")
                .args([
                    &format!("mongodb://{addr}/"),
                    "--quiet",
                    "--eval",
                    "db.runCommand({ping: 1}).ok",
                ])
                .output()
        });
    // Stopped before any check: a server left running keeps what it inherited (the shared
    // build lock's file among them) for as long as it runs.
    child.kill().unwrap();
    child.wait().unwrap();
    if let Some(ping) = ping {
        let ping = ping.unwrap_or_else(|e| panic!("{at}: mongosh: {e}"));
        assert!(
            ping.status.success(),
            "{at}: {}",
            String::from_utf8_lossy(&ping.stderr)
        );
    }
    assert!(line.contains("listening on 127.0.0.1:"), "{at}: {line}");
    line
}

/// A TUI in tmux at 100×30 until its first pane shows, then `q`: it must leave with exit 0.
fn tui_briefly(dir: &Path, args: &[String], at: &str) -> String {
    let quoted: Vec<String> = args
        .iter()
        .map(|a| format!("'{}'", a.replace('\'', r"'\''")))
        .collect();
    let t = Tmux::start_in(dir, &quoted.join(" "), 100, 30);
    let screen = t.wait_for("╭", START);
    let deadline = Instant::now() + START;
    while !t.screen().contains("EXIT=") {
        t.keys("q");
        assert!(
            Instant::now() < deadline,
            "{at}: q did not quit\n{}",
            t.screen()
        );
        std::thread::sleep(Duration::from_millis(500));
    }
    let end = t.screen();
    assert!(end.contains("EXIT=0"), "{at}:\n{end}");
    screen
}
