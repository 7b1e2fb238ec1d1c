//! Styles. Panes ask the theme for a style by meaning (a shard, the hot chunk, a zone) instead
//! of naming colours; the colours come from a [`Palette`]. Every colour cue also has a glyph or
//! a modifier, so `NO_COLOR` loses nothing that matters.

use ratatui::style::{Color, Modifier, Style};

pub use super::palette::Palette;

/// The styles of one run: a palette, and whether colours are on at all.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Theme {
    pub colors: bool,
    pub palette: Palette,
}

impl Default for Theme {
    fn default() -> Self {
        Self::new(true)
    }
}

impl Theme {
    /// The dark theme, with colours on or off.
    pub fn new(colors: bool) -> Self {
        Self {
            colors,
            palette: Palette::DARK,
        }
    }

    fn fg(self, c: Color) -> Style {
        if self.colors {
            Style::new().fg(c)
        } else {
            Style::new()
        }
    }

    /// A shard's one-character name in the strip and the shard list: 0–9, a–z, then repeats.
    pub fn shard_glyph(i: usize) -> char {
        let glyphs = b"0123456789abcdefghijklmnopqrstuvwxyz";
        char::from(glyphs[i % glyphs.len()])
    }

    fn shard_color(self, i: usize) -> Color {
        self.palette.shards[i % self.palette.shards.len()]
    }

    /// A strip cell owned by shard `i`.
    pub fn shard_cell(self, i: usize) -> Style {
        if self.colors {
            Style::new()
                .fg(self.palette.on_shard)
                .bg(self.shard_color(i))
        } else {
            Style::new()
        }
    }

    /// Text in shard `i`'s colour.
    pub fn shard(self, i: usize) -> Style {
        self.fg(self.shard_color(i))
    }

    /// The hot chunk, the hot shard: bold and marked with a glyph as well as coloured.
    pub fn hot(self) -> Style {
        self.fg(self.palette.hot).add_modifier(Modifier::BOLD)
    }

    /// The selected strip cell.
    pub fn selected(self) -> Style {
        Style::new().add_modifier(Modifier::REVERSED | Modifier::BOLD)
    }

    pub fn jumbo(self) -> Style {
        self.fg(self.palette.jumbo).add_modifier(Modifier::BOLD)
    }

    pub fn zone(self, i: usize) -> Style {
        self.fg(self.palette.zones[i % self.palette.zones.len()])
    }

    pub fn warn(self) -> Style {
        self.fg(self.palette.warn).add_modifier(Modifier::BOLD)
    }

    pub fn error(self) -> Style {
        self.fg(self.palette.error)
    }

    pub fn ok(self) -> Style {
        self.fg(self.palette.ok)
    }

    pub fn dim(self) -> Style {
        if self.colors {
            Style::new().fg(self.palette.dim)
        } else {
            Style::new().add_modifier(Modifier::DIM)
        }
    }

    pub fn title(self) -> Style {
        Style::new().add_modifier(Modifier::BOLD)
    }

    pub fn key(self) -> Style {
        self.fg(self.palette.key).add_modifier(Modifier::BOLD)
    }

    /// A pane's border: the focused pane's stands out.
    pub fn border(self, focused: bool) -> Style {
        if focused {
            self.fg(self.palette.focus).add_modifier(Modifier::BOLD)
        } else {
            self.dim()
        }
    }

    pub fn bar(self, which: Bar) -> Style {
        self.fg(match which {
            Bar::Chunks => self.palette.chunks_bar,
            Bar::Data => self.palette.data_bar,
            Bar::Writes => self.palette.writes_bar,
        })
    }
}

/// The bars of the shard list.
#[derive(Clone, Copy, Debug)]
pub enum Bar {
    Chunks,
    Data,
    Writes,
}

/// A horizontal bar of `width` cells filled to `fraction`, with eighth-cell precision.
pub fn bar(fraction: f64, width: usize) -> String {
    const PARTS: [char; 8] = [' ', '▏', '▎', '▍', '▌', '▋', '▊', '▉'];
    let eighths = (fraction.clamp(0.0, 1.0) * (width * 8) as f64).round() as usize;
    let mut s: String = "█".repeat(eighths / 8);
    if eighths / 8 < width {
        s.push(PARTS[eighths % 8]);
    }
    while s.chars().count() < width {
        s.push(' ');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::bar;

    #[test]
    fn bars_fill_in_eighths() {
        assert_eq!(bar(0.0, 4), "    ");
        assert_eq!(bar(1.0, 4), "████");
        assert_eq!(bar(0.5, 4), "██  ");
        assert_eq!(bar(0.5 + 1.0 / 32.0, 4), "██▏ ");
    }
}
