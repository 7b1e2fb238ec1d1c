//! The terminal toolbox every command shares: the runtime the terminal commands run on, whether
//! standard output is a terminal and colours are wanted, and running a source in the TUI — start
//! the source task, take over the terminal, run the event loop, and give the terminal back on
//! every path (a signal, or a panic — ratatui's panic hook restores it first; the tab's progress
//! is cleared on each), with the theme following the terminal's background when none is set;
//! and writing an output file whole through the one safe writer.
//!
//! May import the floors below `commands` and `super::Failure`; never a command module.

mod background;
pub mod driver_panic;

use std::io::IsTerminal;

use tokio::sync::mpsc;
use tokio::task::JoinSet;

use super::Failure;
use crate::source::{Playback, Timeline, run_timeline};
use crate::ui::{App, Settings};
use crate::view::LogLine;

/// Whether colours are wanted: `--no-color` and a non-empty `NO_COLOR` turn them off.
pub fn colors_wanted(no_color_flag: bool) -> bool {
    !no_color_flag && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

pub fn require_terminal(headless: &str) -> Result<(), Failure> {
    if std::io::stdout().is_terminal() {
        Ok(())
    } else {
        Err(Failure::input(format!(
            "standard output is not a terminal, so there is no interactive view; for a headless run use {headless}"
        )))
    }
}

/// Plays a timeline in the TUI from `playback`, with `log` as the event log's first lines.
pub fn run_tui<T: Timeline>(
    timeline: T,
    playback: Playback,
    log: Vec<LogLine>,
    settings: &Settings,
) -> Result<(), Failure> {
    let rt = runtime()?;
    let start = move |to_ui, controls| run_timeline(timeline, playback, log, to_ui, controls);
    run_source_in(rt, start, playback.speed, playback.paused, settings, |_| {})
}

/// The runtime the TUI commands run on.
pub fn runtime() -> Result<tokio::runtime::Runtime, Failure> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| Failure::runtime(format!("cannot start the runtime: {e}")))
}

/// Starts the source task, takes over the terminal, runs the event loop, gives the terminal back,
/// and shuts the runtime down: what is still running on it (a driver's sessions being ended in
/// the background) gets [`SHUTDOWN`], and the process never waits longer to exit.
pub fn run_source_in<F, Fut>(
    rt: tokio::runtime::Runtime,
    start: F,
    speed: f64,
    paused: bool,
    settings: &Settings,
    configure: impl FnOnce(&mut App) + Send,
) -> Result<(), Failure>
where
    F: FnOnce(
        mpsc::Sender<crate::source::SourceEvent>,
        mpsc::Receiver<crate::source::SourceControl>,
    ) -> Fut,
    Fut: std::future::Future<Output = color_eyre::Result<()>> + Send + 'static,
{
    let ended = rt.block_on(async move {
        let (to_ui, from_source) = mpsc::channel(64);
        let (to_source, controls) = mpsc::channel(16);
        let mut tasks = JoinSet::new();
        tasks.spawn(start(to_ui, controls));
        // Before the TUI takes the terminal: the background's answer is read here, not by the
        // event stream.
        let mut settings = settings.clone();
        if settings.theme_auto && settings.theme.colors {
            settings.theme.palette = background::theme_for_background();
        }
        let mut terminal = ratatui::try_init()
            .map_err(|e| Failure::runtime(format!("cannot set up the terminal: {e}")))?;
        mouse_capture(true);
        let size = terminal.size().unwrap_or_default();
        let mut app = App::new((size.width, size.height), true, speed, paused);
        app.settings = settings;
        configure(&mut app);
        let mut osc = crate::runtime::osc::Osc::new(std::io::stdout());
        let input = ratatui::crossterm::event::EventStream::new();
        let signals = Signals::new();
        let ended = tokio::select! {
            r = crate::runtime::run_with(
                &mut terminal,
                &mut app,
                input,
                from_source,
                to_source,
                &mut tasks,
                &mut osc,
            ) => Ok(r),
            n = signals.next() => Err(n),
        };
        let _ = osc.finish();
        mouse_capture(false);
        let _ = terminal.show_cursor();
        ratatui::restore();
        // The source ends by itself now that the UI's channels are gone: a moment for it to
        // (a live source's driver ends its sessions while the runtime still runs), then the
        // rest is stopped.
        let ends = async { while tasks.join_next().await.is_some() {} };
        let _ = tokio::time::timeout(SOURCE_ENDS, ends).await;
        tasks.shutdown().await;
        match ended {
            Ok(result) => result
                .map(|_ended| ())
                .map_err(|e| Failure::runtime(format!("{e:#}"))),
            // Killed: the terminal is back; end as a process killed by that signal ends.
            Err(signal) => std::process::exit(128 + signal),
        }
    });
    rt.shutdown_timeout(SHUTDOWN);
    ended
}

/// How long the source may take to end by itself when the TUI has ended.
const SOURCE_ENDS: std::time::Duration = std::time::Duration::from_millis(500);

/// How long the TUI's runtime may take to end what still runs on it when the TUI has ended.
const SHUTDOWN: std::time::Duration = std::time::Duration::from_millis(500);

/// SIGTERM, SIGHUP, SIGQUIT and SIGINT while the TUI runs (in raw mode Ctrl-C is a key; these
/// come from `kill`, a closed terminal, Ctrl-\ outside raw mode…).
struct Signals(Vec<(i32, Option<tokio::signal::unix::Signal>)>);

impl Signals {
    fn new() -> Self {
        use tokio::signal::unix::{SignalKind, signal};
        let kinds = [
            (15, SignalKind::terminate()),
            (1, SignalKind::hangup()),
            (3, SignalKind::quit()),
            (2, SignalKind::interrupt()),
        ];
        Self(
            kinds
                .into_iter()
                .map(|(n, k)| (n, signal(k).ok()))
                .collect(),
        )
    }

    /// The number of the first signal received.
    async fn next(mut self) -> i32 {
        let waits = self.0.iter_mut().filter_map(|(n, s)| {
            let n = *n;
            s.as_mut()
                .map(|s| Box::pin(async move { s.recv().await.map(|()| n) }))
        });
        let waits: Vec<_> = waits.collect();
        if waits.is_empty() {
            return std::future::pending().await;
        }
        match futures::future::select_all(waits).await {
            (Some(n), _, _) => n,
            (None, _, _) => std::future::pending().await,
        }
    }
}

/// Turns mouse reporting on (and makes a panic turn it off again before ratatui's own hook
/// restores the rest of the terminal) or off.
fn mouse_capture(on: bool) {
    use ratatui::crossterm::event::{DisableMouseCapture, EnableMouseCapture};
    let mut out = std::io::stdout();
    if on {
        let _ = ratatui::crossterm::execute!(out, EnableMouseCapture);
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let _ = ratatui::crossterm::execute!(std::io::stdout(), DisableMouseCapture);
            crate::runtime::osc::clear_left_progress();
            previous(info);
        }));
    } else {
        let _ = ratatui::crossterm::execute!(out, DisableMouseCapture);
    }
}

/// Writes `body` to `path` whole or not at all, through the one safe writer.
pub fn write_whole(
    path: &std::path::Path,
    body: &[u8],
    existing: crate::files::Existing,
) -> Result<(), Failure> {
    crate::files::write_whole(path, body, existing)
        .map(|_| ())
        .map_err(|e| {
            let text = format!("cannot write {}: {e}", path.display());
            if e.kind() == std::io::ErrorKind::AlreadyExists {
                Failure::input(text)
            } else {
                Failure::runtime(text)
            }
        })
}
