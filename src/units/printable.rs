//! The one sanitizer of every output that is not the TUI (text summaries, `explain`, `whatif`,
//! `report`, JSON, warnings and errors on stderr): a control character — C0 but newline and tab,
//! DEL, and C1 (U+0080–U+009F, the 8-bit CSI/OSC/ST) — that a cluster's names or a file brought
//! is written as its escape `\u001b`, never sent, so no escape sequence (window title, OSC 52
//! clipboard, clearing the screen) reaches the terminal. `\u001b` is also JSON's own escape, so a
//! JSON output stays valid JSON.
//!
//! Owns: the escaping, as a writer and for one string. May not touch: what is printed.

use std::borrow::Cow;
use std::io::{self, Write};

/// Whether `c` is shown escaped.
fn escaped(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t') || ('\u{80}'..='\u{9f}').contains(&c)
}

/// `s` with every control character escaped (see the module doc).
pub fn printable(s: &str) -> Cow<'_, str> {
    if !s.chars().any(escaped) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if escaped(c) {
            out.push_str(&format!("\\u{:04x}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// A writer that escapes every control character written through it (bytes of UTF-8 text; a C1
/// character split across two writes is still found).
#[derive(Debug)]
pub struct Printable<W: Write> {
    inner: W,
    /// A 0xC2 byte written last: the first byte of a C1 character or of another.
    pending: bool,
}

impl<W: Write> Printable<W> {
    pub fn new(inner: W) -> Self {
        Self {
            inner,
            pending: false,
        }
    }
}

impl<W: Write> Write for Printable<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut out = Vec::with_capacity(buf.len());
        for &b in buf {
            if self.pending {
                self.pending = false;
                if (0x80..=0x9f).contains(&b) {
                    out.extend_from_slice(format!("\\u{b:04x}").as_bytes());
                    continue;
                }
                out.push(0xc2);
            }
            match b {
                0xc2 => self.pending = true,
                b'\n' | b'\t' => out.push(b),
                0..0x20 | 0x7f => out.extend_from_slice(format!("\\u{b:04x}").as_bytes()),
                _ => out.push(b),
            }
        }
        self.inner.write_all(&out)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.pending {
            self.pending = false;
            self.inner.write_all(&[0xc2])?;
        }
        self.inner.flush()
    }
}

impl<W: Write> Drop for Printable<W> {
    fn drop(&mut self) {
        let _ = self.flush();
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use proptest::prelude::*;

    const HOSTILE: &str =
        "a\u{1b}]0;title\u{7}b\u{1b}[2Jc\u{9b}31md\u{9d}52;c;x\u{9c}\r\u{7f}é☃\n\t";

    #[test]
    fn escape_sequences_are_shown_not_sent() {
        let want = "a\\u001b]0;title\\u0007b\\u001b[2Jc\\u009b31md\\u009d52;c;x\\u009c\\u000d\\u007fé☃\n\t";
        assert_eq!(printable(HOSTILE), want);
        let mut w = Printable::new(Vec::new());
        // Byte by byte: a C1 character's two bytes arrive apart.
        for b in HOSTILE.as_bytes() {
            w.write_all(&[*b]).unwrap();
        }
        w.flush().unwrap();
        assert_eq!(String::from_utf8(w.inner.clone()).unwrap(), want);
        assert_eq!(printable("plain → text"), "plain → text");
    }

    proptest! {
        /// Whatever the text and however it is cut into writes, no control byte but newline and
        /// tab comes out, and the writer and the string agree.
        #[test]
        fn nothing_controlling_comes_out(s in "\\PC*|[\\x00-\\x20\u{80}-\u{a0}a-zé]*", cut in 0usize..64) {
            let mut w = Printable::new(Vec::new());
            let bytes = s.as_bytes();
            let cut = cut.min(bytes.len());
            w.write_all(&bytes[..cut]).unwrap();
            w.write_all(&bytes[cut..]).unwrap();
            w.flush().unwrap();
            let out = String::from_utf8(w.inner.clone()).unwrap();
            prop_assert!(!out.chars().any(escaped), "{:?}", out);
            prop_assert_eq!(out, printable(&s).into_owned());
        }
    }
}
