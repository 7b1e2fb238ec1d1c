//! Sizes that come from outside are bounded in bytes: a capture's strings and its decompressed
//! total, the lab's documents one by one and in all. Each case runs the real binary under
//! `prlimit --as` (its address space capped), so memory that grew with the input would fail the
//! run before the bound's message could be printed; the message names the file and the bound,
//! exit 2.

use std::io::Write;
use std::path::Path;
use std::process::Command;

use crate::common::tmux::BIN;

/// `BIN args` under `prlimit --as=bytes` (the address space: what the binary needs to start —
/// its threads, the allocator's reservations — and what the bound lets it hold, far below the
/// input's whole size): exit code and stderr.
pub fn limited(bytes: u64, args: &[&str]) -> (i32, String) {
    let out = Command::new("prlimit")
        .arg(format!("--as={bytes}"))
        .arg("--")
        .arg(BIN)
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// One zstd frame of `bytes`.
fn frame(bytes: &[u8]) -> Vec<u8> {
    zstd::encode_all(bytes, 1).unwrap()
}

/// A capture of `strings` reads whose `db` is a string of `mb` million `x`, zstd-compressed: one
/// frame of 1,000,000 `x` repeated (a reader decodes the frames one after the other), so the
/// file stays small however long its strings.
fn capture_of_long_strings(path: &Path, strings: usize, mb: usize) {
    let header = format!(
        "{{\"kind\":\"shardtop capture\",\"format\":1,\"capturedAtMs\":1764772218123,\
         \"target\":\"mongodb://h:1\",\"serverVersion\":\"8.0.4\",\"reads\":{strings}}}\n"
    );
    let million = frame(&vec![b'x'; 1_000_000]);
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    out.write_all(&frame(header.as_bytes())).unwrap();
    for i in 0..strings {
        out.write_all(&frame(format!("{{\"read\":{i},\"db\":\"").as_bytes()))
            .unwrap();
        for _ in 0..mb {
            out.write_all(&million).unwrap();
        }
        let rest = "\",\"command\":{\"buildInfo\":{\"$numberInt\":\"1\"}},\"reply\":{\"ok\":1}}\n";
        out.write_all(&frame(rest.as_bytes())).unwrap();
    }
    out.flush().unwrap();
}

#[test]
fn a_capture_of_huge_strings_is_refused_at_the_first_naming_the_file_and_the_bound() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("huge.capture.zst");
    // The file: 24 strings of 250 MB (6 GB decompressed, under the old 8 GB bound).
    capture_of_long_strings(&path, 24, 250);
    let size = std::fs::metadata(&path).unwrap().len();
    assert!(size < 2_000_000, "the file is small: {size} bytes");
    let p = path.display().to_string();
    let out = dir.path().join("anon.capture").display().to_string();
    for args in [
        vec!["capture", &p, "-o", &out, "--anonymize"],
        vec!["open", &p, "--json"],
    ] {
        // One line of 250 MB read, then refused: the 6 GB of strings are never held.
        let (code, err) = limited(1_000_000_000, &args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(
            err.contains(&format!(
                "{p}: line 2: a string of 250000000 bytes, longer than 16777216, the most a BSON document holds"
            )),
            "{args:?}: {err}"
        );
        assert!(!err.contains("memory allocation"), "{err}");
    }
    assert!(!Path::new(&out).exists(), "nothing written");
}

#[test]
fn a_capture_past_the_decompressed_bound_is_refused_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("long.capture.zst");
    // 67 strings of 15 MB: each under the string bound, 1.005 GB in all.
    capture_of_long_strings(&path, 67, 15);
    let p = path.display().to_string();
    let out = dir.path().join("anon.capture").display().to_string();
    // What is read is held: 1 GB, then the bound.
    let (code, err) = limited(1_500_000_000, &["capture", &p, "-o", &out, "--anonymize"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(&format!(
            "{p}: more than 1000000000 bytes, the most a capture is read to"
        )),
        "{err}"
    );
}

/// One gzip member of `bytes`.
fn gzip_member(bytes: &[u8]) -> Vec<u8> {
    let mut z = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    z.write_all(bytes).unwrap();
    z.finish().unwrap()
}

/// A mongodump-like `.bson.gz` of `n` documents `{_id: i, k: i % 7, pad: "y" × pad}`: each
/// document's head and tail a gzip member of its own, the padding one member compressed once
/// and repeated (a reader decodes the members one after the other).
fn bson_gz_of_big_documents(path: &Path, n: i32, pad: usize) {
    let padding = gzip_member(&vec![b'y'; pad]);
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    for i in 0..n {
        // `_id` and `k` int32 elements; `pad` a string element of `pad` bytes and its NUL; the
        // document's NUL; the int32 length in front.
        let mut head = Vec::new();
        head.extend_from_slice(b"\x10_id\0");
        head.extend_from_slice(&i.to_le_bytes());
        head.extend_from_slice(b"\x10k\0");
        head.extend_from_slice(&(i % 7).to_le_bytes());
        head.extend_from_slice(b"\x02pad\0");
        head.extend_from_slice(&i32::try_from(pad + 1).unwrap().to_le_bytes());
        let length = i32::try_from(4 + head.len() + pad + 2).unwrap();
        let head = [&length.to_le_bytes()[..], &head].concat();
        out.write_all(&gzip_member(&head)).unwrap();
        out.write_all(&padding).unwrap();
        out.write_all(&gzip_member(b"\0\0")).unwrap();
    }
    out.flush().unwrap();
}

#[test]
fn lab_data_of_big_documents_is_refused_at_the_document_past_the_total() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.bson.gz");
    // The file: 200 documents of 15 MB (3 GB of BSON).
    bson_gz_of_big_documents(&path, 200, 15_000_000);
    let p = path.display().to_string();
    // The documents before the bound are held (the sample of `--suggest`): 1 GB, then refused.
    let (code, err) = limited(1_500_000_000, &["lab", "--data", &p, "--key", "{\"k\": 1}"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(&format!(
            "{p}, document 67: the documents up to this one hold more than 1,000,000,000 bytes of BSON (the lab reads at most 1,000,000,000)"
        )),
        "{err}"
    );
}

#[test]
fn lab_data_of_a_document_over_16_mib_is_refused_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("one.bson.gz");
    bson_gz_of_big_documents(&path, 3, 17_000_000);
    let p = path.display().to_string();
    let (code, err) = limited(1_000_000_000, &["lab", "--data", &p, "--key", "{\"k\": 1}"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(&format!(
            "{p}, document 1: bad length 17000031 (a BSON document is 5 to 16,777,216 bytes)"
        )),
        "{err}"
    );
}

/// `shardtop serve ARGS` on a free loopback port under `prlimit --as=bytes`: the child and its
/// address (from its first line on stderr).
fn serve_limited(bytes: u64, args: &[&str]) -> (std::process::Child, String) {
    let mut limited = Command::new("prlimit");
    limited.arg(format!("--as={bytes}")).arg("--").arg(BIN);
    limited
        .args(["serve", "--listen", "127.0.0.1:0"])
        .args(args);
    crate::common::tmux::spawn_serve(limited)
}

/// The peak resident memory of process `pid` (`VmHWM`), in MB.
fn peak_mb(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let kb: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap();
    kb / 1000
}

#[test]
fn serve_keeps_at_most_max_bytes_and_refuses_a_write_past_it_as_a_server_would() {
    // The case: 40 inserts of three documents of 15 MB (45 MB each, 1.8 GB in all)
    // against the default --max-bytes (512 MiB), the server's address space capped well below.
    let (mut child, addr) = serve_limited(1_500_000_000, &[]);
    let rt = tokio::runtime::Runtime::new().unwrap();
    let (refused, count, pinged) = rt.block_on(async {
        let uri = format!("mongodb://{addr}/?directConnection=true&serverSelectionTimeoutMS=5000");
        let client = mongodb::Client::with_uri_str(&uri).await.unwrap();
        let coll = client.database("big").collection::<bson::Document>("docs");
        let pad = "z".repeat(15_000_000);
        let mut refused = Vec::new();
        for i in 0..40 {
            let docs: Vec<_> = (0..3)
                .map(|j| bson::doc! {"_id": i * 3 + j, "pad": &pad})
                .collect();
            match coll.insert_many(docs).await {
                Ok(_) => {}
                Err(e) => match *e.kind {
                    mongodb::error::ErrorKind::InsertMany(ref m) => {
                        for w in m.write_errors.iter().flatten() {
                            refused.push((w.code, w.message.clone()));
                        }
                    }
                    ref other => panic!("insert {i}: {other:?}"),
                },
            }
        }
        // `count` without a query: answered from the counts, no document copied.
        let count = client
            .database("big")
            .run_command(bson::doc! {"count": "docs"})
            .await
            .unwrap()
            .get_i32("n")
            .unwrap();
        let pinged = client
            .database("admin")
            .run_command(bson::doc! {"ping": 1})
            .await
            .is_ok();
        (refused, count, pinged)
    });
    let peak = peak_mb(child.id());
    child.kill().unwrap();
    child.wait().unwrap();
    eprintln!("serve: {count} documents of 15 MB kept, peak resident {peak} MB");
    // 536,870,912 / 15,000,026 bytes: 35 documents fit — the first 11 inserts and two
    // documents of the 12th; each insert from the 12th on is refused at its first document
    // (ordered), as a write error (a write error has no codeName: `write_ops.cpp`).
    assert_eq!(count, 35, "{refused:?}");
    assert_eq!(refused.len(), 40 - 11);
    for (code, message) in &refused {
        assert_eq!(
            (*code, message.as_str()),
            (146, "-31807: WT_CACHE_FULL: operation would overflow cache")
        );
    }
    assert!(pinged, "serve still answers");
}
