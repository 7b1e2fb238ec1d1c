//! The floors of the house, checked on the source tree: what each module may import, and the size
//! of a source file. These are the rules the module docs state (see `src/lib.rs`).
#![allow(clippy::unwrap_used)]

use std::fs;
use std::path::{Path, PathBuf};

fn sources(under: &str) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut out = Vec::new();
    let mut stack = vec![root.join(under)];
    let file = root.join(format!("{under}.rs"));
    if file.is_file() {
        out.push(file);
    }
    while let Some(dir) = stack.pop() {
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// The lines of the modules under `under` that name `crate::<floor>` (outside comments).
fn imports_of(under: &str, floor: &str) -> Vec<String> {
    let needle = format!("crate::{floor}");
    let mut found = Vec::new();
    for path in sources(under) {
        let text = fs::read_to_string(&path).unwrap();
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            let hit = code.match_indices(&needle).any(|(i, _)| {
                let after = code[i + needle.len()..].chars().next();
                !after.is_some_and(|c| c.is_alphanumeric() || c == '_')
            });
            if hit {
                found.push(format!("{}:{}: {}", path.display(), n + 1, line.trim()));
            }
        }
    }
    found
}

#[test]
fn the_floors_import_only_what_is_below_them() {
    assert!(!sources("live").is_empty() && !sources("cluster").is_empty());
    let rules: &[(&str, &[&str])] = &[
        (
            "model",
            &[
                "cluster", "sim", "live", "trace", "view", "ui", "source", "serve",
            ],
        ),
        (
            "cluster",
            &["sim", "live", "trace", "view", "ui", "source", "serve"],
        ),
        ("sim", &["live", "trace", "view", "ui", "source", "serve"]),
        ("lab", &["live", "trace", "view", "ui", "source", "serve"]),
        ("trace", &["sim", "live", "view", "ui", "source", "serve"]),
        ("live", &["sim", "ui", "source", "serve"]),
        ("view", &["sim", "live", "trace", "ui", "source", "serve"]),
        ("ui", &["sim", "live", "trace", "serve"]),
    ];
    let mut broken = Vec::new();
    for (module, forbidden) in rules {
        for floor in *forbidden {
            broken.extend(imports_of(module, floor));
        }
    }
    assert!(
        broken.is_empty(),
        "imports across floors:\n{}",
        broken.join("\n")
    );
}

#[test]
fn the_check_finds_an_import_where_there_is_one() {
    // `serve` drives the simulator: the same check must see it.
    assert!(!imports_of("serve", "sim").is_empty());
}

#[test]
fn no_source_file_is_over_500_lines() {
    let mut long = Vec::new();
    for path in sources("") {
        let lines = fs::read_to_string(&path).unwrap().lines().count();
        if lines > 500 {
            long.push(format!("{}: {lines} lines", path.display()));
        }
    }
    assert!(
        long.is_empty(),
        "split by responsibility:\n{}",
        long.join("\n")
    );
}
