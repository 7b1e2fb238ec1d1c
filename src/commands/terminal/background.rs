//! The terminal's background, light or dark, for the theme when none is set (neither `--theme`
//! nor the configuration's `theme`). Asked once, before the TUI starts, with OSC 11
//! (`ESC ] 11 ; ? BEL`; a terminal that knows it answers `ESC ] 11 ; rgb:RRRR/GGGG/BBBB` ended by
//! BEL or ST) followed by a primary device attributes request (`ESC [ c`), which terminals
//! answer: its answer ends the wait, so a terminal without OSC 11 costs no timeout. At most
//! 100 ms in all. No answer: `COLORFGBG`'s background (rxvt's `FG;BG`, set by some terminals),
//! else dark. Light means the background's relative luminance (WCAG 2's) is above 0.179, where
//! black text contrasts with it more than white text does.
//!
//! Part of the terminal toolbox (`terminal`): reads and writes only the terminal, before the TUI
//! owns it.

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

use crate::ui::palette::Palette;

/// The longest wait for the terminal's answers.
const WAIT: Duration = Duration::from_millis(100);

/// The luminance above which a background is light (see the module's doc).
const LIGHT_ABOVE: f64 = 0.179;

/// The built-in theme for the terminal's background: `light` on a light one, else `dark`.
pub fn theme_for_background() -> Palette {
    let light = ask_terminal()
        .and_then(|reply| parse_osc11(&reply))
        .map(is_light)
        .or_else(|| std::env::var("COLORFGBG").ok().and_then(|v| colorfgbg(&v)));
    if light == Some(true) {
        Palette::LIGHT
    } else {
        Palette::DARK
    }
}

/// Sends the questions and reads the answers (raw mode, reads of at most 0.1 s each, within
/// [`WAIT`]); `None` when standard input or output is not a terminal.
fn ask_terminal() -> Option<Vec<u8>> {
    use rustix::termios::{OptionalActions, SpecialCodeIndex, tcgetattr, tcsetattr};
    let stdin = std::io::stdin();
    if !stdin.is_terminal() || !std::io::stdout().is_terminal() {
        return None;
    }
    let saved = tcgetattr(&stdin).ok()?;
    let mut raw = saved.clone();
    raw.make_raw();
    raw.special_codes[SpecialCodeIndex::VMIN] = 0;
    raw.special_codes[SpecialCodeIndex::VTIME] = 1;
    tcsetattr(&stdin, OptionalActions::Now, &raw).ok()?;
    let mut reply = Vec::new();
    let mut out = std::io::stdout();
    if out
        .write_all(b"\x1b]11;?\x07\x1b[c")
        .and_then(|()| out.flush())
        .is_ok()
    {
        let deadline = Instant::now() + WAIT;
        let mut buf = [0u8; 256];
        while Instant::now() < deadline && !device_attributes_seen(&reply) {
            match rustix::io::read(&stdin, &mut buf[..]) {
                Ok(n) => reply.extend_from_slice(&buf[..n]),
                Err(_) => break,
            }
        }
    }
    let _ = tcsetattr(&stdin, OptionalActions::Now, &saved);
    Some(reply)
}

/// Whether the answer to `ESC [ c` (`ESC [ ? … c`) has arrived: the terminal has answered all.
fn device_attributes_seen(reply: &[u8]) -> bool {
    reply
        .windows(3)
        .position(|w| w == b"\x1b[?")
        .is_some_and(|at| reply[at..].contains(&b'c'))
}

/// The background colour in an OSC 11 answer, each channel 0 to 1: `rgb:R/G/B` (or `rgba:`)
/// with one to four hex digits a channel, as X11's colour names have them.
pub fn parse_osc11(reply: &[u8]) -> Option<[f64; 3]> {
    let start = reply.windows(5).position(|w| w == b"\x1b]11;")? + 5;
    let rest = &reply[start..];
    let end = rest.iter().position(|&b| b == 0x07 || b == 0x1b)?;
    let text = std::str::from_utf8(&rest[..end]).ok()?;
    let channels = text
        .strip_prefix("rgb:")
        .or_else(|| text.strip_prefix("rgba:"))?;
    let mut out = [0.0; 3];
    let mut parts = channels.split('/');
    for slot in &mut out {
        let hex = parts.next()?;
        if hex.is_empty() || hex.len() > 4 {
            return None;
        }
        let value = u32::from_str_radix(hex, 16).ok()?;
        let max = (1u32 << (4 * hex.len())) - 1;
        *slot = f64::from(value) / f64::from(max);
    }
    Some(out)
}

/// Whether a background of these sRGB channels (0 to 1) is light: its WCAG 2 relative luminance
/// is above [`LIGHT_ABOVE`].
pub fn is_light(rgb: [f64; 3]) -> bool {
    let linear = |c: f64| {
        if c <= 0.040_45 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    };
    let l = 0.2126 * linear(rgb[0]) + 0.7152 * linear(rgb[1]) + 0.0722 * linear(rgb[2]);
    l > LIGHT_ABOVE
}

/// `COLORFGBG`'s background (its last field, an ANSI colour number): light for 7 and 9–15
/// (white, the bright colours), dark for 0–6 and 8; `None` for anything else.
pub fn colorfgbg(value: &str) -> Option<bool> {
    let bg: u8 = value.rsplit(';').next()?.trim().parse().ok()?;
    match bg {
        0..=6 | 8 => Some(false),
        7 | 9..=15 => Some(true),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Channels equal to within rounding.
    fn near(got: Option<[f64; 3]>, want: [f64; 3]) -> bool {
        got.is_some_and(|g| g.iter().zip(want).all(|(a, b)| (a - b).abs() < 1e-9))
    }

    #[test]
    fn answers_are_read_with_any_channel_width_and_either_terminator() {
        let white = parse_osc11(b"\x1b]11;rgb:ffff/ffff/ffff\x07\x1b[?62;22c");
        assert!(near(white, [1.0, 1.0, 1.0]), "{white:?}");
        let solarized = parse_osc11(b"\x1b]11;rgb:fdfd/f6f6/e3e3\x1b\\").expect("st");
        assert!((solarized[0] - 253.0 / 255.0).abs() < 1e-9);
        assert!(near(
            parse_osc11(b"\x1b]11;rgb:0/8/f\x07"),
            [0.0, 8.0 / 15.0, 1.0]
        ));
        assert!(near(
            parse_osc11(b"\x1b]11;rgba:0000/0000/0000/ffff\x07"),
            [0.0, 0.0, 0.0]
        ));
        for bad in [
            &b"\x1b[?62;22c"[..],
            b"\x1b]11;rgb:ffff/ffff\x07",
            b"\x1b]11;rgb:fffff/0/0\x07",
            b"\x1b]11;rgb:zz/00/00\x07",
            b"\x1b]11;#ffffff\x07",
            b"\x1b]11;rgb:ffff/ffff/ffff",
        ] {
            assert!(parse_osc11(bad).is_none(), "{bad:?}");
        }
    }

    #[test]
    fn light_means_black_text_contrasts_more_than_white() {
        assert!(is_light([1.0, 1.0, 1.0]));
        assert!(!is_light([0.0, 0.0, 0.0]));
        // Solarized light and dark backgrounds (#fdf6e3, #002b36).
        assert!(is_light([253.0 / 255.0, 246.0 / 255.0, 227.0 / 255.0]));
        assert!(!is_light([0.0, 43.0 / 255.0, 54.0 / 255.0]));
        // Around the line: #777777 (luminance 0.184) is light, #737373 (0.171) dark.
        assert!(is_light([119.0 / 255.0; 3]));
        assert!(!is_light([115.0 / 255.0; 3]));
    }

    #[test]
    fn colorfgbg_names_the_background_last() {
        assert_eq!(colorfgbg("15;0"), Some(false));
        assert_eq!(colorfgbg("0;15"), Some(true));
        assert_eq!(colorfgbg("0;default;7"), Some(true));
        assert_eq!(colorfgbg("7;8"), Some(false));
        assert_eq!(colorfgbg("15;default"), None);
        assert_eq!(colorfgbg(""), None);
        assert_eq!(colorfgbg("0;200"), None);
    }

    #[test]
    fn the_wait_ends_with_the_device_attributes_answer() {
        assert!(device_attributes_seen(b"\x1b]11;rgb:0/0/0\x07\x1b[?62;22c"));
        assert!(!device_attributes_seen(b"\x1b]11;rgb:0/0/0\x07\x1b[?62;2"));
        assert!(!device_attributes_seen(b""));
    }
}
