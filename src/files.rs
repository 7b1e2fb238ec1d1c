//! The one writer for every file shardtop writes (a trace of `--record` or `record -o`, an
//! `--export`, the TUI's saved screens).
//!
//! * A name that is not a regular file — a FIFO, a character device such as `/dev/null` or a
//!   terminal, or a link to one, like `/dev/stdout` — is written through, as `tcpdump -w` does,
//!   never replaced by a regular file. So is a name under `/dev/` or `/proc/` (`/dev/stdout`,
//!   `/proc/self/fd/1`), which stands for a descriptor already open even when it is a regular file.
//! * Anything else is written to a temporary file created exclusively (`O_CREAT | O_EXCL`, which
//!   never follows a link planted at its name) beside the target, with an unpredictable name
//!   `NAME.XXXXXX.partial`, and moved to its name only when finished.
//! * An existing file (or a link) at the name is refused unless the caller allows replacing it
//!   (`--force`); the final move then links the new file to its name, which fails if something
//!   appeared there meanwhile, so nothing is overwritten without a word.
//!
//! Owns: creating, writing and finishing an output file. Depends on nothing of the crate; knows no
//! format.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// What to do with a file already at the name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Existing {
    /// Refuse (`io::ErrorKind::AlreadyExists`, the message naming the file).
    Refuse,
    /// Replace it (`--force`): the name then points to the new file; a link at the name is
    /// replaced, never written through.
    Replace,
}

/// What becomes of the temporary file when writing stops before [`OutFile::finish`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unfinished {
    /// Removed: a file is written whole or not at all.
    Remove,
    /// Kept as `NAME.XXXXXX.partial` (a trace readable up to its last flush).
    Keep,
}

/// A file being written.
#[derive(Debug)]
pub struct OutFile {
    file: File,
    target: PathBuf,
    /// The temporary file (`None`: written through the name).
    temp: Option<PathBuf>,
    existing: Existing,
    unfinished: Unfinished,
}

/// The folder a file is created in.
fn folder_of(path: &Path) -> &Path {
    path.parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

fn error(kind: io::ErrorKind, text: String) -> io::Error {
    io::Error::new(kind, text)
}

/// A name under `/dev/` or `/proc/`: a device or an open descriptor (`/dev/stdout`,
/// `/proc/self/fd/1`), written through even when it leads to a regular file.
fn names_a_descriptor(path: &Path) -> bool {
    path.starts_with("/dev") || path.starts_with("/proc")
}

/// Whether `a` and `b` name the same file however they are written (a symbolic link, a hard
/// link, `./a` and `a`): the same device and inode. A path that does not exist is no file.
pub fn same_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (fs::metadata(a), fs::metadata(b)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

/// How `path` would be written: `Ok(true)` through the name, `Ok(false)` through a temporary file
/// (nothing there, or a regular file that `existing` allows replacing). A folder, or an existing
/// file or link with [`Existing::Refuse`], is refused.
pub fn check(path: &Path, existing: Existing) -> io::Result<bool> {
    match fs::metadata(path) {
        Ok(m) if m.is_dir() => Err(error(
            io::ErrorKind::InvalidInput,
            format!("{} is a folder; name a file", path.display()),
        )),
        Ok(m) if !m.file_type().is_file() || names_a_descriptor(path) => Ok(true),
        Ok(_) if existing == Existing::Refuse => Err(exists(path)),
        Ok(_) => Ok(false),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            // Nothing it leads to: a dangling link is still something at the name.
            if existing == Existing::Refuse && fs::symlink_metadata(path).is_ok() {
                Err(exists(path))
            } else {
                Ok(false)
            }
        }
        Err(e) => Err(error(e.kind(), format!("{}: {e}", path.display()))),
    }
}

fn exists(path: &Path) -> io::Error {
    error(
        io::ErrorKind::AlreadyExists,
        format!(
            "{} already exists; give --force to replace it",
            path.display()
        ),
    )
}

impl OutFile {
    /// Opens `path` for writing (see the module's rules).
    pub fn create(path: &Path, existing: Existing, unfinished: Unfinished) -> io::Result<Self> {
        if check(path, existing)? {
            let file = OpenOptions::new()
                .write(true)
                .truncate(true)
                .open(path)
                .map_err(|e| error(e.kind(), format!("{}: {e}", path.display())))?;
            return Ok(Self {
                file,
                target: path.to_path_buf(),
                temp: None,
                existing,
                unfinished,
            });
        }
        let dir = folder_of(path);
        let name = path
            .file_name()
            .map_or_else(|| "shardtop".into(), |n| n.to_string_lossy().into_owned());
        let temp = tempfile::Builder::new()
            .prefix(&format!("{name}."))
            .suffix(".partial")
            .rand_bytes(6)
            .permissions(std::os::unix::fs::PermissionsExt::from_mode(0o644))
            .tempfile_in(dir)
            .map_err(|e| cannot_create(dir, &e))?;
        let (file, temp) = temp.keep().map_err(|e| e.error)?;
        Ok(Self {
            file,
            target: path.to_path_buf(),
            temp: Some(temp),
            existing,
            unfinished,
        })
    }

    /// The temporary file being written (`None` when written through the name).
    pub fn temp_path(&self) -> Option<&Path> {
        self.temp.as_deref()
    }

    /// Flushes and gives the file its name; returns the name.
    pub fn finish(mut self) -> io::Result<PathBuf> {
        self.file.flush()?;
        let Some(temp) = self.temp.take() else {
            return Ok(self.target.clone());
        };
        let placed = match self.existing {
            Existing::Replace => fs::rename(&temp, &self.target),
            // A hard link fails if anything is at the name: no overwrite, even in a race.
            Existing::Refuse => match fs::hard_link(&temp, &self.target) {
                Ok(()) => fs::remove_file(&temp),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Err(exists(&self.target)),
                // A file system without hard links: check, then move.
                Err(_) if fs::symlink_metadata(&self.target).is_ok() => Err(exists(&self.target)),
                Err(_) => fs::rename(&temp, &self.target),
            },
        };
        match placed {
            Ok(()) => Ok(self.target.clone()),
            Err(e) => {
                let kept = self.unfinished == Unfinished::Keep;
                let text = if kept {
                    format!("{e} (what was written is kept in {})", temp.display())
                } else {
                    e.to_string()
                };
                self.temp = Some(temp);
                Err(error(e.kind(), text))
            }
        }
    }
}

/// Why no file can be created in `dir`, in words.
fn cannot_create(dir: &Path, e: &io::Error) -> io::Error {
    let text = match fs::metadata(dir) {
        Err(_) => format!("the folder {} does not exist", dir.display()),
        Ok(m) if !m.is_dir() => format!("{} is not a folder", dir.display()),
        Ok(_) => format!(
            "cannot create a file in the folder {} ({e}); it exists but takes no new files here",
            dir.display()
        ),
    };
    error(e.kind(), text)
}

impl Write for OutFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.file.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

impl Drop for OutFile {
    fn drop(&mut self) {
        if let Some(temp) = &self.temp
            && self.unfinished == Unfinished::Remove
        {
            let _ = fs::remove_file(temp);
        }
    }
}

/// Writes `body` to `path` whole or not at all.
pub fn write_whole(path: &Path, body: &[u8], existing: Existing) -> io::Result<PathBuf> {
    let mut out = OutFile::create(path, existing, Unfinished::Remove)?;
    out.write_all(body)?;
    out.finish()
}

/// Writes each `(extension, body)` as `dir/BASE.EXT`, with `BASE` = `stem`, else `stem-2`,
/// `stem-3`…: the first base none of whose files exists, so nothing is overwritten. Returns the
/// base used.
pub fn write_unique(dir: &Path, stem: &str, files: &[(&str, &[u8])]) -> io::Result<String> {
    for n in 1..=1000 {
        let base = if n == 1 {
            stem.to_string()
        } else {
            format!("{stem}-{n}")
        };
        let paths: Vec<PathBuf> = files
            .iter()
            .map(|(ext, _)| dir.join(format!("{base}.{ext}")))
            .collect();
        if paths.iter().any(|p| fs::symlink_metadata(p).is_ok()) {
            continue;
        }
        let mut written = Vec::new();
        let mut taken = false;
        for (p, (_, body)) in paths.iter().zip(files) {
            match write_whole(p, body, Existing::Refuse) {
                Ok(p) => written.push(p),
                // Something appeared at the name meanwhile: the next base.
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                    taken = true;
                    break;
                }
                Err(e) => return Err(e),
            }
        }
        if !taken {
            return Ok(base);
        }
        for p in written {
            let _ = fs::remove_file(p);
        }
    }
    Err(error(
        io::ErrorKind::AlreadyExists,
        format!("{stem}-2 … {stem}-1000 all exist in {}", dir.display()),
    ))
}

#[cfg(test)]
#[path = "files_tests.rs"]
mod tests;
