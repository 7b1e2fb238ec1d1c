//! Bytes as text written through the output sanitizer (`units::printable`), cut into two writes
//! at the first byte's position: nothing may panic, no control byte but newline and tab and no
//! C1 character comes out, and valid UTF-8 comes out as the string sanitizer gives it.
#![no_main]

use std::io::Write;

use libfuzzer_sys::fuzz_target;
use shardtop::units::printable::{Printable, printable};

fuzz_target!(|data: &[u8]| {
    let cut = usize::from(data.first().copied().unwrap_or(0)).min(data.len());
    let mut out = Vec::new();
    {
        let mut w = Printable::new(&mut out);
        w.write_all(&data[..cut]).expect("written");
        w.write_all(&data[cut..]).expect("written");
        w.flush().expect("flushed");
    }
    for c in String::from_utf8_lossy(&out).chars() {
        assert!(
            !(c.is_control() && c != '\n' && c != '\t') || c == '\u{fffd}',
            "{c:?} came out"
        );
        assert!(!('\u{80}'..='\u{9f}').contains(&c), "{c:?} came out");
    }
    if let Ok(s) = std::str::from_utf8(data) {
        assert_eq!(String::from_utf8(out).expect("UTF-8"), printable(s));
    }
});
