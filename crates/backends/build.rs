//! Finds the system's parallel HDF5 (1.10 or later, built with MPI) and, when
//! present, sets `cfg(pario_hdf5)`, which builds the HDF5 backend. Looked for
//! in `PARIO_HDF5_LIBDIR`, then through pkg-config (hdf5-openmpi, hdf5-mpi,
//! hdf5), then in the Debian/Fedora locations. `PARIO_NO_HDF5=1` leaves the
//! backend out.
//!
//! Likewise finds libaio (`libaio.so`: Debian's libaio-dev) and sets
//! `cfg(pario_aio)`, which builds the AIO backend: looked for in
//! `PARIO_AIO_LIBDIR`, then where the C compiler finds it, then in the
//! Debian/Fedora locations. `PARIO_NO_AIO=1` leaves it out.
//!
//! Likewise finds PnetCDF (`libpnetcdf.so`: Debian's libpnetcdf-dev) and sets
//! `cfg(pario_ncmpi)`, which builds the NCMPI backend: looked for in
//! `PARIO_PNETCDF_LIBDIR`, then where the C compiler finds it, then in the
//! Debian/Fedora locations. `PARIO_NO_PNETCDF=1` leaves it out.
//!
//! `PARIO_WITHOUT=aio,hdf5,ncmpi,uring` (any of them, or `all`) builds as on a
//! machine without those libraries: the backends stay compiled (their
//! options are accepted) but are not built, and `-a` refuses them in one
//! line naming this variable. io_uring needs no library (the io-uring crate
//! talks to the kernel directly); `uring` in the list makes every run refuse
//! `-a URING` as on a kernel without io_uring. Unknown names fail the build.
//!
//! HDF5 and PnetCDF must be built against the MPI this build uses: two MPI
//! libraries in one process abort at the first call ("Invalid
//! communicator"). The build's MPI is found as rsmpi's probe finds it
//! (`MPI_PKG_CONFIG`'s name, else `$MPICC -show`, default `mpicc`), the
//! library's with `ldd`; when they differ the backend is left out, with a
//! warning. For HDF5 the build's own flavour is looked for first
//! (pkg-config `hdf5-openmpi` or `hdf5-mpich`).
//!
//! Only libaio is linked (it is small and needs nothing else). HDF5 and
//! PnetCDF are not: they pull in some 45 shared libraries (curl, gnutls,
//! Kerberos, gfortran, ...) that every run would map, so the backends load
//! them with dlopen when `-a HDF5` / `-a NCMPI` is chosen (src/dynlib.rs).
//! For each, this script passes to the compiler (`rustc-env`):
//! `PARIO_<LIB>_LIBRARY`, the real file behind the `-dev` symlink found
//! above (so the run time needs no -dev package); `PARIO_<LIB>_SONAME`,
//! that file's ELF soname, read here from its dynamic section (the loader's
//! fallback when the file has moved, e.g. after an upgrade); and
//! `PARIO_<LIB>_PACKAGE`, the package holding it (dpkg or rpm), named in the
//! error when nothing loads. The last two are empty when unknown.

use std::path::{Path, PathBuf};
use std::process::Command;

const KNOWN: &[(&str, &str)] = &[
    (
        "/usr/lib/x86_64-linux-gnu/hdf5/openmpi",
        "/usr/include/hdf5/openmpi",
    ),
    (
        "/usr/lib/aarch64-linux-gnu/hdf5/openmpi",
        "/usr/include/hdf5/openmpi",
    ),
    ("/usr/lib64/openmpi/lib", "/usr/include/openmpi-x86_64"),
    (
        "/usr/lib/x86_64-linux-gnu/hdf5/mpich",
        "/usr/include/hdf5/mpich",
    ),
    (
        "/usr/lib/aarch64-linux-gnu/hdf5/mpich",
        "/usr/include/hdf5/mpich",
    ),
    ("/usr/lib64/mpich/lib", "/usr/include/mpich-x86_64"),
];

/// The MPI implementations whose libraries can be told apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mpi {
    OpenMpi,
    Mpich,
}

impl Mpi {
    fn name(self) -> &'static str {
        match self {
            Mpi::OpenMpi => "Open MPI",
            Mpi::Mpich => "MPICH",
        }
    }
    /// The word in pkg-config names and install paths ("openmpi", "mpich").
    fn word(self) -> &'static str {
        match self {
            Mpi::OpenMpi => "openmpi",
            Mpi::Mpich => "mpich",
        }
    }
    /// Which MPI a link line or `ldd` listing names, if one.
    fn named_in(text: &str) -> Option<Mpi> {
        if text.contains("libmpich") || text.contains("-lmpich") {
            Some(Mpi::Mpich)
        } else if text.contains("libmpi.so") || text.split_whitespace().any(|w| w == "-lmpi") {
            Some(Mpi::OpenMpi)
        } else {
            None
        }
    }
}

/// The MPI this build links, found the way rsmpi's build probe finds it:
/// the pkg-config package `MPI_PKG_CONFIG` names, else `$MPICC -show`
/// (default `mpicc`). None when it cannot be told.
fn build_mpi() -> Option<Mpi> {
    println!("cargo::rerun-if-env-changed=MPI_PKG_CONFIG");
    println!("cargo::rerun-if-env-changed=MPICC");
    if let Ok(pkg) = std::env::var("MPI_PKG_CONFIG") {
        if pkg.contains("mpich") {
            return Some(Mpi::Mpich);
        }
        if let Some(libs) = pkg_config(&["--libs", &pkg]) {
            return Mpi::named_in(&libs).or(Some(Mpi::OpenMpi).filter(|_| pkg.contains("ompi")));
        }
    }
    let mpicc = std::env::var("MPICC").unwrap_or_else(|_| "mpicc".into());
    let out = Command::new(&mpicc).arg("-show").output().ok()?;
    Mpi::named_in(&String::from_utf8_lossy(&out.stdout))
}

/// The MPI the shared library `lib` is linked against (by `ldd`), if any.
fn library_mpi(lib: &Path) -> Option<Mpi> {
    let out = Command::new("ldd").arg(lib).output().ok()?;
    Mpi::named_in(&String::from_utf8_lossy(&out.stdout))
}

/// True when `lib` may be loaded into this build's processes: its MPI and
/// the build's are the same, or one of them cannot be told. Otherwise a
/// warning says why `what` is left out.
fn same_mpi(lib: &Path, build: Option<Mpi>, what: &str) -> bool {
    match (library_mpi(lib), build) {
        (Some(l), Some(b)) if l != b => {
            println!(
                "cargo::warning={} is built against {}, this build uses {}: \
                 the {what} backend is left out",
                lib.display(),
                l.name(),
                b.name()
            );
            false
        }
        _ => true,
    }
}

fn pkg_config(args: &[&str]) -> Option<String> {
    let out = Command::new("pkg-config").args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

fn flag_dirs(text: &str, flag: &str) -> Vec<PathBuf> {
    text.split_whitespace()
        .filter_map(|w| w.strip_prefix(flag))
        .map(PathBuf::from)
        .collect()
}

/// The header says: parallel build, version 1.10 or later (hid_t is 64-bit).
fn usable_headers(include: &Path) -> bool {
    let conf = std::fs::read_to_string(include.join("H5pubconf.h")).unwrap_or_default();
    let public = std::fs::read_to_string(include.join("H5public.h")).unwrap_or_default();
    let define = |name: &str| -> Option<u32> {
        public.lines().find_map(|l| {
            let mut w = l.split_whitespace();
            (w.next() == Some("#define") && w.next() == Some(name))
                .then(|| w.next()?.parse().ok())
                .flatten()
        })
    };
    let parallel = conf
        .lines()
        .any(|l| l.trim_start().starts_with("#define H5_HAVE_PARALLEL 1"));
    let version_ok = match (define("H5_VERS_MAJOR"), define("H5_VERS_MINOR")) {
        (Some(major), Some(minor)) => (major, minor) >= (1, 10),
        _ => false,
    };
    parallel && version_ok
}

fn find(build: Option<Mpi>) -> Option<PathBuf> {
    let has_lib = |d: &Path| d.join("libhdf5.so").exists();
    if let Ok(dir) = std::env::var("PARIO_HDF5_LIBDIR") {
        let dir = PathBuf::from(dir);
        return has_lib(&dir).then_some(dir);
    }
    // The build's own flavour first; a mismatch is caught by `same_mpi`.
    let mut pkgs = vec!["hdf5-openmpi", "hdf5-mpich", "hdf5-mpi", "hdf5"];
    if build == Some(Mpi::Mpich) {
        pkgs.swap(0, 1);
    }
    for pkg in pkgs {
        let (Some(libs), Some(cflags)) = (
            pkg_config(&["--libs-only-L", pkg]),
            pkg_config(&["--cflags-only-I", pkg]),
        ) else {
            continue;
        };
        let includes = flag_dirs(&cflags, "-I");
        if !includes.iter().any(|i| usable_headers(i)) {
            continue;
        }
        if let Some(dir) = flag_dirs(&libs, "-L").into_iter().find(|d| has_lib(d)) {
            return Some(dir);
        }
    }
    let mut known: Vec<&(&str, &str)> = KNOWN.iter().collect();
    if let Some(b) = build {
        // Stable: the build's flavour first, the order otherwise kept.
        known.sort_by_key(|(lib, _)| !lib.contains(b.word()));
    }
    known
        .into_iter()
        .map(|(lib, inc)| (PathBuf::from(lib), PathBuf::from(inc)))
        .find(|(lib, inc)| has_lib(lib) && usable_headers(inc))
        .map(|(lib, _)| lib)
}

const AIO_DIRS: &[&str] = &[
    "/usr/lib/x86_64-linux-gnu",
    "/usr/lib/aarch64-linux-gnu",
    "/usr/lib64",
    "/usr/lib",
    "/lib/x86_64-linux-gnu",
    "/lib/aarch64-linux-gnu",
];

/// The directory holding a linkable libaio.
fn find_aio() -> Option<PathBuf> {
    let has_lib = |d: &Path| d.join("libaio.so").exists();
    if let Ok(dir) = std::env::var("PARIO_AIO_LIBDIR") {
        let dir = PathBuf::from(dir);
        return has_lib(&dir).then_some(dir);
    }
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    if let Ok(out) = Command::new(cc).arg("-print-file-name=libaio.so").output() {
        let p = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        if p.is_absolute() && p.exists() {
            if let Some(dir) = p.parent() {
                return Some(dir.to_path_buf());
            }
        }
    }
    AIO_DIRS.iter().map(PathBuf::from).find(|d| has_lib(d))
}

const PNETCDF_DIRS: &[&str] = &[
    "/usr/lib/x86_64-linux-gnu",
    "/usr/lib/aarch64-linux-gnu",
    "/usr/lib64/openmpi/lib",
    "/usr/lib64",
    "/usr/lib",
];

/// The directory holding a linkable PnetCDF.
fn find_pnetcdf() -> Option<PathBuf> {
    let has_lib = |d: &Path| d.join("libpnetcdf.so").exists();
    let dir = if let Ok(dir) = std::env::var("PARIO_PNETCDF_LIBDIR") {
        Some(PathBuf::from(dir)).filter(|d| has_lib(d))
    } else {
        let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
        Command::new(cc)
            .arg("-print-file-name=libpnetcdf.so")
            .output()
            .ok()
            .map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()))
            .filter(|p| p.is_absolute() && p.exists())
            .and_then(|p| p.parent().map(Path::to_path_buf))
            .or_else(|| PNETCDF_DIRS.iter().map(PathBuf::from).find(|d| has_lib(d)))
    }?;
    Some(dir)
}

/// Pass the library behind `dev_link` (a `-dev` package's `libX.so`) to the
/// compiler as `PARIO_<name>_LIBRARY` (its real file), `PARIO_<name>_SONAME`
/// and `PARIO_<name>_PACKAGE`, for the backend to dlopen at run time. False
/// (with a warning) when the link leads nowhere.
fn record_library(name: &str, dev_link: &Path) -> bool {
    let file = match std::fs::canonicalize(dev_link) {
        Ok(f) => f,
        Err(e) => {
            println!(
                "cargo::warning={}: {e}: the {name} backend is left out",
                dev_link.display()
            );
            return false;
        }
    };
    let soname = std::fs::read(&file)
        .ok()
        .and_then(|bytes| elf_soname(&bytes))
        .unwrap_or_default();
    let package = owning_package(&file).unwrap_or_default();
    println!("cargo::rustc-env=PARIO_{name}_LIBRARY={}", file.display());
    println!("cargo::rustc-env=PARIO_{name}_SONAME={soname}");
    println!("cargo::rustc-env=PARIO_{name}_PACKAGE={package}");
    true
}

/// The DT_SONAME of an ELF shared object (32- or 64-bit, either byte
/// order), found through its section headers: the SHT_DYNAMIC section and
/// the string table its `sh_link` names. None when any of that is missing.
fn elf_soname(b: &[u8]) -> Option<String> {
    const SHT_DYNAMIC: u32 = 6;
    const DT_NULL: u64 = 0;
    const DT_SONAME: u64 = 14;
    if b.get(..4)? != b"\x7fELF" {
        return None;
    }
    let wide = match b.get(4)? {
        1 => false,
        2 => true,
        _ => return None,
    };
    let big = match b.get(5)? {
        1 => false,
        2 => true,
        _ => return None,
    };
    let uint = |at: usize, n: usize| -> Option<u64> {
        let raw = b.get(at..at.checked_add(n)?)?;
        Some(raw.iter().enumerate().fold(0u64, |acc, (i, &byte)| {
            let shift = if big { 8 * (n - 1 - i) } else { 8 * i };
            acc | (u64::from(byte) << shift)
        }))
    };
    let word = if wide { 8 } else { 4 };
    let to_usize = |v: u64| usize::try_from(v).ok();
    // e_shoff, e_shentsize, e_shnum.
    let (shoff, shentsize, shnum) = if wide {
        (uint(0x28, 8)?, uint(0x3A, 2)?, uint(0x3C, 2)?)
    } else {
        (uint(0x20, 4)?, uint(0x2E, 2)?, uint(0x30, 2)?)
    };
    let (shoff, shentsize) = (to_usize(shoff)?, to_usize(shentsize)?);
    // sh_type, sh_offset, sh_size, sh_link of section `i`.
    let section = |i: usize| -> Option<(u32, usize, usize, usize)> {
        let h = shoff.checked_add(i.checked_mul(shentsize)?)?;
        // Inside the file, so the offsets below cannot overflow.
        b.get(h..h.checked_add(shentsize)?)?;
        let (off, size, link) = if wide {
            (uint(h + 0x18, 8)?, uint(h + 0x20, 8)?, uint(h + 0x28, 4)?)
        } else {
            (uint(h + 0x10, 4)?, uint(h + 0x14, 4)?, uint(h + 0x18, 4)?)
        };
        Some((
            u32::try_from(uint(h + 4, 4)?).ok()?,
            to_usize(off)?,
            to_usize(size)?,
            to_usize(link)?,
        ))
    };
    let (dyn_off, dyn_size, strtab) = (0..to_usize(shnum)?)
        .filter_map(section)
        .find(|s| s.0 == SHT_DYNAMIC)
        .map(|(_, off, size, link)| (off, size, link))?;
    let (_, str_off, str_size, _) = section(strtab)?;
    let strings = b.get(str_off..str_off.checked_add(str_size)?)?;
    b.get(dyn_off..dyn_off.checked_add(dyn_size)?)?;
    let entries = (0..dyn_size / (2 * word)).map(|i| dyn_off + i * 2 * word);
    for at in entries {
        let tag = uint(at, word)?;
        if tag == DT_NULL {
            break;
        }
        if tag == DT_SONAME {
            let name = strings.get(to_usize(uint(at + word, word)?)?..)?;
            let end = name.iter().position(|&c| c == 0)?;
            return String::from_utf8(name[..end].to_vec()).ok();
        }
    }
    None
}

/// The distribution package that installed `file` (dpkg, then rpm).
fn owning_package(file: &Path) -> Option<String> {
    let run = |cmd: &str, args: &[&str]| -> Option<String> {
        let out = Command::new(cmd).args(args).arg(file).output().ok()?;
        out.status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
    };
    // "libhdf5-openmpi-103-1:amd64: /usr/lib/...": the name before the arch.
    let from_dpkg = || {
        let text = run("dpkg-query", &["-S"])?;
        let first = text.lines().next()?;
        let name = first.split(':').next()?.trim();
        (!name.is_empty()).then(|| name.to_string())
    };
    let from_rpm = || {
        let text = run("rpm", &["-qf", "--queryformat", "%{NAME}"])?;
        let name = text.trim();
        (!name.is_empty() && !name.contains(' ')).then(|| name.to_string())
    };
    from_dpkg().or_else(from_rpm)
}

/// The optional libraries the build may go without, as `PARIO_WITHOUT`
/// names them: (name, also accepted as, the older `PARIO_NO_*` variable,
/// the backend's `rustc-env` prefix).
const OPTIONAL: &[(&str, &str, &str, &str)] = &[
    ("aio", "libaio", "PARIO_NO_AIO", "AIO"),
    ("hdf5", "hdf5", "PARIO_NO_HDF5", "HDF5"),
    ("ncmpi", "pnetcdf", "PARIO_NO_PNETCDF", "PNETCDF"),
    ("uring", "io_uring", "", ""),
];

/// Whether the build was told to go without `name` (`PARIO_WITHOUT=aio,hdf5`
/// or the older `PARIO_NO_AIO=1`); when so, says why in the backend's
/// refusal (`PARIO_<PREFIX>_ABSENT`).
fn without(name: &str) -> bool {
    let list = std::env::var("PARIO_WITHOUT").unwrap_or_default();
    let &(_, alias, old, prefix) = OPTIONAL
        .iter()
        .find(|o| o.0 == name)
        .expect("a known library");
    let listed = list
        .split(',')
        .map(|w| w.trim().to_ascii_lowercase())
        .any(|w| w == name || w == alias || w == "all");
    let old_set = !old.is_empty() && std::env::var(old).is_ok_and(|v| !v.is_empty() && v != "0");
    if (listed || old_set) && !prefix.is_empty() {
        let by = if listed {
            format!("PARIO_WITHOUT={list}")
        } else {
            format!("{old}=1")
        };
        println!("cargo::rustc-env=PARIO_{prefix}_ABSENT=left out of this build ({by})");
    }
    listed || old_set
}

/// Refuse names `PARIO_WITHOUT` does not know (a typo would silently build
/// with the library).
fn check_without() {
    println!("cargo::rerun-if-env-changed=PARIO_WITHOUT");
    let list = std::env::var("PARIO_WITHOUT").unwrap_or_default();
    for w in list.split(',').map(str::trim).filter(|w| !w.is_empty()) {
        let w = w.to_ascii_lowercase();
        if w != "all" && !OPTIONAL.iter().any(|o| o.0 == w || o.1 == w) {
            panic!(
                "PARIO_WITHOUT={list}: unknown library '{w}' (known: aio, hdf5, ncmpi, uring, all)"
            );
        }
    }
}

fn main() {
    check_without();
    // io_uring needs no library (the io-uring crate is pure Rust): going
    // without it means a kernel that refuses it, which the backend detects
    // at run time; PARIO_WITHOUT=uring gives that refusal in every run.
    println!("cargo::rustc-check-cfg=cfg(pario_without_uring)");
    if without("uring") {
        println!("cargo::rustc-cfg=pario_without_uring");
    }
    let build = build_mpi();
    println!("cargo::rustc-check-cfg=cfg(pario_ncmpi)");
    println!("cargo::rerun-if-env-changed=PARIO_NO_PNETCDF");
    println!("cargo::rerun-if-env-changed=PARIO_PNETCDF_LIBDIR");
    if !without("ncmpi") {
        if let Some(dir) = find_pnetcdf() {
            let lib = dir.join("libpnetcdf.so");
            if same_mpi(&lib, build, "NCMPI") && record_library("PNETCDF", &lib) {
                println!("cargo::rustc-cfg=pario_ncmpi");
            }
        }
    }
    println!("cargo::rustc-check-cfg=cfg(pario_aio)");
    println!("cargo::rerun-if-env-changed=PARIO_NO_AIO");
    println!("cargo::rerun-if-env-changed=PARIO_AIO_LIBDIR");
    if !without("aio") {
        if let Some(dir) = find_aio() {
            // System directories are searched by the linker anyway.
            if std::env::var_os("PARIO_AIO_LIBDIR").is_some() {
                println!("cargo::rustc-link-search=native={}", dir.display());
            }
            println!("cargo::rustc-link-lib=dylib=aio");
            println!("cargo::rustc-cfg=pario_aio");
        }
    }
    println!("cargo::rustc-check-cfg=cfg(pario_hdf5)");
    println!("cargo::rerun-if-env-changed=PARIO_NO_HDF5");
    println!("cargo::rerun-if-env-changed=PARIO_HDF5_LIBDIR");
    println!("cargo::rerun-if-changed=build.rs");
    if without("hdf5") {
        return;
    }
    if let Some(dir) = find(build) {
        let lib = dir.join("libhdf5.so");
        if same_mpi(&lib, build, "HDF5") && record_library("HDF5", &lib) {
            println!("cargo::rustc-cfg=pario_hdf5");
        }
    }
}
