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
        None => Err(Failure::input(format!(
            "unknown scenario {name:?}; the built-in scenarios are: {}",
            scenario::names().join(", ")
        ))),
    }
}
