//! Every file the binary writes goes through one safe writer: an existing file is refused without
//! `--force` (exit 2, named), a FIFO or `/dev/stdout` is written through and stays what it is, a
//! planted `FILE.partial` link is never followed, and a folder that takes no files is named as
//! such.

use std::process::Command;

use crate::common::tmux::BIN;

fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(BIN).args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn record_and_export_refuse_an_existing_file_unless_forced() {
    let dir = tempfile::tempdir().unwrap();
    for (flag, name) in [("--record", "t.ndjson"), ("--export", "s.txt")] {
        let p = dir.path().join(name);
        std::fs::write(&p, "mine").unwrap();
        let ps = p.display().to_string();
        let (code, _, err) = run(&["sim", "ascending", "--until", "10", flag, &ps]);
        assert_eq!(code, 2, "{flag}: {err}");
        assert!(
            err.contains(&format!("{flag} {ps}: {ps} already exists; give --force")),
            "{err}"
        );
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "mine");
        let (code, _, err) = run(&["sim", "ascending", "--until", "10", flag, &ps, "--force"]);
        assert_eq!(code, 0, "{flag} --force: {err}");
        assert_ne!(std::fs::read_to_string(&p).unwrap(), "mine");
    }
    let p = dir.path().join("s.txt").display().to_string();
    let trace = dir.path().join("t.ndjson").display().to_string();
    let (code, _, err) = run(&["replay", &trace, "--export", &p]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("already exists"), "{err}");
    let (code, _, err) = run(&["replay", &trace, "--export", &p, "--force"]);
    assert_eq!(code, 0, "{err}");
    // Only the files named: no temporary file left behind.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
}

#[test]
fn a_fifo_is_written_through_and_stays_a_fifo() {
    use std::os::unix::fs::FileTypeExt;
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe.ndjson");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap())
    };
    let f = fifo.display().to_string();
    let (code, _, err) = run(&["sim", "ascending", "--until", "10", "--record", &f]);
    assert_eq!(code, 0, "{err}");
    let trace = reader.join().unwrap();
    assert!(
        trace.starts_with("{\"format\":\"shardtop-trace\""),
        "{trace:.200}"
    );
    assert!(trace.trim_end().ends_with("{\"end\":10.0}"), "{trace:.200}");
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[test]
fn a_link_to_standard_output_is_written_through_not_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let link = dir.path().join("out.ndjson");
    std::os::unix::fs::symlink("/proc/self/fd/1", &link).unwrap();
    let l = link.display().to_string();
    let (code, said, err) = run(&["sim", "ascending", "--until", "10", "--record", &l]);
    assert_eq!(code, 0, "{err}");
    assert!(
        said.starts_with("{\"format\":\"shardtop-trace\""),
        "{said:.200}"
    );
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
}

#[test]
fn a_planted_partial_link_is_not_written_through() {
    let dir = tempfile::tempdir().unwrap();
    let victim = dir.path().join("victim");
    std::fs::write(&victim, "precious").unwrap();
    let target = dir.path().join("t.ndjson");
    std::os::unix::fs::symlink(&victim, dir.path().join("t.ndjson.partial")).unwrap();
    let t = target.display().to_string();
    let (code, _, err) = run(&["sim", "ascending", "--until", "10", "--record", &t]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
    assert!(
        std::fs::read_to_string(&target)
            .unwrap()
            .starts_with("{\"format\":\"shardtop-trace\"")
    );
}

#[test]
fn a_folder_that_takes_no_files_is_named_as_such() {
    let (code, _, err) = run(&["sim", "ascending", "--export", "/proc/self/x.txt"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("cannot create a file in the folder /proc/self")
            && err.contains("it exists but takes no new files")
            && !err.contains("does not exist"),
        "{err}"
    );
}
