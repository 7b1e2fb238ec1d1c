//! The changes of a what-if in the CLI's own words (`--add-shards 2 --drain shard0001
//! --chunk-size 256 --window 23:00-06:00 --balancer on --reshard '{"k": 1}'`): their checks
//! (one implementation for `shardtop whatif`'s arguments and the TUI's what-if prompt), the
//! prompt's words read into them, and the short label a screen gives them.
//!
//! Owns: reading and checking the changes. May not touch: a simulator, I/O.

use super::Changes;
use crate::cluster::ActiveWindow;
use crate::model::KeyPattern;

/// The changes as given, before their checks (the CLI's arguments, or the prompt's words).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Asked {
    pub add_shards: u32,
    pub drain: Vec<String>,
    pub chunk_size: Option<u64>,
    pub window: Option<String>,
    pub balancer: Option<String>,
    pub reshard: Option<String>,
}

/// What the prompt says of the changes it takes.
pub const WORDS: &str = "--add-shards N, --drain SHARD, --chunk-size MB, --window HH:MM-HH:MM, --balancer on|off, --reshard KEY";

impl Asked {
    /// The checked changes; a bad one is said naming its option, as the CLI says it.
    pub fn changes(&self) -> Result<Changes, String> {
        let balancer = match self.balancer.as_deref() {
            None => None,
            Some("on") => Some(true),
            Some("off") => Some(false),
            Some(other) => return Err(format!("--balancer {other}: give on or off")),
        };
        room(0, self.add_shards)?;
        if let Some(mb) = self.chunk_size
            && !(1..=1024).contains(&mb)
        {
            return Err(format!("--chunk-size {mb}: the chunk size is 1 to 1024 MB"));
        }
        let reshard = (self.reshard.as_deref())
            .map(|k| KeyPattern::parse_json(k).map_err(|e| format!("--reshard {k}: {}", e.0)))
            .transpose()?;
        Ok(Changes {
            add_shards: self.add_shards,
            drain: self.drain.clone(),
            chunk_size_mb: self.chunk_size,
            window: self.window.as_deref().map(window).transpose()?,
            balancer,
            reshard,
        })
    }
}

/// Whether a cluster of `shards` shards (every shard it has held) has room for `add` more:
/// [`crate::cluster::MAX_SHARDS`] in all, the one bound of the scenario files, `whatif` and the
/// TUI's fork; the error names the option and the bound.
pub fn room(shards: usize, add: u32) -> Result<(), String> {
    let max = crate::cluster::MAX_SHARDS;
    if shards.saturating_add(add as usize) <= max {
        return Ok(());
    }
    let has = if shards == 0 {
        String::new()
    } else {
        format!(" (the cluster has {shards} already)")
    };
    Err(format!(
        "--add-shards {add}: too many shards{has}: {}",
        crate::cluster::max_shards_text()
    ))
}

/// `HH:MM-HH:MM`, as the balancer document's `activeWindow` `{start, stop}`.
pub fn window(text: &str) -> Result<ActiveWindow, String> {
    let bad = || format!("--window {text}: give HH:MM-HH:MM, as 23:00-06:00");
    let minute = |t: &str| -> Result<u32, String> {
        let (h, m) = t.trim().split_once(':').ok_or_else(bad)?;
        let (h, m): (u32, u32) = (h.parse().map_err(|_| bad())?, m.parse().map_err(|_| bad())?);
        if h > 23 || m > 59 || t.trim().len() != 5 {
            return Err(bad());
        }
        Ok(h * 60 + m)
    };
    let (start, stop) = text.split_once('-').ok_or_else(bad)?;
    Ok(ActiveWindow {
        start_minute: minute(start)?,
        stop_minute: minute(stop)?,
    })
}

/// The prompt's words, split as a shell splits them (single or double quotes keep spaces, as
/// `--reshard '{"k": 1}'` needs); an unclosed quote is an error.
fn words(text: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut word: Option<String> = None;
    let mut quote: Option<char> = None;
    for ch in text.chars() {
        match (quote, ch) {
            (Some(q), c) if c == q => quote = None,
            (None, '\'' | '"') => {
                quote = Some(ch);
                word.get_or_insert_with(String::new);
            }
            (None, c) if c.is_whitespace() => out.extend(word.take()),
            (_, c) => word.get_or_insert_with(String::new).push(c),
        }
    }
    if let Some(q) = quote {
        return Err(format!("a {q} is not closed"));
    }
    out.extend(word);
    Ok(out)
}

/// The prompt's text read as the CLI's change options (`--opt VALUE` or `--opt=VALUE`, each
/// once but `--drain`); empty is no change at all.
pub fn parse(text: &str) -> Result<Changes, String> {
    let mut asked = Asked::default();
    let mut it = words(text)?.into_iter();
    while let Some(w) = it.next() {
        let (opt, inline) = match w.split_once('=') {
            Some((o, v)) if o.starts_with("--") => (o.to_string(), Some(v.to_string())),
            _ => (w.clone(), None),
        };
        let known = [
            "--add-shards",
            "--drain",
            "--chunk-size",
            "--window",
            "--balancer",
            "--reshard",
        ];
        if !known.contains(&opt.as_str()) {
            return Err(format!("{w}: not a change; give {WORDS}"));
        }
        let Some(value) = inline.or_else(|| it.next()) else {
            return Err(format!("{opt}: give a value"));
        };
        let twice = || format!("{opt}: given twice");
        match opt.as_str() {
            "--add-shards" => {
                asked.add_shards = value
                    .parse()
                    .map_err(|_| format!("--add-shards {value}: give a number of shards"))?;
            }
            "--drain" => asked.drain.push(value),
            "--chunk-size" => {
                let mb = value
                    .parse()
                    .map_err(|_| format!("--chunk-size {value}: give a number of MB"))?;
                if asked.chunk_size.replace(mb).is_some() {
                    return Err(twice());
                }
            }
            "--window" => once(&mut asked.window, value).ok_or_else(twice)?,
            "--balancer" => once(&mut asked.balancer, value).ok_or_else(twice)?,
            _ => once(&mut asked.reshard, value).ok_or_else(twice)?,
        }
    }
    asked.changes()
}

/// Sets an option given once; `None` when it was given before.
fn once(slot: &mut Option<String>, value: String) -> Option<()> {
    slot.replace(value).is_none().then_some(())
}

impl Changes {
    /// A screen's short words for them: `+2 shards, drain shard0001`; `no change`.
    pub fn label(&self) -> String {
        let mut parts = Vec::new();
        if self.add_shards > 0 {
            let s = if self.add_shards == 1 { "" } else { "s" };
            parts.push(format!("+{} shard{s}", self.add_shards));
        }
        for d in &self.drain {
            parts.push(format!("drain {d}"));
        }
        if let Some(mb) = self.chunk_size_mb {
            parts.push(format!("chunk size {mb} MB"));
        }
        if let Some(w) = self.window {
            let hm = |m: u32| format!("{:02}:{:02}", m / 60, m % 60);
            parts.push(format!(
                "window {}-{}",
                hm(w.start_minute),
                hm(w.stop_minute)
            ));
        }
        if let Some(on) = self.balancer {
            parts.push(format!("balancer {}", if on { "on" } else { "off" }));
        }
        if let Some(k) = &self.reshard {
            parts.push(format!("reshard {}", k.server_text()));
        }
        if parts.is_empty() {
            "no change".into()
        } else {
            parts.join(", ")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_read_as_the_balancer_document_writes_them() {
        let w = window("23:00-06:30").expect("parses");
        assert_eq!((w.start_minute, w.stop_minute), (23 * 60, 6 * 60 + 30));
        for bad in [
            "23:00",
            "24:00-01:00",
            "1:00-2:00",
            "ab:cd-01:00",
            "23:00-06:60",
        ] {
            let e = window(bad).expect_err(bad);
            assert!(e.contains("--window"), "{bad}: {e}");
        }
    }

    #[test]
    fn the_prompt_reads_the_cli_options() {
        let c = parse(r#"--add-shards 2 --drain shard0001 --chunk-size=256 --window 23:00-06:00 --balancer on --reshard '{"k": 1}'"#)
            .expect("parses");
        assert_eq!(c.add_shards, 2);
        assert_eq!(c.drain, vec!["shard0001".to_string()]);
        assert_eq!(c.chunk_size_mb, Some(256));
        assert_eq!(c.balancer, Some(true));
        assert!(c.window.is_some() && c.reshard.is_some());
        assert_eq!(
            c.label(),
            "+2 shards, drain shard0001, chunk size 256 MB, window 23:00-06:00, balancer on, reshard { k: 1 }"
        );
        assert_eq!(
            parse("--add-shards 10000")
                .expect("at the bound")
                .add_shards,
            10_000
        );
        assert!(room(3, 9_997).is_ok());
        let e = room(3, 9_998).expect_err("past the bound");
        assert!(
            e.contains("the cluster has 3 already") && e.contains("10000"),
            "{e}"
        );
        let none = parse("  ").expect("empty is no change");
        assert_eq!(none.label(), "no change");
    }

    #[test]
    fn a_bad_change_is_said_naming_its_option() {
        for (text, says) in [
            ("--add-shards two", "--add-shards two"),
            ("--chunk-size 2000", "1 to 1024 MB"),
            ("--balancer maybe", "--balancer maybe"),
            ("--window 25:00-01:00", "--window"),
            ("--reshard '{\"k\": 1}", "not closed"),
            ("--add-shards", "give a value"),
            ("--shards 2", "not a change"),
            ("--chunk-size 64 --chunk-size 128", "given twice"),
            ("--add-shards 1000000", "at most 10000 shards"),
            ("--add-shards 10001", "at most 10000 shards"),
        ] {
            let e = parse(text).expect_err(text);
            assert!(e.contains(says), "{text}: {e}");
        }
    }
}
