//! What the documents claim about the tree, checked against it: every project path named in
//! README, ARCHITECTURE, CONTRIBUTING, SECURITY and docs/ exists, and CONTRIBUTING's lists of
//! benchmarks and fuzz targets are exactly the ones Cargo.toml and `fuzz/fuzz_targets/` hold.
//! CHANGELOG.md is history (it names files as they were) and is not checked.

use std::fs;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The project's top folders a document may name a path under.
const TOP: &[&str] = &[
    "src/",
    "tests/",
    "benches/",
    "fuzz/",
    "scripts/",
    "assets/",
    "docs/",
    "examples/",
];

/// The documents whose paths are checked.
fn documents() -> Vec<PathBuf> {
    let root = root();
    let mut out: Vec<PathBuf> = [
        "README.md",
        "ARCHITECTURE.md",
        "CONTRIBUTING.md",
        "SECURITY.md",
    ]
    .iter()
    .map(|f| root.join(f))
    .collect();
    for dir in ["docs", "tests/clients"] {
        for entry in fs::read_dir(root.join(dir)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "md") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

fn is_path_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '/' | '.' | '_' | '-')
}

/// The project paths a line names: a token of path characters starting with a top folder, not
/// preceded by a path character (so `src/mongo/…` inside a URL is not one), trailing dots cut.
fn paths_in(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (at, _) in line.char_indices() {
        let before = line[..at].chars().next_back();
        if before.is_some_and(is_path_char) || !TOP.iter().any(|t| line[at..].starts_with(t)) {
            continue;
        }
        let token: String = line[at..]
            .chars()
            .take_while(|c| is_path_char(*c))
            .collect();
        out.push(token.trim_end_matches(['.', '/']).to_string());
    }
    out
}

/// Whether a token is a path of this tree rather than MongoDB's source (`src/mongo/…`), a
/// placeholder (`tests/AREA/…`, `fuzz/seeds/TARGET`) or a folder the test command installs.
fn is_project_path(token: &str) -> bool {
    let placeholder = token
        .split('/')
        .map(|part| part.split('.').next().unwrap_or(part))
        .any(|stem| stem.len() > 1 && stem.chars().all(|c| c.is_ascii_uppercase()));
    !(token.starts_with("src/mongo") || placeholder || token.contains("node_modules"))
}

/// A path exists as written, or as the Rust file of a module, example or bench it names.
fn exists(root: &Path, token: &str) -> bool {
    root.join(token).exists() || root.join(format!("{token}.rs")).exists()
}

#[test]
fn every_path_the_documents_name_exists() {
    let root = root();
    let mut missing = Vec::new();
    for doc in documents() {
        let text = fs::read_to_string(&doc).unwrap();
        for (n, line) in text.lines().enumerate() {
            for token in paths_in(line).into_iter().filter(|t| is_project_path(t)) {
                if !exists(&root, &token) {
                    let name = doc.strip_prefix(&root).unwrap().display().to_string();
                    missing.push(format!("{name}:{}: {token}", n + 1));
                }
            }
        }
    }
    assert!(
        missing.is_empty(),
        "paths named but absent:\n{}",
        missing.join("\n")
    );
}

/// Every Rust file of the tree, as a path relative to the root with `/` separators.
fn rust_files() -> Vec<String> {
    let root = root();
    let mut out = Vec::new();
    let mut stack: Vec<PathBuf> = ["src", "tests", "benches", "examples", "fuzz"]
        .iter()
        .map(|d| root.join(d))
        .collect();
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let rel = path.strip_prefix(&root).unwrap();
                out.push(rel.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    out
}

/// The Rust files a line names in backticks by a shorter path (`capture/file.rs`,
/// `state/retryable.rs`): relative to a floor or a layer.
fn short_rust_paths(line: &str) -> Vec<&str> {
    line.split('`')
        .skip(1)
        .step_by(2)
        .filter(|t| Path::new(t).extension().is_some_and(|e| e == "rs"))
        .filter(|t| t.chars().all(is_path_char))
        .filter(|t| !TOP.iter().any(|top| t.starts_with(top)))
        .collect()
}

#[test]
fn every_short_rust_path_the_documents_name_is_a_file() {
    let root = root();
    let files = rust_files();
    let mut missing = Vec::new();
    for doc in documents() {
        let text = fs::read_to_string(&doc).unwrap();
        for (n, line) in text.lines().enumerate() {
            for short in short_rust_paths(line) {
                let tail = format!("/{short}");
                if !files.iter().any(|f| f.ends_with(&tail)) {
                    let name = doc.strip_prefix(&root).unwrap().display().to_string();
                    missing.push(format!("{name}:{}: {short}", n + 1));
                }
            }
        }
    }
    assert!(
        missing.is_empty(),
        "Rust files named but absent:\n{}",
        missing.join("\n")
    );
}

#[test]
fn the_path_check_finds_a_path_and_skips_what_is_not_one() {
    let line = "see `src/model/chunk.rs`, tests/AREA/main.rs and src/mongo/s/chunk_manager.cpp.";
    let tokens: Vec<String> = paths_in(line)
        .into_iter()
        .filter(|t| is_project_path(t))
        .collect();
    assert_eq!(tokens, ["src/model/chunk.rs"]);
    assert!(!exists(&root(), "src/model/no_such_file.rs"));
    assert!(exists(&root(), "examples/whatif_profile"));
    let short = "`capture/file.rs` and `src/lib.rs` and `MongoDB's x.rs`";
    assert_eq!(short_rust_paths(short), ["capture/file.rs"]);
}

/// The text of one `## ` section of a Markdown file.
fn section(file: &str, title: &str) -> String {
    let text = fs::read_to_string(root().join(file)).unwrap();
    let start = text.find(&format!("\n## {title}\n")).unwrap();
    let rest = &text[start + 1..];
    let end = rest[3..].find("\n## ").map_or(rest.len(), |e| e + 3);
    rest[..end].to_string()
}

/// The `name = "…"` of each `[[bench]]` in Cargo.toml.
fn benches() -> Vec<String> {
    let toml = fs::read_to_string(root().join("Cargo.toml")).unwrap();
    toml.split("[[bench]]")
        .skip(1)
        .filter_map(|entry| {
            let line = entry.lines().find(|l| l.trim_start().starts_with("name"))?;
            Some(line.split('"').nth(1)?.to_string())
        })
        .collect()
}

/// The words of the parenthesised list after `after` in a section (`benches/` (model, sim, …)).
fn listed(section: &str, after: &str) -> Vec<String> {
    let list = section.split_once(after).unwrap().1;
    let inside = list.split_once('(').unwrap().1.split_once(')').unwrap().0;
    inside.split(',').map(|w| w.trim().to_string()).collect()
}

#[test]
fn contributing_lists_every_benchmark() {
    let mut named = listed(&section("CONTRIBUTING.md", "Benchmarks"), "`benches/`");
    let mut actual = benches();
    named.sort();
    actual.sort();
    assert_eq!(
        named, actual,
        "CONTRIBUTING.md's list of benches vs Cargo.toml's [[bench]]"
    );
}

#[test]
fn contributing_names_every_fuzz_target() {
    let text = section("CONTRIBUTING.md", "Fuzzing");
    let mut missing = Vec::new();
    for entry in fs::read_dir(root().join("fuzz/fuzz_targets")).unwrap() {
        let path = entry.unwrap().path();
        let stem = path.file_stem().unwrap().to_string_lossy().to_string();
        if !text.contains(&format!("`{stem}`")) {
            missing.push(stem);
        }
    }
    assert!(
        missing.is_empty(),
        "fuzz targets CONTRIBUTING.md does not name: {missing:?}"
    );
}
