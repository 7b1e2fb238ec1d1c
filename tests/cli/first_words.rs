//! What a first-time user reads from the command line when a command is incomplete: the bare
//! `lab` names the built-in example, exit 2.
#![allow(clippy::unwrap_used)]

use super::process::{shardtop, stderr, stdout};

#[test]
fn bare_lab_names_the_built_in_example() {
    let o = shardtop(&["lab"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    for words in ["--data FILE", "--from URI", "shardtop lab --example orders"] {
        assert!(err.contains(words), "{words}: {err}");
    }
    assert!(stdout(&o).is_empty());
}
