#![allow(clippy::unwrap_used)]
//! No control sequence from a cluster reaches the terminal outside the TUI: a cluster whose
//! shards, database and collection are named with ESC, CSI, OSC (a window title, an OSC 52
//! clipboard write), BEL and C1 characters, read by `watch --once` (text and JSON), `explain` and
//! `whatif`: stdout and stderr hold no control byte but newline and tab, and no C1 character —
//! each is shown escaped (`\u001b`).

use shardtop::sim::{Simulator, scenario};

use super::helpers::shardtop;

const SCENARIO: &str = r#"{
  "name": "hostile",
  "description": "names that are escape sequences",
  "shards": [{"id": "s\u001b]0;pwned\u0007a"}, {"id": "s\u001b]52;c;cGF5bG9hZA==\u001b\\b"}, {"id": "s\u009b2J\u0085c"}],
  "chunkSizeMb": 1,
  "collections": [{"ns": "d\u001b[2J.c\u001b[31m\u0007", "key": {"k": 1}}],
  "workloads": [{"ns": "d\u001b[2J.c\u001b[31m\u0007", "rate": 500, "count": 6000, "docSize": {"min": 400, "max": 500}, "fields": {"k": {"sequence": {}}}}],
  "until": 600
}"#;

/// The first control character (C0 but newline and tab, DEL, C1) of `bytes`.
fn control(bytes: &[u8]) -> Option<char> {
    String::from_utf8_lossy(bytes)
        .chars()
        .find(|c| (c.is_control() && *c != '\n' && *c != '\t') || ('\u{80}'..='\u{9f}').contains(c))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn names_with_escape_sequences_are_printed_escaped_by_every_command() {
    let sc = scenario::parse(SCENARIO).unwrap();
    let mut sim = Simulator::from_scenario(&sc, sc.seed, None).unwrap();
    sim.run_until(60_000);
    let (server, uri) = super::helpers::serve_paused(sim).await;
    let ns = "d\u{1b}[2J.c\u{1b}[31m\u{7}";
    for args in [
        vec!["watch", &uri, "--once"],
        vec!["watch", &uri, "--once", "--json"],
        vec!["explain", &uri, "--ns", ns],
        vec!["whatif", &uri, "--ns", ns, "--add-shards", "1"],
        vec!["whatif", &uri, "--ns", ns, "--drain", "s\u{9b}2J\u{85}c"],
    ] {
        let out = shardtop(args.iter().map(ToString::to_string).collect()).await;
        let what = format!("{:?}", &args[..1]);
        assert_eq!(control(&out.stdout), None, "{what}: {out:?}");
        assert_eq!(control(&out.stderr), None, "{what}: {out:?}");
        let text = String::from_utf8_lossy(&out.stdout).to_string()
            + &String::from_utf8_lossy(&out.stderr);
        // The names are there, escaped.
        assert!(text.contains("\\u001b"), "{what}: {text}");
    }
    server.shutdown().await;
}
