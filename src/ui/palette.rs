//! The colours of a theme, by meaning, and the built-in themes: `dark` (the default), `light`
//! (for light terminal backgrounds), `high-contrast` and `okabe-ito` (every cue from Okabe and
//! Ito's colour-blind-safe palette, <https://jfly.uni-koeln.de/color/>). A custom theme starts
//! from one of these and changes some colours by name ([`Palette::set`]).

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

const OKABE_ITO_ZONES: [Color; 4] = [
    Color::Rgb(0, 114, 178),
    Color::Rgb(213, 94, 0),
    Color::Rgb(0, 158, 115),
    Color::Rgb(204, 121, 167),
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
        zones: OKABE_ITO_ZONES,
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

    /// Darker colours that read on a light background.
    pub const LIGHT: Self = Self {
        shards: {
            let mut s = OKABE_ITO;
            s[7] = Color::Rgb(120, 120, 120);
            s
        },
        zones: [
            Color::Rgb(0, 90, 150),
            Color::Rgb(170, 70, 0),
            Color::Rgb(0, 120, 85),
            Color::Rgb(160, 70, 120),
        ],
        on_shard: Color::Black,
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
        zones: [
            Color::LightCyan,
            Color::LightYellow,
            Color::LightGreen,
            Color::LightMagenta,
        ],
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
        zones: OKABE_ITO_ZONES,
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
