//! The house's rules, checked on the source tree (ARCHITECTURE.md states them): an allow-list of
//! the arrows between the floors of `src/`, `serve`'s layers pointing down only with no import
//! circle inside `serve`, files of at most 500 lines and folders of about 25 Rust files at most;
//! and (`architecture/claims.rs`) that the paths and lists the documents name are the tree's.
//! What belongs here: a rule about the code's shape, read from the files, with no build of the crate.
#![allow(clippy::unwrap_used)]

#[path = "architecture/claims.rs"]
mod claims;

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// Who may import whom: each floor and the floors it may name as `crate::FLOOR`.
const FLOORS: &[(&str, &[&str])] = &[
    // The civil calendar (`units::civil_from_days`) is shared by the model's mongosh text.
    ("model", &["units"]),
    ("units", &[]),
    // The one writer of output files, under every floor that writes one.
    ("files", &[]),
    ("wire", &[]),
    ("cluster", &["model", "units"]),
    ("sim", &["cluster", "model", "units"]),
    // The one answer per collection (status, cause, next move, estimate), by the simulator's rules.
    ("diagnosis", &["cluster", "model", "sim", "units"]),
    ("trace", &["cluster", "files", "model"]),
    // A capture's records, file and anonymizer: `live` writes and replays them.
    ("capture", &["files", "model", "trace"]),
    // `live` records traces and turns the changelog into the view's log lines (its refused reads
    // are the cluster floor's `RefusedRead`).
    (
        "live",
        &[
            "capture", "cluster", "model", "trace", "units", "view", "wire",
        ],
    ),
    ("view", &["cluster", "diagnosis", "model", "units"]),
    ("analyze", &["model"]),
    (
        "lab",
        &["analyze", "cluster", "model", "sim", "units", "wire"],
    ),
    (
        "serve",
        &["analyze", "cluster", "model", "sim", "units", "wire"],
    ),
    (
        "source",
        &[
            "analyze",
            "capture",
            "cluster",
            "diagnosis",
            "lab",
            "live",
            "model",
            "sim",
            "trace",
            "view",
        ],
    ),
    ("ui", &["model", "source", "units", "view"]),
    ("runtime", &["files", "source", "ui"]),
    ("config", &["ui"]),
    ("cli", &["serve"]),
    (
        "commands",
        &[
            "analyze",
            "capture",
            "cli",
            "cluster",
            "config",
            "diagnosis",
            "files",
            "lab",
            "live",
            "model",
            "runtime",
            "serve",
            "sim",
            "source",
            "trace",
            "ui",
            "view",
            "units",
            "wire",
        ],
    ),
];

/// `serve`'s layers from the top down, and what each may import of the others.
const SERVE_LAYERS: &[(&str, &[&str])] = &[
    (
        "net",
        &[
            "dispatch",
            "commands",
            "write_path",
            "catalog",
            "state",
            "query",
            "reply",
        ],
    ),
    (
        "dispatch",
        &[
            "commands",
            "write_path",
            "catalog",
            "state",
            "query",
            "reply",
        ],
    ),
    (
        "commands",
        &["write_path", "catalog", "state", "query", "reply"],
    ),
    ("write_path", &["catalog", "state", "query", "reply"]),
    ("catalog", &["state", "query", "reply"]),
    ("state", &["query", "reply"]),
    ("query", &["reply"]),
    ("reply", &[]),
];

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The Rust files of `src/<under>` (and `src/<under>.rs`), sorted.
fn sources(under: &str) -> Vec<PathBuf> {
    let root = src();
    let mut out = Vec::new();
    let file = root.join(format!("{under}.rs"));
    if !under.is_empty() && file.is_file() {
        out.push(file);
    }
    let mut stack = vec![root.join(under)];
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

/// A file's lines without their `//` comments.
fn code_lines(path: &Path) -> Vec<String> {
    let text = fs::read_to_string(path).unwrap();
    text.lines()
        .map(|l| l.split("//").next().unwrap_or("").to_string())
        .collect()
}

/// The identifiers following each `prefix` in `code` (`crate::` → `serve`, `model`…).
fn names_after<'a>(code: &'a str, prefix: &str) -> Vec<&'a str> {
    code.match_indices(prefix)
        .filter(|(i, _)| {
            let before = code[..*i].chars().next_back();
            !before.is_some_and(|c| c.is_alphanumeric() || c == '_')
        })
        .map(|(i, _)| {
            let rest = &code[i + prefix.len()..];
            let end = rest
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            &rest[..end]
        })
        .filter(|n| !n.is_empty())
        .collect()
}

/// Every arrow `floor → other` found, with the line naming it.
fn floor_arrows() -> BTreeMap<(String, String), String> {
    let root = src();
    let mut arrows = BTreeMap::new();
    for path in sources("") {
        let rel = path.strip_prefix(&root).unwrap();
        let first = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy();
        let floor = first.trim_end_matches(".rs").to_string();
        for (n, code) in code_lines(&path).iter().enumerate() {
            for other in names_after(code, "crate::") {
                if other != floor {
                    arrows
                        .entry((floor.clone(), other.to_string()))
                        .or_insert_with(|| format!("{}:{}", rel.display(), n + 1));
                }
            }
        }
    }
    arrows
}

#[test]
fn the_floors_import_only_what_the_allow_list_allows() {
    let allowed: BTreeMap<&str, &[&str]> = FLOORS.iter().copied().collect();
    let mut broken = Vec::new();
    for ((from, to), at) in floor_arrows() {
        if from == "lib" || from == "main" {
            continue;
        }
        match allowed.get(from.as_str()) {
            None => broken.push(format!("{at}: `{from}` is not in the allow-list")),
            Some(to_ok) if !to_ok.contains(&to.as_str()) => {
                broken.push(format!("{at}: {from} → {to}"));
            }
            Some(_) => {}
        }
    }
    assert!(
        broken.is_empty(),
        "imports the allow-list does not have:\n{}",
        broken.join("\n")
    );
}

#[test]
fn the_check_finds_an_arrow_where_there_is_one() {
    let arrows = floor_arrows();
    assert!(arrows.contains_key(&("serve".into(), "sim".into())));
    assert!(!arrows.contains_key(&("serve".into(), "lab".into())));
    assert!(!arrows.contains_key(&("model".into(), "cluster".into())));
}

/// The modules of `src/serve` (path segments under `serve`), each with its file.
fn serve_modules() -> BTreeMap<Vec<String>, PathBuf> {
    let root = src().join("serve");
    let mut modules = BTreeMap::new();
    for path in sources("serve") {
        let Ok(rel) = path.strip_prefix(&root) else {
            continue;
        };
        let mut segs: Vec<String> = rel
            .with_extension("")
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        if segs.last().is_some_and(|s| s == "mod") {
            segs.pop();
        }
        modules.insert(segs, path);
    }
    modules
}

/// The longest module of `modules` that `path` (segments under `serve`) names.
fn resolve(modules: &BTreeMap<Vec<String>, PathBuf>, path: &[String]) -> Option<Vec<String>> {
    (1..=path.len())
        .rev()
        .map(|n| path[..n].to_vec())
        .find(|p| modules.contains_key(p))
}

/// The paths a line names: `crate::serve::…`, `super::…` and `self::…`, with `use` groups
/// (`{a, b::c}`) expanded one level.
fn named_paths(code: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for start in ["crate::serve::", "super::", "self::"] {
        for (i, _) in code.match_indices(start) {
            let before = code[..i].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            let rest = &code[i..];
            let end = rest
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                .unwrap_or(rest.len());
            let head: Vec<String> = rest[..end]
                .split("::")
                .filter(|s| !s.is_empty())
                .map(String::from)
                .collect();
            if rest[end..].starts_with('{') {
                let close = rest[end..].find('}').map_or(rest.len(), |c| end + c);
                for item in rest[end + 1..close].split(',') {
                    let mut p = head.clone();
                    p.extend(item.trim().split("::").map(|s| s.trim().to_string()));
                    out.push(p);
                }
            } else {
                out.push(head);
            }
        }
    }
    out
}

/// The import graph of `serve`'s modules: who names whom (a module naming its own ancestor is
/// not counted: a parent declares its children).
fn serve_graph() -> BTreeMap<Vec<String>, BTreeSet<Vec<String>>> {
    let modules = serve_modules();
    let mut graph = BTreeMap::new();
    for (module, path) in &modules {
        let is_mod_rs = path.ends_with("mod.rs");
        let text = fs::read_to_string(path).unwrap();
        let body = text.split("#[cfg(test)]").next().unwrap_or("");
        let mut targets = BTreeSet::new();
        for line in body.lines() {
            let code = line.split("//").next().unwrap_or("");
            for named in named_paths(code) {
                let mut base: Vec<String> = match named[0].as_str() {
                    "crate" => Vec::new(),
                    "self" => module.clone(),
                    _ if is_mod_rs => module.clone(),
                    _ => module[..module.len().saturating_sub(1)].to_vec(),
                };
                let mut segs = &named[if named[0] == "crate" { 2 } else { 0 }..];
                if segs.first().is_some_and(|s| s == "self") {
                    segs = &segs[1..];
                }
                while segs.first().is_some_and(|s| s == "super") {
                    base.pop();
                    segs = &segs[1..];
                }
                base.extend(segs.iter().cloned());
                if let Some(target) = resolve(&modules, &base)
                    && target != *module
                    && !module.starts_with(&target)
                {
                    targets.insert(target);
                }
            }
        }
        graph.insert(module.clone(), targets);
    }
    graph
}

/// The modules of `graph` that lie on a circle.
fn on_circles(graph: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>) -> BTreeSet<Vec<String>> {
    let reaches = |from: &Vec<String>| {
        let mut seen = BTreeSet::new();
        let mut stack: Vec<&Vec<String>> = graph[from].iter().collect();
        while let Some(m) = stack.pop() {
            if seen.insert(m.clone()) {
                stack.extend(graph.get(m).into_iter().flatten());
            }
        }
        seen
    };
    graph
        .keys()
        .filter(|m| reaches(m).contains(*m))
        .cloned()
        .collect()
}

#[test]
fn no_import_circle_inside_serve() {
    let graph = serve_graph();
    assert!(graph.len() > 40, "serve's modules were not found");
    let circles = on_circles(&graph);
    let named: Vec<String> = circles.iter().map(|m| m.join("::")).collect();
    assert!(
        circles.is_empty(),
        "modules of serve on an import circle: {}",
        named.join(", ")
    );
}

#[test]
fn the_circle_check_finds_a_circle_where_there_is_one() {
    let a = vec!["a".to_string()];
    let b = vec!["b".to_string()];
    let c = vec!["c".to_string()];
    let mut graph = BTreeMap::new();
    graph.insert(a.clone(), BTreeSet::from([b.clone()]));
    graph.insert(b.clone(), BTreeSet::from([a.clone()]));
    graph.insert(c.clone(), BTreeSet::from([a.clone()]));
    assert_eq!(on_circles(&graph), BTreeSet::from([a, b]));
}

#[test]
fn serve_layers_point_down_only() {
    let allowed: BTreeMap<&str, &[&str]> = SERVE_LAYERS.iter().copied().collect();
    for (layer, _) in SERVE_LAYERS {
        assert!(src().join("serve").join(layer).is_dir(), "serve/{layer}");
    }
    let mut broken = Vec::new();
    for (module, targets) in serve_graph() {
        let Some(from) = module.first().filter(|l| allowed.contains_key(l.as_str())) else {
            continue;
        };
        for target in targets {
            let Some(to) = target.first() else { continue };
            let sideways = to != from && !allowed[from.as_str()].contains(&to.as_str());
            // The command families are siblings: none imports another.
            let sibling = from == "commands" && to == "commands" && module.get(1) != target.get(1);
            if sideways || sibling {
                broken.push(format!("{} → {}", module.join("::"), target.join("::")));
            }
        }
    }
    assert!(
        broken.is_empty(),
        "serve's layers point up or sideways:\n{}",
        broken.join("\n")
    );
}

/// The modules of `commands` every command may use: the terminal toolbox and shared settings.
const TOOLBOX: &[&str] = &[
    "terminal",
    "settings",
    "scenario_file",
    "source_arg",
    "time_views",
];

#[test]
fn no_command_imports_another() {
    let root = src().join("commands");
    let mut broken = Vec::new();
    for path in sources("commands") {
        let Ok(rel) = path.strip_prefix(&root) else {
            continue;
        };
        let own = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy();
        let own = own.trim_end_matches(".rs");
        let top_level = rel.components().count() == 1;
        for (n, code) in code_lines(&path).iter().enumerate() {
            let mut named = names_after(code, "crate::commands::");
            if top_level {
                named.extend(names_after(code, "super::"));
            }
            for other in named {
                let is_module = root.join(format!("{other}.rs")).is_file();
                if is_module && other != own && !TOOLBOX.contains(&other) {
                    broken.push(format!("{}:{}: {own} → {other}", rel.display(), n + 1));
                }
            }
        }
    }
    assert!(
        broken.is_empty(),
        "commands importing each other (share the toolbox instead):\n{}",
        broken.join("\n")
    );
}

#[test]
fn serve_imports_no_lab() {
    let found: Vec<String> = sources("serve")
        .iter()
        .filter(|p| code_lines(p).iter().any(|l| l.contains("crate::lab")))
        .map(|p| p.display().to_string())
        .collect();
    assert!(found.is_empty(), "serve imports lab: {found:?}");
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

#[test]
fn no_folder_holds_more_than_25_rust_files() {
    let mut crowded = Vec::new();
    // The tests and the benches follow the rule of the code.
    let root = src().parent().unwrap().to_path_buf();
    let mut stack = vec![src(), root.join("tests"), root.join("benches")];
    while let Some(dir) = stack.pop() {
        let mut files = 0;
        for entry in fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                if !path.ends_with("node_modules") {
                    stack.push(path);
                }
            } else if path.extension().is_some_and(|e| e == "rs") {
                files += 1;
            }
        }
        if files > 25 {
            crowded.push(format!("{}: {files} files", dir.display()));
        }
    }
    assert!(
        crowded.is_empty(),
        "give them folders:\n{}",
        crowded.join("\n")
    );
}
