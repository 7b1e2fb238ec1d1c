//! The event loop: key presses, source messages and a capped frame clock meet here. Draws only
//! when something changed (at most `fps` times a second); a paused, idle app sleeps. Generic
//! over the backend and the input stream, so tests drive it with `TestBackend` and scripted keys.
//!
//! Only this module and `commands` wire channels, tasks and the terminal. What the terminal is
//! told besides the frame (the clipboard, the tab's progress) is `osc`'s.

pub mod osc;

use std::time::Duration;

use color_eyre::eyre::eyre;
use futures::{Stream, StreamExt};
use ratatui::Terminal;
use ratatui::backend::Backend;
use ratatui::crossterm::event::Event;
use tokio::sync::mpsc;
use tokio::task::JoinSet;
use tokio::time::MissedTickBehavior;

use crate::source::{SourceControl, SourceEvent};
use crate::ui::{Action, App, keymap};

/// Why the event loop ended (a failure is the `Err` of [`run`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ended {
    /// The user quit.
    Quit,
    /// The input stream ended.
    InputEnded,
}

/// Runs until the user quits, the input ends, or a background task fails; nothing is sent to
/// the terminal besides the frames (see [`run_with`]).
pub async fn run<B, I>(
    terminal: &mut Terminal<B>,
    app: &mut App,
    input: I,
    from_source: mpsc::Receiver<SourceEvent>,
    to_source: mpsc::Sender<SourceControl>,
    tasks: &mut JoinSet<color_eyre::Result<()>>,
) -> color_eyre::Result<Ended>
where
    B: Backend,
    B::Error: Send + Sync + 'static,
    I: Stream<Item = std::io::Result<Event>> + Unpin,
{
    let mut osc = osc::Osc::new(std::io::sink());
    run_with(
        terminal,
        app,
        input,
        from_source,
        to_source,
        tasks,
        &mut osc,
    )
    .await
}

/// [`run`], sending the clipboard's text and the tab's progress through `osc` (the caller
/// clears the progress when the TUI ends: [`osc::Osc::finish`]).
pub async fn run_with<B, I, W>(
    terminal: &mut Terminal<B>,
    app: &mut App,
    mut input: I,
    mut from_source: mpsc::Receiver<SourceEvent>,
    to_source: mpsc::Sender<SourceControl>,
    tasks: &mut JoinSet<color_eyre::Result<()>>,
    osc: &mut osc::Osc<W>,
) -> color_eyre::Result<Ended>
where
    B: Backend,
    B::Error: Send + Sync + 'static,
    I: Stream<Item = std::io::Result<Event>> + Unpin,
    W: std::io::Write,
{
    let fps = app.settings.fps.clamp(1, 240);
    let mut frame = tokio::time::interval(Duration::from_secs_f64(1.0 / f64::from(fps)));
    frame.set_missed_tick_behavior(MissedTickBehavior::Skip);
    let mut dirty = true;
    // Controls wait here, never in the loop: a source busy with a slow read cannot hold keys.
    let mut pending = std::collections::VecDeque::new();
    queue(&mut pending, SourceControl::View(app.request()));
    let mut tstp = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::from_raw(
        signal_hook::consts::SIGTSTP,
    ))
    .ok();
    loop {
        tokio::select! {
            Some(()) = async { match tstp.as_mut() { Some(s) => s.recv().await, None => None } } => {
                suspend(terminal)?;
                dirty = true;
            }
            permit = to_source.reserve(), if !pending.is_empty() => {
                match (permit, pending.pop_front()) {
                    (Ok(permit), Some(cmd)) => permit.send(cmd),
                    // The source is gone: its end is seen below.
                    _ => pending.clear(),
                }
            }
            _ = frame.tick(), if dirty => {
                terminal.draw(|f| crate::ui::render(f, app))?;
                dirty = false;
            }
            event = input.next() => {
                let Some(event) = event else { return Ok(Ended::InputEnded) };
                let action = match event? {
                    // Ctrl-Z in raw mode is a key: job control as the shell would do it.
                    Event::Key(key) if is_suspend(&key) => {
                        suspend(terminal)?;
                        dirty = true;
                        None
                    }
                    Event::Key(key) => app.settings.keys.map(&key, app.input.typing()),
                    Event::Resize(w, h) => Some(Action::Resize(w, h)),
                    Event::Mouse(m) => keymap::map_mouse(&m),
                    _ => None,
                };
                if let Some(action) = action {
                    let effects = app.update(action);
                    for cmd in effects.controls {
                        queue(&mut pending, cmd);
                    }
                    if let Some(text) = &effects.clipboard {
                        osc.copy(text)?;
                    }
                    if effects.save_screen {
                        app.notice = Some(save_screen(app, std::path::Path::new(".")));
                    }
                    if let Action::Resize(..) = action {
                        terminal.autoresize()?;
                    }
                    if effects.quit {
                        return Ok(Ended::Quit);
                    }
                    dirty = true;
                }
            }
            msg = from_source.recv() => {
                let Some(msg) = msg else {
                    // The source ended: its task's result says why.
                    if let Some(joined) = tasks.join_next().await {
                        joined.map_err(|e| eyre!("the source task failed: {e}"))??;
                    }
                    return Err(eyre!("the source stopped unexpectedly"));
                };
                app.apply(msg);
                while let Ok(msg) = from_source.try_recv() {
                    app.apply(msg);
                }
                osc.show(app.tab_progress())?;
                dirty = true;
            }
        }
    }
}

fn is_suspend(key: &ratatui::crossterm::event::KeyEvent) -> bool {
    use ratatui::crossterm::event::{KeyCode, KeyEventKind, KeyModifiers};
    key.code == KeyCode::Char('z')
        && key.modifiers.contains(KeyModifiers::CONTROL)
        && key.kind == KeyEventKind::Press
}

/// Job control, as htop and vim do it: leaves the alternate screen, turns mouse reporting and
/// raw mode off, shows the cursor, stops the process (SIGSTOP: the shell says "Stopped"); on
/// `fg` (SIGCONT) takes the terminal again and redraws everything.
fn suspend<B: Backend>(terminal: &mut Terminal<B>) -> color_eyre::Result<()> {
    use ratatui::crossterm::event::{DisableMouseCapture, EnableMouseCapture};
    use ratatui::crossterm::terminal::{
        Clear, ClearType, EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode,
        enable_raw_mode,
    };
    use ratatui::crossterm::{cursor, execute};
    let mut out = std::io::stdout();
    execute!(out, DisableMouseCapture, LeaveAlternateScreen, cursor::Show)?;
    disable_raw_mode()?;
    signal_hook::low_level::raise(signal_hook::consts::SIGSTOP)?;
    // Running again (SIGCONT).
    enable_raw_mode()?;
    execute!(
        out,
        EnterAlternateScreen,
        EnableMouseCapture,
        cursor::Hide,
        Clear(ClearType::All)
    )?;
    // The next frame is drawn whole: both buffers blank, as the screen now is (not
    // `Terminal::clear`, which asks the terminal where its cursor is while the event stream
    // reads the answer).
    terminal.current_buffer_mut().reset();
    terminal.swap_buffers();
    Ok(())
}

/// Queues a control for the source; a view request replaces the one still queued (only the
/// newest matters).
fn queue(pending: &mut std::collections::VecDeque<SourceControl>, cmd: SourceControl) {
    if let SourceControl::View(_) = cmd {
        pending.retain(|c| !matches!(c, SourceControl::View(_)));
    }
    pending.push_back(cmd);
}

/// Writes the screen as `shardtop-YYYYMMDD-HHMMSS.txt` and `.svg` into `dir` (`…-2`, `…-3` when
/// those names are taken: nothing is overwritten), through the one safe writer; the notice to show.
pub fn save_screen(app: &App, dir: &std::path::Path) -> String {
    let buffer = crate::ui::export::render(app);
    let now = bson::DateTime::now()
        .try_to_rfc3339_string()
        .unwrap_or_default();
    let stamp: String = now.chars().take(19).filter(char::is_ascii_digit).collect();
    let stem = format!(
        "shardtop-{}-{}",
        &stamp[..8.min(stamp.len())],
        &stamp[8.min(stamp.len())..]
    );
    let text = crate::ui::export::text(&buffer);
    let page = crate::ui::export::Page::of(&app.settings.theme);
    let svg = crate::ui::export::svg(&buffer, page);
    let files: [(&str, &[u8]); 2] = [("txt", text.as_bytes()), ("svg", svg.as_bytes())];
    match crate::files::write_unique(dir, &stem, &files) {
        Ok(base) => format!("screen saved: {base}.txt, {base}.svg"),
        Err(e) => format!("cannot save the screen in {}: {e}", dir.display()),
    }
}
