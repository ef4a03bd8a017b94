//! Paths a benchmark must not read from, write to or replace: device
//! nodes, FIFOs and sockets (and, for outputs, symbolic links and
//! directories). One place for every front end and subcommand:
//!
//! * [`special_kind`] / [`special_file`] name the kind of a special file;
//! * [`read_regular`] reads an input (a deck, a `-setup` file, a suite, a
//!   file to import) only when it is a regular file: it opens with
//!   `O_NONBLOCK`, so a FIFO without a writer cannot block the open, and
//!   checks the opened file with `fstat`, so nothing is swapped in between;
//! * [`replaceable`] says whether an output path may be replaced (absent or
//!   a regular file), which `record_io::write_atomically` checks before its
//!   rename.

use std::io::Read;
use std::path::Path;

/// What a file type is when it is neither a regular file, a directory nor
/// a symbolic link: "character device", "block device", "FIFO", "socket".
pub fn special_kind(t: &std::fs::FileType) -> Option<&'static str> {
    use std::os::unix::fs::FileTypeExt;
    if t.is_char_device() {
        Some("character device")
    } else if t.is_block_device() {
        Some("block device")
    } else if t.is_fifo() {
        Some("FIFO")
    } else if t.is_socket() {
        Some("socket")
    } else {
        None
    }
}

/// The kind of special file at `path` (symbolic links followed), if it is
/// one: benchmarks must not write to, read from or remove device nodes,
/// FIFOs or sockets. None for regular files, directories and missing paths.
pub fn special_file(path: &Path) -> Option<&'static str> {
    std::fs::metadata(path)
        .ok()
        .and_then(|m| special_kind(&m.file_type()))
}

/// What a file type is in a refusal: its special kind, "directory",
/// "symbolic link", or None for a regular file.
fn not_regular(t: &std::fs::FileType) -> Option<&'static str> {
    if t.is_file() {
        None
    } else if t.is_dir() {
        Some("directory")
    } else if t.is_symlink() {
        Some("symbolic link")
    } else {
        Some(special_kind(t).unwrap_or("special file"))
    }
}

fn refused(kind: &str, what: &str) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidInput,
        format!("is a {kind}, not a regular file: {what}"),
    )
}

/// The contents of `path` when it is a regular file (symbolic links
/// followed). A FIFO, device, socket or directory is an error
/// (`InvalidInput`, "is a FIFO, not a regular file: ...") and is never
/// waited on or read; the caller puts the path in front of the message.
pub fn read_regular(path: &Path) -> std::io::Result<Vec<u8>> {
    use std::os::unix::fs::OpenOptionsExt;
    let what = "refusing to read it";
    // A socket cannot be opened at all (ENXIO): say what it is instead.
    if let Some(kind) = std::fs::metadata(path)
        .ok()
        .and_then(|m| not_regular(&m.file_type()))
    {
        return Err(refused(kind, what));
    }
    let mut f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)?;
    // What was opened, not what the name pointed at a moment ago.
    if let Some(kind) = not_regular(&f.metadata()?.file_type()) {
        return Err(refused(kind, what));
    }
    let mut bytes = Vec::new();
    f.read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// [`read_regular`] as text (invalid UTF-8 is an error, as with
/// `std::fs::read_to_string`).
pub fn read_regular_to_string(path: &Path) -> std::io::Result<String> {
    String::from_utf8(read_regular(path)?)
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
}

/// Whether an output may be written at `path`: Ok when nothing is there or
/// a regular file is (not through a symbolic link); an error
/// (`InvalidInput`, "is a FIFO, not a regular file: not replaced") for a
/// device node, FIFO, socket, symbolic link or directory.
pub fn replaceable(path: &Path) -> std::io::Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(m) => match not_regular(&m.file_type()) {
            Some(kind) => Err(refused(kind, "not replaced")),
            None => Ok(()),
        },
        Err(_) => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    fn dir() -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!(
            "pario-special-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn a_fifo_without_a_writer_is_refused_without_blocking() {
        let d = dir();
        let fifo = d.join("fifo");
        assert!(Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success());
        let e = read_regular(&fifo).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::InvalidInput);
        assert!(e.to_string().contains("is a FIFO"), "{e}");
        // Through a symbolic link too.
        let link = d.join("link");
        std::os::unix::fs::symlink(&fifo, &link).unwrap();
        assert!(read_regular(&link)
            .unwrap_err()
            .to_string()
            .contains("FIFO"));
        assert!(read_regular(&d)
            .unwrap_err()
            .to_string()
            .contains("directory"));
        let f = d.join("f");
        std::fs::write(&f, "text").unwrap();
        assert_eq!(read_regular_to_string(&f).unwrap(), "text");
        assert!(read_regular(&d.join("missing")).is_err());
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn only_absent_paths_and_regular_files_are_replaceable() {
        let d = dir();
        let fifo = d.join("fifo");
        assert!(Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success());
        let f = d.join("f");
        std::fs::write(&f, "x").unwrap();
        let link = d.join("link");
        std::os::unix::fs::symlink(&f, &link).unwrap();
        assert!(replaceable(&d.join("missing")).is_ok());
        assert!(replaceable(&f).is_ok());
        assert!(replaceable(&fifo).unwrap_err().to_string().contains("FIFO"));
        let e = replaceable(&link).unwrap_err().to_string();
        assert!(
            e.contains("symbolic link") && e.contains("not replaced"),
            "{e}"
        );
        assert!(replaceable(&d)
            .unwrap_err()
            .to_string()
            .contains("directory"));
        std::fs::remove_dir_all(&d).unwrap();
    }
}
