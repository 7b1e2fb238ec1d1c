//! `sim … --export FILE` and `replay … --export FILE [--at T]`: the screen the TUI would show, at
//! the end (or at T) as `.txt`, `.ansi`, `.svg` or `.png`, or the whole run as an asciicast v2 `.cast`
//! (one frame per virtual second up to the end or T — fewer past 20 minutes, and it says so — timed
//! at the playback speed), drawn by the
//! same panes at `--size`. The file is written whole or not at all by the one safe writer
//! ([`crate::files`]); a file already there is refused unless `--force`.

use std::io::Write;
use std::path::Path;

use super::Failure;
use crate::source::Timeline;
use crate::ui::export;
use crate::ui::{App, Settings};
use crate::view::{ClockView, LogLine};

/// What a file's name asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    Text,
    Ansi,
    Svg,
    Png,
    Cast,
}

fn format_of(path: &Path) -> Result<Format, Failure> {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    match ext.as_deref() {
        Some("txt") => Ok(Format::Text),
        Some("ansi") => Ok(Format::Ansi),
        Some("svg") => Ok(Format::Svg),
        Some("cast") => Ok(Format::Cast),
        Some("png") => Ok(Format::Png),
        _ => Err(Failure::input(format!(
            "--export {}: name a .txt, .ansi, .svg, .png or .cast file",
            path.display()
        ))),
    }
}

/// The largest PNG, in cells: 5,040 × 3,400 pixels at 2×, about 68 MB while it is drawn.
const PNG_MAX: (u16, u16) = (300, 100);

/// `COLSxROWS`, from 60×16 (the smallest layout) to 1000×500.
pub fn size(text: &str) -> Result<(u16, u16), Failure> {
    let bad = || {
        Failure::input(format!(
            "--size {text:?}: give COLSxROWS, 60x16 to 1000x500"
        ))
    };
    let (c, r) = text.split_once(['x', 'X']).ok_or_else(bad)?;
    let (c, r) = (
        c.trim().parse::<u16>().map_err(|_| bad())?,
        r.trim().parse::<u16>().map_err(|_| bad())?,
    );
    if !(60..=1000).contains(&c) || !(16..=500).contains(&r) {
        return Err(bad());
    }
    Ok((c, r))
}

/// The most screens an asciicast draws (the longest built-in scenario's seconds): one per virtual
/// second up to this, then one per as many whole seconds as keep within it (a trace whose end marker says 30 days would otherwise draw 2.6
/// million screens, for hours).
const MAX_CAST_STEPS: u64 = 1_200;

/// The time between the screens an asciicast draws for a run of `end_ms`: a whole number of
/// seconds, one at most [`MAX_CAST_STEPS`] screens.
fn cast_step_ms(end_ms: u64) -> u64 {
    end_ms.div_ceil(1000).div_ceil(MAX_CAST_STEPS).max(1) * 1000
}

/// What to export and how.
pub struct Spec<'a> {
    pub path: &'a Path,
    /// The screen's time (`None`: the end).
    pub at_ms: Option<u64>,
    pub size: (u16, u16),
    /// Virtual seconds per real second of an asciicast.
    pub speed: f64,
    pub settings: &'a Settings,
    /// The screen shown.
    pub view: crate::cli::ExportView,
    /// A file already at `path`: refused, or replaced (`--force`).
    pub existing: crate::files::Existing,
}

struct Screen<T: Timeline> {
    timeline: T,
    app: App,
    end_ms: u64,
}

impl<T: Timeline> Screen<T> {
    fn new(timeline: T, log: Vec<LogLine>, spec: &Spec) -> Self {
        let mut app = App::new(spec.size, true, spec.speed, false);
        app.settings = spec.settings.clone();
        app.screen = match spec.view {
            crate::cli::ExportView::Main => crate::ui::screen::Screen::Main,
            crate::cli::ExportView::Heatmap => crate::ui::screen::Screen::KeyVisualizer,
            crate::cli::ExportView::History => crate::ui::screen::Screen::History,
        };
        app.apply(crate::source::SourceEvent::Log {
            reset: true,
            lines: log,
        });
        let end_ms = timeline
            .stop_at_ms()
            .or(timeline.end_ms())
            .unwrap_or(60_000);
        Self {
            timeline,
            app,
            end_ms,
        }
    }

    fn advance(&mut self, t_ms: u64) -> Result<(), Failure> {
        let mut log = Vec::new();
        self.timeline
            .advance_to(t_ms, &mut log)
            .map_err(|e| Failure::runtime(format!("{e:#}")))?;
        self.app.apply(crate::source::SourceEvent::Log {
            reset: false,
            lines: log,
        });
        let clock = ClockView {
            time_ms: self.timeline.now_ms(),
            paused: false,
            speed: self.app.speed,
            end_ms: self.timeline.end_ms(),
            virtual_time: self.timeline.wall_start_ms().is_none(),
            wall_start_ms: self.timeline.wall_start_ms(),
        };
        // An export waits for the diagnosis of each frame: the same frame every time.
        let diagnoses = (self.timeline.diagnosis_work()).and_then(crate::source::diagnose::now);
        let view = self
            .timeline
            .view(&self.app.request(), clock, diagnoses.as_ref());
        self.app
            .apply(crate::source::SourceEvent::View(Box::new(view)));
        Ok(())
    }
}

/// Writes the export; returns what was written, in words.
pub fn run<T: Timeline>(timeline: T, log: Vec<LogLine>, spec: &Spec) -> Result<String, Failure> {
    let format = format_of(spec.path)?;
    crate::files::check(spec.path, spec.existing)
        .map_err(|e| Failure::input(format!("--export {}: {e}", spec.path.display())))?;
    let (w, h) = spec.size;
    if format == Format::Png && (w > PNG_MAX.0 || h > PNG_MAX.1) {
        return Err(Failure::input(format!(
            "--size {w}x{h}: a PNG is at most {}x{} cells (its pixels are held in memory); write .svg for larger screens",
            PNG_MAX.0, PNG_MAX.1
        )));
    }
    let label = timeline.label();
    let mut screen = Screen::new(timeline, log, spec);
    let mut body = String::new();
    if format == Format::Cast {
        if let Some(t) = spec.at_ms {
            screen.end_ms = t;
        }
        body.push_str(&export::cast_header(w, h, &format!("shardtop {label}")));
        let mut last = None;
        let mut frames = 0;
        let mut t = 0;
        let step_ms = cast_step_ms(screen.end_ms);
        loop {
            screen.advance(t)?;
            let buffer = export::render(&screen.app);
            if last.as_ref() != Some(&buffer) {
                let at = screen.timeline.now_ms() as f64 / 1000.0 / spec.speed;
                body.push_str(&export::cast_frame(&buffer, at));
                frames += 1;
                last = Some(buffer);
            }
            if t >= screen.end_ms {
                break;
            }
            t = t.saturating_add(step_ms).min(screen.end_ms);
        }
        super::terminal::write_whole(spec.path, body.as_bytes(), spec.existing)?;
        let sampled = if step_ms > 1000 {
            format!(
                "; one frame per {} s: the run is longer than {MAX_CAST_STEPS} s",
                step_ms / 1000
            )
        } else {
            String::new()
        };
        return Ok(format!(
            "wrote {} ({frames} frames, {w}×{h}, {:.1} s at ×{}{sampled})",
            spec.path.display(),
            screen.end_ms as f64 / 1000.0 / spec.speed,
            spec.speed
        ));
    }
    let at = spec.at_ms.unwrap_or(screen.end_ms);
    screen.advance(at)?;
    let buffer = export::render(&screen.app);
    let page = export::Page::of(&screen.app.settings.theme);
    let bytes = match format {
        Format::Text => export::text(&buffer).into_bytes(),
        Format::Ansi => export::ansi(&buffer, "\n").into_bytes(),
        Format::Png => crate::ui::export_png::png(&export::svg(&buffer, page))
            .map_err(|e| Failure::runtime(format!("cannot draw the PNG: {e}")))?,
        _ => export::svg(&buffer, page).into_bytes(),
    };
    super::terminal::write_whole(spec.path, &bytes, spec.existing)?;
    Ok(format!(
        "wrote {} (the screen at {:.1} s, {w}×{h})",
        spec.path.display(),
        screen.timeline.now_ms() as f64 / 1000.0
    ))
}

fn spec_of<'a>(
    path: &'a Path,
    at: Option<f64>,
    size_text: Option<&str>,
    ctx: &'a super::settings::Context,
    (view, force): (crate::cli::ExportView, bool),
) -> Result<Spec<'a>, Failure> {
    let at_ms = match at {
        Some(t) if !t.is_finite() || t < 0.0 => {
            return Err(Failure::input("--at: give a time in seconds, 0 or more"));
        }
        Some(t) => Some((t * 1000.0).round() as u64),
        None => None,
    };
    Ok(Spec {
        path,
        at_ms,
        size: size_text.map_or(Ok((120, 40)), size)?,
        speed: super::settings::speed_of(None, ctx)?,
        settings: &ctx.settings,
        view,
        existing: super::existing(force),
    })
}

fn said(out: &mut impl Write, message: &str) -> Result<(), Failure> {
    writeln!(out, "{message}").map_err(|e| super::write_failed(&e))
}

/// `sim SCENARIO --export FILE [--until T] [--size COLSxROWS]`.
pub fn sim(
    args: &crate::cli::SimArgs,
    ctx: &super::settings::Context,
    out: &mut impl Write,
) -> Result<(), Failure> {
    let (sc, label) =
        super::scenario_file::load(args.scenario.as_deref(), args.scenario_file.as_deref())?;
    let version = super::server_version(args.server_version.as_deref(), &ctx.config)?;
    let mut timeline =
        crate::source::sim::SimTimeline::new(&sc, args.seed.unwrap_or(sc.seed), version)
            .map_err(|e| Failure::input(format!("scenario {label}: {e}")))?;
    let log = timeline.take_initial_log();
    timeline.keep_past(super::settings::history_secs(&ctx.config)?);
    let path = args.export.as_deref().unwrap_or(Path::new(""));
    let spec = spec_of(
        path,
        args.until,
        args.size.as_deref(),
        ctx,
        (args.view, args.force),
    )?;
    said(out, &run(timeline, log, &spec)?)
}

/// `replay FILE --export FILE [--at T] [--size COLSxROWS]`.
pub fn replay(
    args: &crate::cli::ReplayArgs,
    ctx: &super::settings::Context,
    out: &mut impl Write,
) -> Result<(), Failure> {
    let mut timeline = crate::source::replay::ReplayTimeline::open(&args.file).map_err(|e| {
        if e.input {
            Failure::input(e.message)
        } else {
            Failure::runtime(e.message)
        }
    })?;
    timeline.keep_past(super::settings::history_secs(&ctx.config)?);
    let path = args.export.as_deref().unwrap_or(Path::new(""));
    let spec = spec_of(
        path,
        args.at,
        args.size.as_deref(),
        ctx,
        (args.view, args.force),
    )?;
    said(out, &run(timeline, Vec::new(), &spec)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_formats_are_checked() {
        assert_eq!(size("120x40").ok().map(|s| s.0), Some(120));
        assert!(size("10x10").is_err() && size("axb").is_err() && size("120").is_err());
        assert!(format_of(Path::new("a.svg")).is_ok());
        assert!(format_of(Path::new("a.png")).is_ok());
        assert!(format_of(Path::new("a.jpg")).is_err());
        assert!(format_of(Path::new("a")).is_err());
    }

    #[test]
    fn an_asciicast_draws_at_most_its_bound_of_screens() {
        assert_eq!(cast_step_ms(300_000), 1000);
        assert_eq!(cast_step_ms(1_200_000), 1000);
        assert_eq!(cast_step_ms(1_200_001), 2000);
        let thirty_days = 30 * 86_400_000;
        assert_eq!(cast_step_ms(thirty_days), 2_160_000);
        assert!(thirty_days / cast_step_ms(thirty_days) <= MAX_CAST_STEPS);
        assert_eq!(cast_step_ms(u64::MAX) % 1000, 0);
    }
}
