//! What the runtime tells the terminal besides the frame, as operating system commands (OSC):
//! OSC 52 sets the clipboard (`y`), OSC 9;4 shows progress in the tab (ConEmu's sequence:
//! `ESC ] 9 ; 4 ; STATE [; PERCENT] BEL`, state 0 clears, 1 sets a percent, 3 is "under way,
//! share unknown"). The bytes, and a writer that sends progress only when it changes and clears
//! the progress it set when the TUI ends — on every path: a quit, an error, a signal, a panic.
//!
//! Owns only these sequences; the UI says what to send (`Effects::clipboard`,
//! `App::tab_progress`), the terminal commands say where.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::ui::tab_progress::TabProgress;

/// OSC 52: put `text` on the clipboard (`c`), base64 encoded, ended by BEL.
pub fn clipboard(text: &str) -> Vec<u8> {
    let mut out = b"\x1b]52;c;".to_vec();
    out.extend(base64(text.as_bytes()).bytes());
    out.push(0x07);
    out
}

/// OSC 9;4: the tab's progress.
pub fn progress(p: TabProgress) -> Vec<u8> {
    match p {
        TabProgress::Off => b"\x1b]9;4;0\x07".to_vec(),
        TabProgress::Percent(n) => format!("\x1b]9;4;1;{}\x07", n.min(100)).into_bytes(),
        TabProgress::Unknown => b"\x1b]9;4;3\x07".to_vec(),
    }
}

/// Standard base64 (RFC 4648 §4) with padding.
pub fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[(n >> (18 - 6 * i)) as usize & 63]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Whether this process left progress on the terminal's tab (what a panic hook or a signal
/// path must clear).
static SHOWN: AtomicBool = AtomicBool::new(false);

/// Where the sequences go, and the progress last sent.
pub struct Osc<W: Write> {
    out: W,
    shown: TabProgress,
}

impl<W: Write> Osc<W> {
    pub fn new(out: W) -> Self {
        Self {
            out,
            shown: TabProgress::Off,
        }
    }

    /// Sends text to the clipboard.
    pub fn copy(&mut self, text: &str) -> std::io::Result<()> {
        self.out.write_all(&clipboard(text))?;
        self.out.flush()
    }

    /// Sends the progress if it changed.
    pub fn show(&mut self, p: TabProgress) -> std::io::Result<()> {
        if p == self.shown {
            return Ok(());
        }
        self.out.write_all(&progress(p))?;
        self.out.flush()?;
        self.shown = p;
        SHOWN.store(p != TabProgress::Off, Ordering::Relaxed);
        Ok(())
    }

    /// Clears the progress this writer set (the TUI ends).
    pub fn finish(&mut self) -> std::io::Result<()> {
        self.show(TabProgress::Off)
    }

    /// The bytes written so far (tests read a `Vec<u8>` writer).
    pub fn output(&self) -> &W {
        &self.out
    }
}

/// Clears the tab's progress if this process left some there: for the paths that end the TUI
/// without the writer (a panic, a signal).
pub fn clear_left_progress() {
    if SHOWN.swap(false, Ordering::Relaxed) {
        let mut out = std::io::stdout();
        let _ = out.write_all(&progress(TabProgress::Off));
        let _ = out.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_rfc_4648_test_vectors() {
        // RFC 4648 §10.
        let vectors = [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ];
        for (plain, encoded) in vectors {
            assert_eq!(base64(plain.as_bytes()), encoded, "{plain:?}");
        }
        assert_eq!(base64(&[0xfb, 0xff]), "+/8=");
    }

    #[test]
    fn clipboard_and_progress_bytes_are_the_sequences_terminals_read() {
        assert_eq!(
            clipboard("{min: {_id: 5}, max: {_id: 10}}"),
            b"\x1b]52;c;e21pbjoge19pZDogNX0sIG1heDoge19pZDogMTB9fQ==\x07".to_vec()
        );
        assert_eq!(
            progress(TabProgress::Percent(42)),
            b"\x1b]9;4;1;42\x07".to_vec()
        );
        assert_eq!(progress(TabProgress::Off), b"\x1b]9;4;0\x07".to_vec());
        assert_eq!(progress(TabProgress::Unknown), b"\x1b]9;4;3\x07".to_vec());
    }

    #[test]
    fn progress_is_sent_when_it_changes_and_cleared_at_the_end() {
        let mut osc = Osc::new(Vec::new());
        osc.show(TabProgress::Off).expect("vec");
        assert!(osc.output().is_empty(), "nothing shown, nothing to clear");
        osc.show(TabProgress::Percent(10)).expect("vec");
        osc.show(TabProgress::Percent(10)).expect("vec");
        osc.show(TabProgress::Percent(11)).expect("vec");
        osc.finish().expect("vec");
        osc.finish().expect("vec");
        assert_eq!(
            String::from_utf8_lossy(osc.output()),
            "\x1b]9;4;1;10\x07\x1b]9;4;1;11\x07\x1b]9;4;0\x07"
        );
    }
}
