//! Bytes as a configuration file: `config::parse` either gives settings or an error naming the
//! file — never a panic — and an error always names the file. The same bytes as one key of a
//! binding and as `serve --user-roles` must not panic either.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Err(e) = shardtop::config::parse(text, "fuzz.toml") {
        assert!(e.0.starts_with("fuzz.toml"), "{e}");
    }
    let _ = text.parse::<shardtop::ui::keys::Key>();
    let _ = shardtop::serve::access::Access::parse(text);
});
