//! A screen as a file: plain text, text with ANSI colours, SVG (colours kept, a monospace grid)
//! and asciicast v2 frames — pure functions of a rendered buffer; writing the file is the
//! caller's.

use ratatui::buffer::{Buffer, Cell, CellDiffOption};
use ratatui::style::{Color, Modifier};

use super::App;

/// The screen `app` draws at its size, as a buffer.
pub fn render(app: &App) -> Buffer {
    let (w, h) = app.size;
    let mut terminal = ratatui::Terminal::new(ratatui::backend::TestBackend::new(w, h))
        .unwrap_or_else(|e| match e {});
    let _ = terminal.draw(|f| super::render(f, app));
    terminal.backend().buffer().clone()
}

fn rows(buffer: &Buffer) -> impl Iterator<Item = &[Cell]> {
    let width = usize::from(buffer.area.width).max(1);
    buffer.content().chunks(width)
}

/// Plain text: one line per row, trailing spaces cut.
pub fn text(buffer: &Buffer) -> String {
    let mut out = String::new();
    for row in rows(buffer) {
        let line: String = row
            .iter()
            .filter(|c| c.diff_option != CellDiffOption::Skip)
            .map(Cell::symbol)
            .collect();
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// The SGR parameters of a colour as foreground (`base` 30) or background (40).
fn sgr_color(c: Color, base: u8) -> Option<String> {
    let named = |n: u8| Some((base + n).to_string());
    let bright = |n: u8| Some((base + 60 + n).to_string());
    match c {
        Color::Reset => None,
        Color::Black => named(0),
        Color::Red => named(1),
        Color::Green => named(2),
        Color::Yellow => named(3),
        Color::Blue => named(4),
        Color::Magenta => named(5),
        Color::Cyan => named(6),
        Color::Gray => named(7),
        Color::DarkGray => bright(0),
        Color::LightRed => bright(1),
        Color::LightGreen => bright(2),
        Color::LightYellow => bright(3),
        Color::LightBlue => bright(4),
        Color::LightMagenta => bright(5),
        Color::LightCyan => bright(6),
        Color::White => bright(7),
        Color::Indexed(i) => Some(format!("{};5;{i}", base + 8)),
        Color::Rgb(r, g, b) => Some(format!("{};2;{r};{g};{b}", base + 8)),
    }
}

fn sgr(cell: &Cell) -> String {
    let mut parts = vec!["0".to_string()];
    for (m, code) in [
        (Modifier::BOLD, "1"),
        (Modifier::DIM, "2"),
        (Modifier::ITALIC, "3"),
        (Modifier::UNDERLINED, "4"),
        (Modifier::REVERSED, "7"),
    ] {
        if cell.modifier.contains(m) {
            parts.push(code.into());
        }
    }
    parts.extend(sgr_color(cell.fg, 30));
    parts.extend(sgr_color(cell.bg, 40));
    format!("\x1b[{}m", parts.join(";"))
}

/// Text with ANSI colours and modifiers (SGR), reset at the end of every line; lines end with
/// `line_end` (`"\n"` for a file, `"\r\n"` in an asciicast frame).
pub fn ansi(buffer: &Buffer, line_end: &str) -> String {
    let mut out = String::new();
    for row in rows(buffer) {
        let mut current = String::new();
        for cell in row.iter().filter(|c| c.diff_option != CellDiffOption::Skip) {
            let style = sgr(cell);
            if style != current {
                out.push_str(&style);
                current = style;
            }
            out.push_str(cell.symbol());
        }
        out.push_str("\x1b[0m");
        out.push_str(line_end);
    }
    out
}

/// xterm's colours for the named ones, on a dark background.
pub fn rgb(c: Color, default: (u8, u8, u8)) -> (u8, u8, u8) {
    match c {
        Color::Reset => default,
        Color::Black => (0, 0, 0),
        Color::Red => (205, 0, 0),
        Color::Green => (0, 205, 0),
        Color::Yellow => (205, 205, 0),
        Color::Blue => (0, 0, 238),
        Color::Magenta => (205, 0, 205),
        Color::Cyan => (0, 205, 205),
        Color::Gray => (229, 229, 229),
        Color::DarkGray => (127, 127, 127),
        Color::LightRed => (255, 0, 0),
        Color::LightGreen => (0, 255, 0),
        Color::LightYellow => (255, 255, 0),
        Color::LightBlue => (92, 92, 255),
        Color::LightMagenta => (255, 0, 255),
        Color::LightCyan => (0, 255, 255),
        Color::White => (255, 255, 255),
        Color::Indexed(i) => indexed(i),
        Color::Rgb(r, g, b) => (r, g, b),
    }
}

/// The 256-colour palette: 16 basic, the 6×6×6 cube, 24 greys.
fn indexed(i: u8) -> (u8, u8, u8) {
    const BASIC: [Color; 16] = [
        Color::Black,
        Color::Red,
        Color::Green,
        Color::Yellow,
        Color::Blue,
        Color::Magenta,
        Color::Cyan,
        Color::Gray,
        Color::DarkGray,
        Color::LightRed,
        Color::LightGreen,
        Color::LightYellow,
        Color::LightBlue,
        Color::LightMagenta,
        Color::LightCyan,
        Color::White,
    ];
    match i {
        0..=15 => rgb(BASIC[usize::from(i)], (0, 0, 0)),
        16..=231 => {
            let n = i - 16;
            let level = |v: u8| if v == 0 { 0 } else { 55 + v * 40 };
            (level(n / 36), level((n / 6) % 6), level(n % 6))
        }
        _ => {
            let g = 8 + (i - 232) * 10;
            (g, g, g)
        }
    }
}

/// The page an SVG or PNG is drawn on: the default colours of a terminal of that background.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Page {
    pub fg: (u8, u8, u8),
    pub bg: (u8, u8, u8),
}

impl Page {
    pub const DARK: Self = Self {
        fg: (220, 220, 220),
        bg: (24, 24, 27),
    };
    pub const LIGHT: Self = Self {
        fg: (30, 30, 30),
        bg: (250, 250, 250),
    };

    /// The page a theme is drawn for (`light` themes on a light page).
    pub fn of(theme: &super::theme::Theme) -> Self {
        if theme.palette.light {
            Self::LIGHT
        } else {
            Self::DARK
        }
    }
}
/// Cell size in SVG units: a 14-unit monospace font is about 0.6 em wide.
const CELL_W: f64 = 8.4;
const CELL_H: f64 = 17.0;

fn hex((r, g, b): (u8, u8, u8)) -> String {
    format!("#{r:02x}{g:02x}{b:02x}")
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The colours a cell is drawn with on `page`: (foreground, background), reversal applied.
fn colors(cell: &Cell, page: Page) -> ((u8, u8, u8), (u8, u8, u8)) {
    let fg = rgb(cell.fg, page.fg);
    let bg = rgb(cell.bg, page.bg);
    if cell.modifier.contains(Modifier::REVERSED) {
        (bg, fg)
    } else {
        (fg, bg)
    }
}

/// A braille pattern's raised dots as (column 0–1, row 0–3): Unicode's dot numbering, dots 1–3
/// down the left, 4–6 down the right, 7 and 8 below.
fn braille_dots(symbol: &str) -> Option<Vec<(u8, u8)>> {
    const AT: [(u8, u8); 8] = [
        (0, 0),
        (0, 1),
        (0, 2),
        (1, 0),
        (1, 1),
        (1, 2),
        (0, 3),
        (1, 3),
    ];
    let mut chars = symbol.chars();
    let c = chars.next()?;
    if chars.next().is_some() || !('\u{2800}'..='\u{28ff}').contains(&c) {
        return None;
    }
    let bits = c as u32 - 0x2800;
    Some(
        (0..8)
            .filter(|b| bits & (1 << b) != 0)
            .map(|b| AT[b])
            .collect(),
    )
}

/// Braille cells drawn as dots (a monospace font may have no braille glyphs: the PNG's bundled
/// one has none), at column `x` of a row whose top is `top`.
fn braille_svg(out: &mut String, dots: &[(u8, u8)], x: usize, top: f64, fill: &str, dim: bool) {
    let left = x as f64 * CELL_W;
    let r = (CELL_W / 2.0).min(CELL_H / 4.0) * 0.32;
    let opacity = if dim { " fill-opacity=\"0.6\"" } else { "" };
    for &(col, row) in dots {
        out.push_str(&format!(
            "<circle cx=\"{:.2}\" cy=\"{:.2}\" r=\"{r:.2}\" fill=\"{fill}\"{opacity}/>\n",
            left + (f64::from(col) + 0.5) * CELL_W / 2.0,
            top + (f64::from(row) + 0.5) * CELL_H / 4.0,
        ));
    }
}

/// An SVG of the screen on `page`: one rectangle per run of a background colour and one
/// `<text>` per run of a style, in a monospace font (braille cells as dots); colours as the
/// terminal would show them.
pub fn svg(buffer: &Buffer, page: Page) -> String {
    let (w, h) = (buffer.area.width, buffer.area.height);
    let (width, height) = (f64::from(w) * CELL_W, f64::from(h) * CELL_H);
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width:.0}\" height=\"{height:.0}\" viewBox=\"0 0 {width:.1} {height:.1}\" font-family=\"'DejaVu Sans Mono', Menlo, Consolas, monospace\" font-size=\"14\">\n<rect width=\"100%\" height=\"100%\" fill=\"{}\"/>\n",
        hex(page.bg)
    );
    for (y, row) in rows(buffer).enumerate() {
        let top = y as f64 * CELL_H;
        let mut x = 0usize;
        let cells: Vec<&Cell> = row
            .iter()
            .filter(|c| c.diff_option != CellDiffOption::Skip)
            .collect();
        while x < cells.len() {
            let style = (colors(cells[x], page), cells[x].modifier);
            let end = (x..cells.len())
                .find(|&i| (colors(cells[i], page), cells[i].modifier) != style)
                .unwrap_or(cells.len());
            let ((fg, bg), modifier) = style;
            let left = x as f64 * CELL_W;
            let run = (end - x) as f64 * CELL_W;
            if bg != page.bg {
                out.push_str(&format!(
                    "<rect x=\"{left:.1}\" y=\"{top:.1}\" width=\"{run:.1}\" height=\"{CELL_H:.1}\" fill=\"{}\"/>\n",
                    hex(bg)
                ));
            }
            let mut text = String::new();
            for (i, c) in cells.iter().enumerate().take(end).skip(x) {
                match braille_dots(c.symbol()) {
                    Some(dots) => {
                        let dim = modifier.contains(Modifier::DIM);
                        braille_svg(&mut out, &dots, i, top, &hex(fg), dim);
                        text.push(' ');
                    }
                    None => text.push_str(c.symbol()),
                }
            }
            if !text.trim().is_empty() {
                let weight = if modifier.contains(Modifier::BOLD) {
                    " font-weight=\"bold\""
                } else {
                    ""
                };
                let opacity = if modifier.contains(Modifier::DIM) {
                    " fill-opacity=\"0.6\""
                } else {
                    ""
                };
                out.push_str(&format!(
                    "<text x=\"{left:.1}\" y=\"{:.1}\" fill=\"{}\"{weight}{opacity} xml:space=\"preserve\" textLength=\"{run:.1}\" lengthAdjust=\"spacingAndGlyphs\">{}</text>\n",
                    top + CELL_H * 0.78,
                    hex(fg),
                    escape(&text)
                ));
            }
            x = end;
        }
    }
    out.push_str("</svg>\n");
    out
}

/// The header line of an asciicast v2 recording.
pub fn cast_header(width: u16, height: u16, title: &str) -> String {
    let header = serde_json::json!({
        "version": 2,
        "width": width,
        "height": height,
        "title": title,
        "env": {"TERM": "xterm-256color"},
    });
    format!("{header}\n")
}

/// One asciicast v2 output event: the whole screen, drawn from the top left, at `seconds`.
pub fn cast_frame(buffer: &Buffer, seconds: f64) -> String {
    let screen = format!("\x1b[H{}", ansi(buffer, "\r\n"));
    let screen = screen.strip_suffix("\r\n").unwrap_or(&screen).to_string();
    format!("{}\n", serde_json::json!([seconds, "o", screen]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::style::Style;

    fn buffer() -> Buffer {
        let mut b = Buffer::empty(ratatui::layout::Rect::new(0, 0, 6, 2));
        b.set_string(0, 0, "a<b", Style::new().fg(Color::Red));
        b.set_string(0, 1, "ok", Style::new().bg(Color::Rgb(1, 2, 3)));
        b
    }

    #[test]
    fn a_screen_reads_as_text_ansi_and_svg() {
        let b = buffer();
        assert_eq!(text(&b), "a<b\nok\n");
        let a = ansi(&b, "\n");
        assert!(a.starts_with("\x1b[0;31ma<b\x1b[0m   \x1b[0m\n"), "{a:?}");
        assert!(a.contains("\x1b[0;48;2;1;2;3mok"), "{a:?}");
        let s = svg(&b, Page::DARK);
        assert!(
            s.contains(">a&lt;b</text>") && s.contains("fill=\"#cd0000\""),
            "{s}"
        );
        assert!(s.contains("fill=\"#010203\""), "{s}");
        assert!(s.contains("fill=\"#18181b\""), "a dark page: {s}");
        let light = svg(&b, Page::LIGHT);
        assert!(light.contains("fill=\"#fafafa\""), "a light page: {light}");
        let frame = cast_frame(&b, 1.5);
        let v: serde_json::Value = serde_json::from_str(&frame).expect("json");
        assert_eq!(v[0], 1.5);
        assert!(v[2].as_str().expect("text").starts_with("\x1b[H"));
        assert_eq!(indexed(196), (255, 0, 0));
        assert_eq!(indexed(232), (8, 8, 8));
    }

    #[test]
    fn braille_cells_are_drawn_as_their_dots() {
        assert_eq!(braille_dots("\u{2800}"), Some(vec![]));
        assert_eq!(braille_dots("⣀"), Some(vec![(0, 3), (1, 3)]));
        assert_eq!(braille_dots("⠁"), Some(vec![(0, 0)]));
        assert_eq!(braille_dots("a"), None);
        let mut b = Buffer::empty(ratatui::layout::Rect::new(0, 0, 3, 1));
        b.set_string(0, 0, "x⣿y", Style::new());
        let s = svg(&b, Page::DARK);
        assert_eq!(s.matches("<circle").count(), 8, "{s}");
        assert!(s.contains(">x y</text>"), "the cell keeps its place: {s}");
    }
}
