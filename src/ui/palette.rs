//! The colours of a theme, by meaning, and the built-in themes: `dark` (the default), `light`
//! (for light terminal backgrounds), `high-contrast` and `okabe-ito` (every cue but the zone bands
//! from Okabe and Ito's colour-blind-safe palette, <https://jfly.uni-koeln.de/color/>). Zone bands
//! have colours of their own, apart from every shard colour; every shard colour is at least 3:1
//! against its theme's page (tested). A custom theme starts from one of these and changes some
//! colours by name ([`Palette::set`]).

use std::str::FromStr;

use ratatui::style::Color;

/// Okabe–Ito: orange, sky blue, bluish green, yellow, blue, vermillion, reddish purple, grey.
const OKABE_ITO: [Color; 8] = [
    Color::Rgb(230, 159, 0),
    Color::Rgb(86, 180, 233),
    Color::Rgb(0, 158, 115),
    Color::Rgb(240, 228, 66),
    Color::Rgb(0, 114, 178),
    Color::Rgb(213, 94, 0),
    Color::Rgb(204, 121, 167),
    Color::Rgb(160, 160, 160),
];

/// Zone bands on a dark background: white and pastels, apart from every shard colour (a band
/// must not read as a shard's).
const PASTEL_ZONES: [Color; 4] = [
    Color::Rgb(255, 255, 255),
    Color::Rgb(190, 170, 255),
    Color::Rgb(150, 230, 230),
    Color::Rgb(255, 200, 150),
];

/// The colours a theme gives each meaning.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Palette {
    /// Shard colours, in shard order (repeating).
    pub shards: [Color; 8],
    /// Zone bands, in zone order (repeating).
    pub zones: [Color; 4],
    /// Text on a shard-coloured strip cell.
    pub on_shard: Color,
    pub hot: Color,
    pub jumbo: Color,
    pub warn: Color,
    pub error: Color,
    pub ok: Color,
    pub dim: Color,
    pub key: Color,
    /// The focused pane's border.
    pub focus: Color,
    pub chunks_bar: Color,
    pub data_bar: Color,
    pub writes_bar: Color,
    /// Drawn for a light terminal background: exports draw it on a light page.
    pub light: bool,
}

/// The names a configuration file gives the colours, in the template's order.
pub const COLOR_NAMES: &[&str] = &[
    "shards",
    "zones",
    "on-shard",
    "hot",
    "jumbo",
    "warn",
    "error",
    "ok",
    "dim",
    "key",
    "focus",
    "chunks-bar",
    "data-bar",
    "writes-bar",
];

impl Palette {
    pub const DARK: Self = Self {
        shards: OKABE_ITO,
        zones: PASTEL_ZONES,
        on_shard: Color::Black,
        hot: Color::Red,
        jumbo: Color::Magenta,
        warn: Color::Yellow,
        error: Color::Red,
        ok: Color::Green,
        dim: Color::DarkGray,
        key: Color::Cyan,
        focus: Color::Cyan,
        chunks_bar: Color::Rgb(86, 180, 233),
        data_bar: Color::Rgb(0, 158, 115),
        writes_bar: Color::Rgb(213, 94, 0),
        light: false,
    };

    /// Darker colours that read on a light background: Okabe–Ito's hues darkened until each
    /// shard's name is at least 3:1 against the page (and white on its strip cell the same).
    pub const LIGHT: Self = Self {
        shards: [
            Color::Rgb(175, 105, 0),
            Color::Rgb(0, 110, 170),
            Color::Rgb(0, 125, 90),
            Color::Rgb(115, 115, 0),
            Color::Rgb(40, 40, 160),
            Color::Rgb(200, 50, 0),
            Color::Rgb(160, 60, 120),
            Color::Rgb(100, 100, 100),
        ],
        zones: [
            Color::Rgb(30, 30, 30),
            Color::Rgb(120, 50, 210),
            Color::Rgb(150, 0, 40),
            Color::Rgb(95, 60, 20),
        ],
        on_shard: Color::White,
        hot: Color::Rgb(190, 0, 0),
        jumbo: Color::Rgb(140, 0, 140),
        warn: Color::Rgb(170, 90, 0),
        error: Color::Rgb(190, 0, 0),
        ok: Color::Rgb(0, 120, 60),
        dim: Color::Rgb(110, 110, 110),
        key: Color::Rgb(0, 80, 170),
        focus: Color::Rgb(0, 80, 170),
        chunks_bar: Color::Rgb(0, 114, 178),
        data_bar: Color::Rgb(0, 120, 85),
        writes_bar: Color::Rgb(190, 75, 0),
        light: true,
    };

    /// The sixteen basic colours at their brightest, for low-vision readers and projectors.
    pub const HIGH_CONTRAST: Self = Self {
        shards: [
            Color::LightYellow,
            Color::LightCyan,
            Color::LightGreen,
            Color::LightMagenta,
            Color::White,
            Color::LightRed,
            Color::LightBlue,
            Color::Gray,
        ],
        zones: [Color::Cyan, Color::Yellow, Color::Magenta, Color::DarkGray],
        on_shard: Color::Black,
        hot: Color::LightRed,
        jumbo: Color::LightMagenta,
        warn: Color::LightYellow,
        error: Color::LightRed,
        ok: Color::LightGreen,
        dim: Color::Gray,
        key: Color::LightCyan,
        focus: Color::White,
        chunks_bar: Color::LightCyan,
        data_bar: Color::LightGreen,
        writes_bar: Color::LightYellow,
        light: false,
    };

    /// Every cue from the Okabe–Ito palette: no red against green anywhere.
    pub const OKABE_ITO: Self = Self {
        shards: OKABE_ITO,
        zones: PASTEL_ZONES,
        on_shard: Color::Black,
        hot: Color::Rgb(213, 94, 0),
        jumbo: Color::Rgb(204, 121, 167),
        warn: Color::Rgb(230, 159, 0),
        error: Color::Rgb(213, 94, 0),
        ok: Color::Rgb(0, 158, 115),
        dim: Color::Rgb(140, 140, 140),
        key: Color::Rgb(86, 180, 233),
        focus: Color::Rgb(86, 180, 233),
        chunks_bar: Color::Rgb(86, 180, 233),
        data_bar: Color::Rgb(0, 158, 115),
        writes_bar: Color::Rgb(213, 94, 0),
        light: false,
    };

    /// The built-in themes by name.
    pub const BUILT_IN: &[(&str, Self)] = &[
        ("dark", Self::DARK),
        ("light", Self::LIGHT),
        ("high-contrast", Self::HIGH_CONTRAST),
        ("okabe-ito", Self::OKABE_ITO),
    ];

    /// A built-in theme.
    pub fn built_in(name: &str) -> Option<Self> {
        Self::BUILT_IN
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, p)| *p)
    }

    /// Sets the colour called `name` ([`COLOR_NAMES`]) from its text: a name (`red`,
    /// `light-blue`), `#rrggbb`, or a 256-colour index; `shards` and `zones` take a list.
    pub fn set(&mut self, name: &str, value: &ColorValue) -> Result<(), String> {
        match (name, value) {
            ("shards", ColorValue::List(list)) => fill(&mut self.shards, list),
            ("zones", ColorValue::List(list)) => fill(&mut self.zones, list),
            ("shards" | "zones", ColorValue::One(_)) => {
                Err(format!("`{name}` takes a list of colours"))
            }
            (_, ColorValue::One(text)) => {
                let slot = self.slot(name).ok_or_else(|| unknown_color(name))?;
                *slot = color(text)?;
                Ok(())
            }
            (_, ColorValue::List(_)) if self.slot(name).is_some() => {
                Err(format!("`{name}` takes one colour, not a list"))
            }
            _ => Err(unknown_color(name)),
        }
    }

    /// The colour called `name`, other than `shards` and `zones`.
    pub fn get(&self, name: &str) -> Option<Color> {
        let mut copy = *self;
        copy.slot(name).map(|c| *c)
    }

    fn slot(&mut self, name: &str) -> Option<&mut Color> {
        Some(match name {
            "on-shard" => &mut self.on_shard,
            "hot" => &mut self.hot,
            "jumbo" => &mut self.jumbo,
            "warn" => &mut self.warn,
            "error" => &mut self.error,
            "ok" => &mut self.ok,
            "dim" => &mut self.dim,
            "key" => &mut self.key,
            "focus" => &mut self.focus,
            "chunks-bar" => &mut self.chunks_bar,
            "data-bar" => &mut self.data_bar,
            "writes-bar" => &mut self.writes_bar,
            _ => return None,
        })
    }
}

/// A colour setting as written: one colour, or a list (`shards`, `zones`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ColorValue {
    One(String),
    List(Vec<String>),
}

fn unknown_color(name: &str) -> String {
    format!(
        "unknown colour `{name}`; the colours are {}, and `base`",
        COLOR_NAMES.join(", ")
    )
}

/// Replaces the first colours of `slots` with `list` (a shorter list repeats).
fn fill<const N: usize>(slots: &mut [Color; N], list: &[String]) -> Result<(), String> {
    if list.is_empty() || list.len() > N {
        return Err(format!("give 1 to {N} colours"));
    }
    let colors = list
        .iter()
        .map(|t| color(t))
        .collect::<Result<Vec<_>, _>>()?;
    for (i, slot) in slots.iter_mut().enumerate() {
        *slot = colors[i % colors.len()];
    }
    Ok(())
}

/// One colour from its text.
pub fn color(text: &str) -> Result<Color, String> {
    Color::from_str(text).map_err(|_| {
        format!(
            "{text:?} is not a colour: give a name (red, light-blue, dark-gray…), #rrggbb or 0–255"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::export::{Page, rgb};

    /// WCAG 2's relative luminance of an sRGB colour.
    fn luminance((r, g, b): (u8, u8, u8)) -> f64 {
        let lin = |c: u8| {
            let c = f64::from(c) / 255.0;
            if c <= 0.039_28 {
                c / 12.92
            } else {
                ((c + 0.055) / 1.055).powf(2.4)
            }
        };
        0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b)
    }

    /// WCAG 2's contrast ratio of two colours (1 to 21).
    fn contrast(a: (u8, u8, u8), b: (u8, u8, u8)) -> f64 {
        let (x, y) = (luminance(a), luminance(b));
        (x.max(y) + 0.05) / (x.min(y) + 0.05)
    }

    fn distance(a: (u8, u8, u8), b: (u8, u8, u8)) -> f64 {
        let d = |p: u8, q: u8| (f64::from(p) - f64::from(q)).powi(2);
        (d(a.0, b.0) + d(a.1, b.1) + d(a.2, b.2)).sqrt()
    }

    #[test]
    fn every_shard_name_reads_on_its_theme_s_page_and_every_glyph_on_its_cell() {
        for (name, p) in Palette::BUILT_IN {
            let page = if p.light { Page::LIGHT } else { Page::DARK };
            for &shard in &p.shards {
                let c = rgb(shard, page.fg);
                let ratio = contrast(c, page.bg);
                assert!(
                    ratio >= 3.0,
                    "{name}: {shard:?} is {ratio:.2}:1 on its page"
                );
                let on = contrast(rgb(p.on_shard, page.fg), c);
                assert!(on >= 3.0, "{name}: the glyph on {shard:?} is {on:.2}:1");
            }
        }
        // The light theme's old sky blue on white was 2.2:1.
        assert!(contrast((86, 180, 233), Page::LIGHT.bg) < 3.0);
    }

    #[test]
    fn zone_bands_are_apart_from_every_shard_colour() {
        for (name, p) in Palette::BUILT_IN {
            let page = if p.light { Page::LIGHT } else { Page::DARK };
            for &zone in &p.zones {
                for &shard in &p.shards {
                    let d = distance(rgb(zone, page.fg), rgb(shard, page.fg));
                    assert!(
                        d >= 60.0,
                        "{name}: zone {zone:?} is near shard {shard:?} ({d:.0})"
                    );
                }
                let ratio = contrast(rgb(zone, page.fg), page.bg);
                assert!(
                    ratio >= 3.0,
                    "{name}: zone {zone:?} is {ratio:.2}:1 on its page"
                );
            }
        }
    }

    #[test]
    fn colours_are_set_by_name_and_checked() {
        let mut p = Palette::DARK;
        p.set("hot", &ColorValue::One("#ff0000".into()))
            .expect("hex colour");
        assert_eq!(p.hot, Color::Rgb(255, 0, 0));
        p.set(
            "shards",
            &ColorValue::List(vec!["red".into(), "blue".into()]),
        )
        .expect("list");
        assert_eq!(p.shards[2], Color::Red);
        assert!(p.set("hot", &ColorValue::One("nope".into())).is_err());
        assert!(p.set("hott", &ColorValue::One("red".into())).is_err());
        assert!(p.set("shards", &ColorValue::One("red".into())).is_err());
        assert!(p.set("hot", &ColorValue::List(vec![])).is_err());
        assert!(Palette::built_in("okabe-ito").is_some());
        assert!(Palette::built_in("solarized").is_none());
    }
}
