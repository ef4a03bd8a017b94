//! Which build of pario a rank runs, and the start-up check that every rank
//! of a job runs the same one.
//!
//! A job whose ranks run different builds (a node with an older install,
//! a job script naming two copies) cannot be trusted to agree on a single
//! message: a changed wire format or collective sequence would hang or
//! corrupt it. So the first thing a program does after MPI's start is
//! [`check_same_build`]: one all-reduce of two integers and, only when
//! they differ, one gather of each rank's description to rank 0. Those
//! two collectives are the whole protocol, and they must stay as they are
//! for the check to work between an old build and a new one.
//!
//! A build is named by the workspace version and the binary's ELF build
//! id (`.note.gnu.build-id`, a hash the linker computes over the linked
//! program: two builds that differ in any code differ in it, two builds of
//! the same inputs agree). It is read from the executable's program
//! headers and notes at start-up, a few kilobytes, not the whole file. A
//! binary without one (linked without `--build-id`, not ELF) is named by
//! its size instead, a weaker identity that [`BuildIdentity::text`] says.

use crate::{Comm, ReduceOp};
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

/// ELF note type of the GNU build id.
const NT_GNU_BUILD_ID: u32 = 3;
/// ELF program header type of a note segment.
const PT_NOTE: u32 = 4;
/// The most bytes of one note segment read (build ids are 8 to 64 bytes).
const MAX_NOTES: u64 = 64 * 1024;

/// What one process says about its build.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuildIdentity {
    /// `ior 0.1.0 (build 7d85f227...)`: the program's file name, the
    /// version and the whole build id (two builds may share its start).
    pub text: String,
    /// The value the ranks compare: of the version and the whole build id
    /// (not of the file name: two copies of one build agree).
    pub hash: u64,
}

impl BuildIdentity {
    /// The running program's identity (`version`: the workspace version).
    pub fn current(version: &str) -> BuildIdentity {
        let exe = std::env::current_exe().ok();
        let name = exe
            .as_deref()
            .and_then(Path::file_name)
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "pario".to_string());
        let id = exe
            .as_deref()
            .and_then(|p| elf_build_id(p).map(|(_, id)| id));
        let size = exe
            .as_deref()
            .and_then(|p| std::fs::metadata(p).ok())
            .map(|m| m.len());
        BuildIdentity::new(&name, version, id.as_deref(), size)
    }

    /// The identity of program `name` of `version` with build id `id`
    /// (`size`: the executable's length, used when it has no build id).
    pub fn new(name: &str, version: &str, id: Option<&[u8]>, size: Option<u64>) -> BuildIdentity {
        match id {
            Some(id) => {
                let hex: String = id.iter().map(|b| format!("{b:02x}")).collect();
                BuildIdentity {
                    text: format!("{name} {version} (build {hex})"),
                    hash: fnv1a(format!("{version} {hex}").as_bytes()),
                }
            }
            None => {
                let size = size.map_or("unknown".to_string(), |s| s.to_string());
                BuildIdentity {
                    text: format!("{name} {version} (no build id, {size} bytes)"),
                    hash: fnv1a(format!("{version} size {size}").as_bytes()),
                }
            }
        }
    }
}

/// FNV-1a, 64 bits: a stable hash (std's may change between Rust versions,
/// and two builds made by different compilers must still agree).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// Collective, the first one after MPI's start: `Ok` when every rank's
/// build is `mine`'s; otherwise `Err` on every rank, holding on rank 0 one
/// line naming each build and where it runs (`None` on the others).
pub fn check_same_build(comm: &dyn Comm, mine: &BuildIdentity) -> Result<(), Option<String>> {
    let h = mine.hash;
    let least = comm.all_reduce_u64(&[h, !h], ReduceOp::Min);
    // least[0] is the smallest hash, !least[1] the largest.
    if least[0] == !least[1] {
        return Ok(());
    }
    let mut framed = h.to_le_bytes().to_vec();
    framed.extend_from_slice(mine.text.as_bytes());
    Err(comm
        .gather_bytes(0, &framed)
        .map(|all| describe_builds(&all)))
}

/// The builds of the gathered ranks (each an 8-byte hash and its text),
/// in the order of their first rank: `A on 3 ranks (first: rank 0), B on
/// 1 rank (first: rank 2)`.
fn describe_builds(all: &[Vec<u8>]) -> String {
    let mut groups: Vec<(u64, String, usize, usize)> = Vec::new();
    for (rank, framed) in all.iter().enumerate() {
        let (hash, text) = match framed.split_at_checked(8) {
            Some((h, t)) => (
                u64::from_le_bytes(h.try_into().unwrap_or_default()),
                String::from_utf8_lossy(t).into_owned(),
            ),
            None => (0, "an unreadable build".to_string()),
        };
        match groups.iter_mut().find(|g| g.0 == hash) {
            Some(g) => g.2 += 1,
            None => groups.push((hash, text, 1, rank)),
        }
    }
    let parts: Vec<String> = groups
        .iter()
        .map(|(_, text, n, first)| {
            let s = if *n == 1 { "" } else { "s" };
            format!("{text} on {n} rank{s} (first: rank {first})")
        })
        .collect();
    parts.join(", ")
}

/// The GNU build id of the ELF file at `path`: the file offset of its
/// bytes and the bytes. `None` when the file is not ELF or has none.
pub fn elf_build_id(path: &Path) -> Option<(u64, Vec<u8>)> {
    let mut f = std::fs::File::open(path).ok()?;
    let head = read_at(&mut f, 0, 64)?;
    let elf = Elf::from_header(&head)?;
    let (phoff, phentsize, phnum) = elf.program_headers(&head)?;
    for i in 0..u64::from(phnum) {
        let ph = read_at(
            &mut f,
            phoff + i * u64::from(phentsize),
            usize::from(phentsize),
        )?;
        if elf.u32(&ph, 0)? != PT_NOTE {
            continue;
        }
        let (offset, size, align) = elf.note_segment(&ph)?;
        let notes = read_at(&mut f, offset, size.min(MAX_NOTES) as usize)?;
        if let Some((at, id)) = elf.find_build_id(&notes, align) {
            return Some((offset + at as u64, id));
        }
    }
    None
}

/// `len` bytes of `f` from `offset`; `None` when the file is shorter.
fn read_at(f: &mut std::fs::File, offset: u64, len: usize) -> Option<Vec<u8>> {
    f.seek(SeekFrom::Start(offset)).ok()?;
    let mut buf = vec![0u8; len];
    f.read_exact(&mut buf).ok()?;
    Some(buf)
}

/// How an ELF file lays out its numbers: 32 or 64 bits, which byte order.
struct Elf {
    wide: bool,
    little: bool,
}

impl Elf {
    fn from_header(head: &[u8]) -> Option<Elf> {
        if head.get(..4)? != b"\x7fELF" {
            return None;
        }
        let wide = match head.get(4)? {
            1 => false,
            2 => true,
            _ => return None,
        };
        let little = match head.get(5)? {
            1 => true,
            2 => false,
            _ => return None,
        };
        Some(Elf { wide, little })
    }

    fn u16(&self, b: &[u8], at: usize) -> Option<u16> {
        let a: [u8; 2] = b.get(at..at + 2)?.try_into().ok()?;
        Some(if self.little {
            u16::from_le_bytes(a)
        } else {
            u16::from_be_bytes(a)
        })
    }

    fn u32(&self, b: &[u8], at: usize) -> Option<u32> {
        let a: [u8; 4] = b.get(at..at + 4)?.try_into().ok()?;
        Some(if self.little {
            u32::from_le_bytes(a)
        } else {
            u32::from_be_bytes(a)
        })
    }

    /// A file offset or size: 8 bytes in a 64-bit file, 4 in a 32-bit one.
    fn word(&self, b: &[u8], at: usize) -> Option<u64> {
        if !self.wide {
            return self.u32(b, at).map(u64::from);
        }
        let a: [u8; 8] = b.get(at..at + 8)?.try_into().ok()?;
        Some(if self.little {
            u64::from_le_bytes(a)
        } else {
            u64::from_be_bytes(a)
        })
    }

    /// The program headers' offset, entry size and count.
    fn program_headers(&self, head: &[u8]) -> Option<(u64, u16, u16)> {
        let (off, size, num) = if self.wide {
            (0x20, 0x36, 0x38)
        } else {
            (0x1c, 0x2a, 0x2c)
        };
        let entsize = self.u16(head, size)?;
        (entsize > 0).then_some(())?;
        Some((self.word(head, off)?, entsize, self.u16(head, num)?))
    }

    /// A note segment's file offset, size and alignment.
    fn note_segment(&self, ph: &[u8]) -> Option<(u64, u64, u64)> {
        let (off, size, align) = if self.wide {
            (8, 0x20, 0x30)
        } else {
            (4, 0x10, 0x1c)
        };
        Some((
            self.word(ph, off)?,
            self.word(ph, size)?,
            self.word(ph, align)?,
        ))
    }

    /// The GNU build id among `notes` (entries aligned to `align`): its
    /// position in `notes` and its bytes.
    fn find_build_id(&self, notes: &[u8], align: u64) -> Option<(usize, Vec<u8>)> {
        let align = if align == 8 { 8 } else { 4 };
        let pad = |n: usize| n.div_ceil(align) * align;
        let mut at = 0usize;
        while at + 12 <= notes.len() {
            let namesz = self.u32(notes, at)? as usize;
            let descsz = self.u32(notes, at + 4)? as usize;
            let kind = self.u32(notes, at + 8)?;
            let name_at = at + 12;
            let desc_at = name_at.checked_add(pad(namesz))?;
            let end = desc_at.checked_add(pad(descsz))?;
            let name = notes.get(name_at..name_at + namesz)?;
            if kind == NT_GNU_BUILD_ID && name == b"GNU\0" {
                return Some((desc_at, notes.get(desc_at..desc_at + descsz)?.to_vec()));
            }
            at = end;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ThreadComm;

    fn id(name: &str, byte: u8) -> BuildIdentity {
        BuildIdentity::new(name, "0.1.0", Some(&[0xab, 0xcd, byte]), None)
    }

    #[test]
    fn the_same_build_under_two_names_agrees() {
        let results = ThreadComm::run(4, |c| {
            let name = if c.rank() % 2 == 0 { "ior" } else { "ior-copy" };
            check_same_build(c, &id(name, 1))
        });
        assert!(results.iter().all(Result::is_ok), "{results:?}");
    }

    #[test]
    fn different_builds_are_named_on_rank_0_only() {
        let results = ThreadComm::run(4, |c| {
            let byte = if c.rank() == 2 { 2 } else { 1 };
            check_same_build(c, &id("ior", byte))
        });
        assert_eq!(
            results[0],
            Err(Some(
                "ior 0.1.0 (build abcd01) on 3 ranks (first: rank 0), \
                 ior 0.1.0 (build abcd02) on 1 rank (first: rank 2)"
                    .to_string()
            ))
        );
        assert!(results[1..].iter().all(|r| *r == Err(None)), "{results:?}");
    }

    #[test]
    fn versions_that_differ_differ_without_a_build_id() {
        let a = BuildIdentity::new("ior", "0.1.0", None, Some(10));
        let b = BuildIdentity::new("ior", "0.2.0", None, Some(10));
        assert_ne!(a.hash, b.hash);
        assert_eq!(a.text, "ior 0.1.0 (no build id, 10 bytes)");
        let results = ThreadComm::run(2, |c| {
            check_same_build(c, if c.rank() == 0 { &a } else { &b })
        });
        assert!(results[0]
            .as_ref()
            .unwrap_err()
            .as_ref()
            .unwrap()
            .contains("0.2.0"));
    }

    #[test]
    fn the_test_binary_has_a_build_id_that_is_found_in_its_file() {
        let exe = std::env::current_exe().unwrap();
        let Some((at, id)) = elf_build_id(&exe) else {
            // A linker without --build-id: the identity falls back to the size.
            assert!(BuildIdentity::current("0.1.0").text.contains("no build id"));
            return;
        };
        assert!(id.len() >= 8, "{id:?}");
        let bytes = std::fs::read(&exe).unwrap();
        assert_eq!(&bytes[at as usize..at as usize + id.len()], &id[..]);
        assert!(BuildIdentity::current("0.1.0").text.contains("(build "));
    }

    #[test]
    fn a_file_that_is_not_elf_has_no_build_id() {
        let dir = std::env::temp_dir().join(format!("pario-build-id-{}", std::process::id()));
        std::fs::write(&dir, b"#!/bin/sh\necho not elf\n").unwrap();
        assert_eq!(elf_build_id(&dir), None);
        std::fs::remove_file(&dir).unwrap();
        assert_eq!(elf_build_id(Path::new("/no/such/file")), None);
    }
}
