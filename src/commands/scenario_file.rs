//! The scenario a command line names, for every command that plays one (`sim`, `demo`, `serve`,
//! exports): a built-in scenario by name, or a scenario file read here (`sim` does no I/O).
//!
//! May import `super::Failure` and the floors; never a command module.

use super::Failure;
use crate::sim::{Scenario, scenario};

/// Loads the scenario named on the command line, or the scenario file.
pub fn load(
    name: Option<&str>,
    file: Option<&std::path::Path>,
) -> Result<(Scenario, String), Failure> {
    if let Some(path) = file {
        let text = std::fs::read_to_string(path).map_err(|e| {
            Failure::input(format!("cannot read scenario file {}: {e}", path.display()))
        })?;
        let sc = scenario::parse(&text)
            .map_err(|e| Failure::input(format!("scenario file {}: {e}", path.display())))?;
        let label = format!("file:{}", path.display());
        return Ok((sc, label));
    }
    let name = name.unwrap_or("ascending");
    match scenario::built_in(name) {
        Some(Ok(sc)) => Ok((sc, name.to_string())),
        Some(Err(e)) => Err(Failure::runtime(format!(
            "built-in scenario {name} is broken: {e}"
        ))),
        None => {
            let names = scenario::names();
            let hint = match closest(name, &names) {
                Some(near) => format!("did you mean {near:?}? "),
                None => String::new(),
            };
            Err(Failure::input(format!(
                "unknown scenario {name:?}; {hint}the built-in scenarios are: {} (`shardtop scenarios` says what each shows)",
                names.join(", ")
            )))
        }
    }
}

/// The name nearest `typed` by edit distance, if it is near enough to be a slip (at most a third
/// of the longer name's letters differ), or a name that starts with or contains what was typed.
fn closest<'a>(typed: &str, names: &[&'a str]) -> Option<&'a str> {
    let typed = typed.to_lowercase();
    let best = names
        .iter()
        .map(|n| (edit_distance(&typed, n), *n))
        .min_by_key(|(d, _)| *d)?;
    let longer = typed.chars().count().max(best.1.chars().count());
    if best.0 * 3 <= longer {
        return Some(best.1);
    }
    (typed.len() >= 3)
        .then(|| names.iter().find(|n| n.contains(typed.as_str())).copied())
        .flatten()
}

/// Levenshtein distance (insertions, deletions, substitutions), by characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = if ca == *cb {
                prev
            } else {
                1 + prev.min(cur).min(row[j])
            };
            prev = cur;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slip_or_a_part_of_a_name_finds_the_scenario() {
        let names = [
            "ascending",
            "hashed",
            "hot-customer",
            "zones-gdpr",
            "zones-ip",
        ];
        assert_eq!(closest("acsending", &names), Some("ascending"));
        assert_eq!(closest("hased", &names), Some("hashed"));
        assert_eq!(closest("customer", &names), Some("hot-customer"));
        assert_eq!(closest("nosuch", &names), None);
        assert_eq!(closest("x", &names), None);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
    }
}
