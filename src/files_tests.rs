#![allow(clippy::unwrap_used)]

use super::*;
use std::os::unix::fs::FileTypeExt;

fn dir() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn a_new_file_is_written_whole_and_no_temporary_file_stays() {
    let d = dir();
    let p = d.path().join("a.txt");
    write_whole(&p, b"hello", Existing::Refuse).unwrap();
    assert_eq!(fs::read(&p).unwrap(), b"hello");
    assert_eq!(names(d.path()), ["a.txt"]);
}

#[test]
fn an_existing_file_is_refused_unless_replacing_is_allowed() {
    let d = dir();
    let p = d.path().join("a.txt");
    fs::write(&p, "old").unwrap();
    let e = write_whole(&p, b"new", Existing::Refuse).unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::AlreadyExists);
    assert!(
        e.to_string().contains("already exists; give --force"),
        "{e}"
    );
    assert_eq!(fs::read(&p).unwrap(), b"old");
    assert_eq!(names(d.path()), ["a.txt"]);
    write_whole(&p, b"new", Existing::Replace).unwrap();
    assert_eq!(fs::read(&p).unwrap(), b"new");
}

#[test]
fn a_link_at_the_name_is_refused_or_replaced_never_written_through() {
    let d = dir();
    let victim = d.path().join("victim");
    fs::write(&victim, "precious").unwrap();
    let p = d.path().join("out.cast");
    std::os::unix::fs::symlink(&victim, &p).unwrap();
    assert!(write_whole(&p, b"x", Existing::Refuse).is_err());
    write_whole(&p, b"x", Existing::Replace).unwrap();
    assert_eq!(fs::read(&victim).unwrap(), b"precious");
    assert!(fs::symlink_metadata(&p).unwrap().file_type().is_file());
    // A dangling link is something at the name too.
    let dangling = d.path().join("dangling.txt");
    std::os::unix::fs::symlink(d.path().join("nowhere"), &dangling).unwrap();
    assert!(write_whole(&dangling, b"x", Existing::Refuse).is_err());
    assert!(!d.path().join("nowhere").exists());
}

#[test]
fn a_planted_partial_link_is_never_followed() {
    let d = dir();
    let victim = d.path().join("victim");
    fs::write(&victim, "precious").unwrap();
    let p = d.path().join("t.ndjson");
    std::os::unix::fs::symlink(&victim, d.path().join("t.ndjson.partial")).unwrap();
    let mut out = OutFile::create(&p, Existing::Refuse, Unfinished::Keep).unwrap();
    let temp = out.temp_path().unwrap().to_path_buf();
    assert_ne!(temp, d.path().join("t.ndjson.partial"));
    assert!(temp.to_string_lossy().ends_with(".partial"));
    out.write_all(b"line\n").unwrap();
    out.finish().unwrap();
    assert_eq!(fs::read(&victim).unwrap(), b"precious");
    assert_eq!(fs::read(&p).unwrap(), b"line\n");
}

#[test]
fn an_unfinished_file_is_kept_or_removed_as_asked() {
    let d = dir();
    let p = d.path().join("t.ndjson");
    let mut kept = OutFile::create(&p, Existing::Refuse, Unfinished::Keep).unwrap();
    kept.write_all(b"half").unwrap();
    let temp = kept.temp_path().unwrap().to_path_buf();
    drop(kept);
    assert_eq!(fs::read(&temp).unwrap(), b"half");
    assert!(!p.exists());
    fs::remove_file(&temp).unwrap();
    let removed = OutFile::create(&p, Existing::Refuse, Unfinished::Remove).unwrap();
    drop(removed);
    assert!(names(d.path()).is_empty());
}

#[test]
fn a_file_appearing_while_writing_is_not_overwritten() {
    let d = dir();
    let p = d.path().join("t.ndjson");
    let mut out = OutFile::create(&p, Existing::Refuse, Unfinished::Keep).unwrap();
    out.write_all(b"trace").unwrap();
    fs::write(&p, "someone else's").unwrap();
    let e = out.finish().unwrap_err();
    assert!(e.to_string().contains("is kept in"), "{e}");
    assert_eq!(fs::read(&p).unwrap(), b"someone else's");
}

#[test]
fn a_character_device_is_written_through() {
    let p = Path::new("/dev/null");
    write_whole(p, b"nothing", Existing::Refuse).unwrap();
    assert!(fs::metadata(p).unwrap().file_type().is_char_device());
}

#[test]
fn a_fifo_is_written_through_not_replaced() {
    let d = dir();
    let p = d.path().join("pipe");
    let made = std::process::Command::new("mkfifo")
        .arg(&p)
        .status()
        .unwrap();
    assert!(made.success());
    let reader = {
        let p = p.clone();
        std::thread::spawn(move || fs::read(p).unwrap())
    };
    write_whole(&p, b"through the pipe", Existing::Refuse).unwrap();
    assert_eq!(reader.join().unwrap(), b"through the pipe");
    assert!(fs::metadata(&p).unwrap().file_type().is_fifo());
    assert_eq!(names(d.path()), ["pipe"]);
}

#[test]
fn a_folder_or_a_missing_or_closed_folder_is_named_as_what_it_is() {
    let d = dir();
    let e = write_whole(d.path(), b"x", Existing::Replace).unwrap_err();
    assert!(e.to_string().contains("is a folder"), "{e}");
    let e = write_whole(&d.path().join("no/x.txt"), b"x", Existing::Refuse).unwrap_err();
    assert!(e.to_string().contains("does not exist"), "{e}");
    let e = write_whole(Path::new("/proc/self/x.txt"), b"x", Existing::Refuse).unwrap_err();
    assert!(
        e.to_string().contains("exists but takes no new files"),
        "{e}"
    );
}

#[test]
fn unique_names_never_overwrite() {
    let d = dir();
    let files: &[(&str, &[u8])] = &[("txt", b"one"), ("svg", b"<svg/>")];
    let a = write_unique(d.path(), "shot", files).unwrap();
    let b = write_unique(d.path(), "shot", &[("txt", b"two"), ("svg", b"<svg/>")]).unwrap();
    assert_eq!((a.as_str(), b.as_str()), ("shot", "shot-2"));
    assert_eq!(fs::read(d.path().join("shot.txt")).unwrap(), b"one");
    assert_eq!(fs::read(d.path().join("shot-2.txt")).unwrap(), b"two");
    // A planted link at the next name is skipped, not written through.
    let victim = d.path().join("victim");
    fs::write(&victim, "precious").unwrap();
    std::os::unix::fs::symlink(&victim, d.path().join("shot-3.svg")).unwrap();
    let c = write_unique(d.path(), "shot", files).unwrap();
    assert_eq!(c, "shot-4");
    assert_eq!(fs::read(&victim).unwrap(), b"precious");
}
