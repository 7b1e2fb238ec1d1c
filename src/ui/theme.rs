//! Colours and styles. Panes ask the theme for a style by meaning (a shard, the hot chunk, a
//! zone) instead of naming colours. Shard colours come from the Okabe–Ito palette, which stays
//! distinguishable for colour-blind readers; every colour cue also has a glyph or a modifier, so
//! `NO_COLOR` loses nothing that matters.

use ratatui::style::{Color, Modifier, Style};

const SHARDS: [Color; 8] = [
    Color::Rgb(230, 159, 0),
    Color::Rgb(86, 180, 233),
    Color::Rgb(0, 158, 115),
    Color::Rgb(240, 228, 66),
    Color::Rgb(0, 114, 178),
    Color::Rgb(213, 94, 0),
    Color::Rgb(204, 121, 167),
    Color::Rgb(160, 160, 160),
];

const ZONES: [Color; 4] = [
    Color::Rgb(0, 114, 178),
    Color::Rgb(213, 94, 0),
    Color::Rgb(0, 158, 115),
    Color::Rgb(204, 121, 167),
];

/// The styles of one run (colours on or off).
#[derive(Clone, Copy, Debug)]
pub struct Theme {
    pub colors: bool,
}

impl Theme {
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

    /// A strip cell owned by shard `i`.
    pub fn shard_cell(self, i: usize) -> Style {
        if self.colors {
            Style::new().fg(Color::Black).bg(SHARDS[i % SHARDS.len()])
        } else {
            Style::new()
        }
    }

    /// Text in shard `i`'s colour.
    pub fn shard(self, i: usize) -> Style {
        self.fg(SHARDS[i % SHARDS.len()])
    }

    /// The hot chunk, the hot shard: bold and marked with a glyph as well as red.
    pub fn hot(self) -> Style {
        self.fg(Color::Red).add_modifier(Modifier::BOLD)
    }

    /// The selected strip cell.
    pub fn selected(self) -> Style {
        Style::new().add_modifier(Modifier::REVERSED | Modifier::BOLD)
    }

    pub fn jumbo(self) -> Style {
        self.fg(Color::Magenta).add_modifier(Modifier::BOLD)
    }

    pub fn zone(self, i: usize) -> Style {
        self.fg(ZONES[i % ZONES.len()])
    }

    pub fn warn(self) -> Style {
        self.fg(Color::Yellow).add_modifier(Modifier::BOLD)
    }

    pub fn error(self) -> Style {
        self.fg(Color::Red)
    }

    pub fn ok(self) -> Style {
        self.fg(Color::Green)
    }

    pub fn dim(self) -> Style {
        if self.colors {
            Style::new().fg(Color::DarkGray)
        } else {
            Style::new().add_modifier(Modifier::DIM)
        }
    }

    pub fn title(self) -> Style {
        Style::new().add_modifier(Modifier::BOLD)
    }

    pub fn key(self) -> Style {
        self.fg(Color::Cyan).add_modifier(Modifier::BOLD)
    }

    /// A pane's border: the focused pane's stands out.
    pub fn border(self, focused: bool) -> Style {
        if focused {
            self.fg(Color::Cyan).add_modifier(Modifier::BOLD)
        } else {
            self.dim()
        }
    }

    pub fn bar(self, which: Bar) -> Style {
        self.fg(match which {
            Bar::Chunks => Color::Rgb(86, 180, 233),
            Bar::Data => Color::Rgb(0, 158, 115),
            Bar::Writes => Color::Rgb(213, 94, 0),
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
