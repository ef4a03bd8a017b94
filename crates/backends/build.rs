//! Finds the system's parallel HDF5 (1.10 or later, built with MPI) and, when
//! present, links it and sets `cfg(pario_hdf5)`, which builds the HDF5
//! backend. Looked for in `PARIO_HDF5_LIBDIR`, then through pkg-config
//! (hdf5-openmpi, hdf5-mpi, hdf5), then in the Debian/Fedora locations.
//! `PARIO_NO_HDF5=1` leaves the backend out.
//!
//! Likewise finds libaio (`libaio.so`: Debian's libaio-dev) and sets
//! `cfg(pario_aio)`, which builds the AIO backend: looked for in
//! `PARIO_AIO_LIBDIR`, then where the C compiler finds it, then in the
//! Debian/Fedora locations. `PARIO_NO_AIO=1` leaves it out.
//!
//! Likewise finds PnetCDF (`libpnetcdf.so`: Debian's libpnetcdf-dev) and sets
//! `cfg(pario_ncmpi)`, which builds the NCMPI backend: looked for in
//! `PARIO_PNETCDF_LIBDIR`, then where the C compiler finds it, then in the
//! Debian/Fedora locations. The library must be built against the MPI pario
//! uses (Open MPI): one linked against MPICH is left out, with a warning.
//! `PARIO_NO_PNETCDF=1` leaves it out.

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
];

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

fn find() -> Option<PathBuf> {
    let has_lib = |d: &Path| d.join("libhdf5.so").exists();
    if let Ok(dir) = std::env::var("PARIO_HDF5_LIBDIR") {
        let dir = PathBuf::from(dir);
        return has_lib(&dir).then_some(dir);
    }
    for pkg in ["hdf5-openmpi", "hdf5-mpi", "hdf5"] {
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
    KNOWN
        .iter()
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

/// The directory holding a linkable PnetCDF built against Open MPI.
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
    // Which MPI the library was linked against: mixing MPI ABIs crashes.
    if let Ok(out) = Command::new("ldd").arg(dir.join("libpnetcdf.so")).output() {
        let text = String::from_utf8_lossy(&out.stdout);
        if text.contains("libmpich") {
            println!(
                "cargo::warning=PnetCDF in {} is built against MPICH, not Open MPI: \
                 the NCMPI backend is left out",
                dir.display()
            );
            return None;
        }
    }
    Some(dir)
}

fn main() {
    println!("cargo::rustc-check-cfg=cfg(pario_ncmpi)");
    println!("cargo::rerun-if-env-changed=PARIO_NO_PNETCDF");
    println!("cargo::rerun-if-env-changed=PARIO_PNETCDF_LIBDIR");
    let no_ncmpi = std::env::var("PARIO_NO_PNETCDF").is_ok_and(|v| !v.is_empty() && v != "0");
    if !no_ncmpi {
        if let Some(dir) = find_pnetcdf() {
            // As for libaio: system directories are searched anyway.
            if !AIO_DIRS.iter().any(|d| Path::new(d) == dir) {
                println!("cargo::rustc-link-search=native={}", dir.display());
            }
            println!("cargo::rustc-link-lib=dylib=pnetcdf");
            println!("cargo::rustc-cfg=pario_ncmpi");
        }
    }
    println!("cargo::rustc-check-cfg=cfg(pario_aio)");
    println!("cargo::rerun-if-env-changed=PARIO_NO_AIO");
    println!("cargo::rerun-if-env-changed=PARIO_AIO_LIBDIR");
    let no_aio = std::env::var("PARIO_NO_AIO").is_ok_and(|v| !v.is_empty() && v != "0");
    if !no_aio {
        if let Some(dir) = find_aio() {
            // System directories are searched by the linker anyway; naming
            // them here could put them before HDF5's own directory.
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
    let off = std::env::var("PARIO_NO_HDF5").is_ok_and(|v| !v.is_empty() && v != "0");
    if off {
        return;
    }
    if let Some(dir) = find() {
        println!("cargo::rustc-link-search=native={}", dir.display());
        println!("cargo::rustc-link-lib=dylib=hdf5");
        println!("cargo::rustc-cfg=pario_hdf5");
    }
}
