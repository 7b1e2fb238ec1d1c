//! `shardtop watch URI`: one poll printed (`--once [--json]`), or the TUI over a live source.

use std::io::Write;
use std::time::Duration;

use super::{Failure, write_failed};
use crate::cli::WatchArgs;
use crate::live::client::{LiveError, hosts};
use crate::live::poller::poll_once;
use crate::sim::SummaryOptions;

/// `2s`, `500ms`, `1m`, or a number of seconds.
pub fn duration(text: &str) -> Result<Duration, Failure> {
    let t = text.trim();
    let (number, unit) = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .map_or((t, "s"), |i| (&t[..i], &t[i..]));
    let n: f64 = number
        .parse()
        .map_err(|_| Failure::input(format!("bad duration {text:?}: give e.g. 2s, 500ms, 1m")))?;
    let secs = match unit {
        "ms" => n / 1000.0,
        "s" => n,
        "m" => n * 60.0,
        "h" => n * 3600.0,
        _ => {
            return Err(Failure::input(format!(
                "bad duration {text:?}: units are ms, s, m, h"
            )));
        }
    };
    if !(secs.is_finite() && secs > 0.0) {
        return Err(Failure::input(format!(
            "bad duration {text:?}: must be positive"
        )));
    }
    Ok(Duration::from_secs_f64(secs))
}

fn failure(e: LiveError) -> Failure {
    if e.input {
        Failure::input(e.message)
    } else {
        Failure::runtime(e.message)
    }
}

fn check_heat(heat: &str) -> Result<(), Failure> {
    match heat {
        "auto" | "off" => Ok(()),
        "changestream" | "sampled" | "size" => Err(Failure::input(format!(
            "--heat {heat} is not built yet (see the README's Status); use auto or off"
        ))),
        other => Err(Failure::input(format!(
            "--heat {other:?}: one of auto, off, changestream, sampled, size"
        ))),
    }
}

pub fn run(args: &WatchArgs, colors: bool, out: &mut impl Write) -> Result<(), Failure> {
    check_heat(&args.heat)?;
    let interval = duration(&args.interval)?;
    if !args.once {
        let _ = (colors, interval);
        return Err(Failure::input(
            "the interactive watch is not built yet (see the README's Status); use `shardtop watch URI --once --json`",
        ));
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| Failure::runtime(format!("cannot start the runtime: {e}")))?;
    let polled = rt
        .block_on(poll_once(&args.uri, Duration::from_secs(10)))
        .map_err(failure)?;
    let source = hosts(&args.uri);
    let text = if args.json {
        let summary = polled.state.summary_json(&SummaryOptions {
            source,
            chunks: false,
            writes_unknown: true,
        });
        format!(
            "{}\n",
            serde_json::to_string_pretty(&summary).unwrap_or_default()
        )
    } else {
        polled
            .state
            .summary_text(&format!("shardtop watch {source}"))
    };
    out.write_all(text.as_bytes()).map_err(|e| write_failed(&e))
}
