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

/// A small valid capture (one read) at `path`.
fn small_capture(path: &std::path::Path) {
    std::fs::write(
        path,
        "{\"kind\":\"shardtop capture\",\"format\":1,\"capturedAtMs\":1764772218123,\"target\":\"mongodb://h:1\",\"serverVersion\":\"8.0.4\",\"anonymized\":false,\"reads\":1}\n\
         {\"read\":0,\"db\":\"admin\",\"command\":{\"buildInfo\":{\"$numberInt\":\"1\"}},\"reply\":{\"version\":\"8.0.4\",\"ok\":{\"$numberDouble\":\"1.0\"}}}\n",
    )
    .unwrap();
}

#[test]
fn an_output_that_is_the_input_however_named_is_refused_even_with_force() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.capture");
    small_capture(&input);
    let before = std::fs::read(&input).unwrap();
    let link = dir.path().join("link.capture");
    std::os::unix::fs::symlink(&input, &link).unwrap();
    let hard = dir.path().join("hard.capture");
    std::fs::hard_link(&input, &hard).unwrap();
    let i = input.display().to_string();
    let dotted = format!("{}/./in.capture", dir.path().display());
    for out in [
        i.clone(),
        dotted,
        link.display().to_string(),
        hard.display().to_string(),
    ] {
        let (code, _, err) = run(&["capture", &i, "-o", &out, "--anonymize", "--force"]);
        assert_eq!(code, 2, "{out}: {err}");
        assert!(
            err.contains(&format!("--output {out}: the same file as the input {i}")),
            "{err}"
        );
        assert_eq!(std::fs::read(&input).unwrap(), before, "{out}");
    }
    // Another file is written.
    let other = dir.path().join("anon.capture").display().to_string();
    let (code, _, err) = run(&["capture", &i, "-o", &other, "--anonymize"]);
    assert_eq!(code, 0, "{err}");
    // A trace replayed with --export over itself; a scenario file recorded over itself; the
    // lab's chunk map over its data.
    let trace = dir.path().join("t.ndjson");
    let t = trace.display().to_string();
    let (code, _, err) = run(&["sim", "ascending", "--until", "10", "--record", &t]);
    assert_eq!(code, 0, "{err}");
    let screen = dir.path().join("t.txt");
    std::fs::hard_link(&trace, &screen).unwrap();
    let txt = screen.display().to_string();
    let (code, _, err) = run(&["replay", &t, "--export", &txt, "--force"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(&format!("--export {txt}: the same file as the trace {t}")),
        "{err}"
    );
    let scenario = dir.path().join("s.json");
    std::fs::copy("assets/scenarios/ascending.json", &scenario).unwrap();
    let s = scenario.display().to_string();
    let (code, _, err) = run(&["sim", "--scenario-file", &s, "--record", &s, "--force"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(&format!(
            "--record {s}: the same file as --scenario-file {s}"
        )),
        "{err}"
    );
    let data = dir.path().join("d.json");
    std::fs::write(&data, "{\"a\": 1}\n").unwrap();
    let d = data.display().to_string();
    let (code, _, err) = run(&[
        "lab",
        "--data",
        &d,
        "--key",
        "{\"a\": 1}",
        "--text",
        "--chunk-map",
        &d,
        "--force",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(&format!("--chunk-map {d}: the same file as --data {d}")),
        "{err}"
    );
}
