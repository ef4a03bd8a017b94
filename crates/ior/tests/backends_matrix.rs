//! Every backend end to end under mpirun with 2 and 4 ranks: shared file and
//! file per process, sequential and random offsets (where the backend has
//! them), each with write-check and read-check (-W -R), as one deck per
//! backend and rank count; files written by one backend and verified through
//! another; the stonewall of collective transfers; and the combinations that
//! are refused, each with a one-line error.

mod common;
use common::*;
use pario_backends::available_apis;

/// Sizes kept tiny: the whole matrix runs in well under a minute.
const GEOMETRY: [&str; 8] = ["-t", "4k", "-b", "32k", "-s", "2", "-G", "77"];

/// One deck: the command line's settings, then each (filePerProc,
/// randomOffset) combination as a test.
fn deck(combos: &[(bool, bool)]) -> String {
    let mut d = String::from("IOR START\n");
    for (fpp, random) in combos {
        d.push_str(&format!(
            "  filePerProc={}\n  randomOffset={}\nRUN\n",
            u8::from(*fpp),
            u8::from(*random)
        ));
    }
    d.push_str("IOR STOP\n");
    d
}

fn built(api: &str) -> bool {
    available_apis().iter().any(|(n, b)| *b && *n == api)
}

/// Whether `api` can run here. When not, a skipped part must not pass
/// silently: see `pario_testkit::cannot_run` (a failure under CI unless the
/// build leaves `api` out on purpose, a visible "skipped" line elsewhere).
fn usable(api: &str) -> bool {
    let why = if !built(api) {
        Some("this build does not have it (build.rs did not find its library)".to_string())
    } else if api == "URING" {
        pario_backends::uring::probe().err()
    } else if api == "AIO" {
        pario_backends::aio::probe().err()
    } else {
        None
    };
    match why {
        None => true,
        Some(why) => {
            pario_testkit::cannot_run(api, &format!("-a {api}"), &why);
            false
        }
    }
}

/// Run `api` (with `extra` options) over `combos` on `np` ranks; every test
/// must pass its checks and leave no file behind.
fn run_matrix(np: u32, api: &str, extra: &[&str], combos: &[(bool, bool)]) {
    let dir = tempfile::tempdir().unwrap();
    let deck_path = dir.path().join("matrix.ior");
    std::fs::write(&deck_path, deck(combos)).unwrap();
    let o = dir.path().join("m").display().to_string();
    let d = deck_path.display().to_string();
    let mut args = vec!["-a", api, "-w", "-r", "-W", "-R", "--random-offset-seed=9"];
    args.extend(extra);
    args.extend(GEOMETRY);
    args.extend(["-o", &o, "-f", &d]);
    let r = ior(np, dir.path(), &args);
    let what = format!("-np {np} -a {api} {extra:?}");
    assert!(r.ok(), "{what}\n{}", r.both());
    // A results row and a summary row per test.
    let rows = r.stdout.lines().filter(|l| l.starts_with("write ")).count();
    assert_eq!(rows, 2 * combos.len(), "{what}\n{}", r.stdout);
    assert!(!r.stderr.contains("verification"), "{what}\n{}", r.stderr);
    let left: Vec<_> = files_in(dir.path())
        .into_iter()
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with('m'))
        })
        .filter(|p| !p.ends_with("matrix.ior"))
        .collect();
    assert!(left.is_empty(), "{what}: files left: {left:?}");
}

const ALL: [(bool, bool); 4] = [(false, false), (false, true), (true, false), (true, true)];
const SEQUENTIAL: [(bool, bool); 2] = [(false, false), (true, false)];

#[test]
fn posix_mmap_and_async_backends() {
    for np in [2, 4] {
        run_matrix(np, "POSIX", &[], &ALL);
        run_matrix(np, "MMAP", &[], &ALL);
        if usable("URING") {
            run_matrix(np, "URING", &["--uring.depth=8"], &ALL);
        }
        if usable("AIO") {
            run_matrix(np, "AIO", &[], &ALL);
        }
    }
}

#[test]
fn mpiio_independent_and_collective() {
    for np in [2, 4] {
        run_matrix(np, "MPIIO", &[], &ALL);
        run_matrix(np, "MPIIO", &["-c"], &ALL);
        // Per-rank file views, collective, with reordered reads (-C).
        run_matrix(np, "MPIIO", &["-c", "-V", "-C"], &SEQUENTIAL);
    }
}

#[test]
fn hdf5_and_pnetcdf() {
    for np in [2, 4] {
        if usable("HDF5") {
            run_matrix(np, "HDF5", &[], &SEQUENTIAL);
            run_matrix(np, "HDF5", &["-c"], &SEQUENTIAL);
            run_matrix(np, "HDF5", &["-c", "-I", "-C"], &[(false, false)]);
        }
        if usable("NCMPI") {
            run_matrix(np, "NCMPI", &[], &[(false, false)]);
            run_matrix(np, "NCMPI", &["-c", "-C"], &[(false, false)]);
        }
    }
}

/// Write with one backend (keeping the file), read and check with another.
fn cross(writer: &[&str], reader: &[&str], fpp: bool) {
    let dir = tempfile::tempdir().unwrap();
    let o = dir.path().join("x").display().to_string();
    let mut w = writer.to_vec();
    w.extend(["-w", "-k"]);
    let mut r = reader.to_vec();
    r.extend(["-r", "-R", "-k"]);
    for args in [&mut w, &mut r] {
        args.extend(GEOMETRY);
        if fpp {
            args.push("-F");
        }
        args.extend(["-o", &o]);
    }
    let run = ior(2, dir.path(), &w);
    assert!(run.ok(), "{w:?}\n{}", run.both());
    let run = ior(2, dir.path(), &r);
    assert!(run.ok(), "{r:?}\n{}", run.both());
    // The check does look at the data: another signature fails it.
    let mut bad = r.clone();
    let g = bad.iter().position(|a| *a == "77").unwrap();
    bad[g] = "78";
    let run = ior(2, dir.path(), &bad);
    assert_eq!(run.status, Some(3), "{bad:?}\n{}", run.both());
    assert!(
        run.stderr.contains("failed data verification"),
        "{}",
        run.both()
    );
}

#[test]
fn files_cross_backends() {
    cross(&["-a", "POSIX"], &["-a", "MPIIO"], false);
    cross(&["-a", "MPIIO", "-c"], &["-a", "POSIX"], false);
    if usable("URING") {
        cross(&["-a", "URING"], &["-a", "POSIX"], true);
    }
}

#[test]
fn collective_transfers_stop_together_at_the_stonewall() {
    let mut apis = vec!["MPIIO"];
    apis.extend(["HDF5", "NCMPI"].into_iter().filter(|a| usable(a)));
    for api in apis {
        let dir = tempfile::tempdir().unwrap();
        let o = dir.path().join("s").display().to_string();
        let r = ior(
            4,
            dir.path(),
            &[
                "-a",
                api,
                "-c",
                "-w",
                "-D",
                "1",
                "-O",
                "stoneWallingWearOut=1",
                "-t",
                "4k",
                "-b",
                "1g",
                "-o",
                &o,
            ],
        );
        assert!(r.ok(), "-a {api}\n{}", r.both());
        // Every rank stopped at the same count, so wear-out had nothing to do.
        let line = r
            .stdout
            .lines()
            .find(|l| l.starts_with("stonewalling pairs accessed min:"))
            .unwrap_or_else(|| panic!("-a {api}: no stonewall line\n{}", r.stdout));
        let words: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(words[4], words[6], "-a {api}: {line}");
    }
}

/// One run that must be refused (exit status 1, or 2 for options refused
/// before anything runs) with one error line naming `needle`.
fn refused(args: &[&str], needle: &str) {
    refused_env(args, &[], needle);
}

/// As [`refused`], with `env` added to the run's environment.
fn refused_env(args: &[&str], env: &[(&str, &str)], needle: &str) {
    let dir = tempfile::tempdir().unwrap();
    let o = dir.path().join("r").display().to_string();
    let mut a = vec!["-w", "-t", "4k", "-b", "32k"];
    a.extend(args);
    a.extend(["-o", &o]);
    let r = ior_env(2, dir.path(), &a, env);
    assert!(matches!(r.status, Some(1 | 2)), "{a:?}\n{}", r.both());
    let errors: Vec<&str> = r
        .stderr
        .lines()
        .filter(|l| l.starts_with("ior: "))
        .filter(|l| {
            ![
                "ior: warning",
                "ior: note",
                "ior: run 'ior -h'",
                "ior: kept as ",
            ]
            .iter()
            .any(|p| l.starts_with(p))
        })
        .collect();
    assert_eq!(errors.len(), 1, "{a:?}\n{}", r.both());
    assert!(errors[0].contains(needle), "{a:?}: {}", errors[0]);
}

#[test]
fn unsupported_combinations_are_refused_in_one_line() {
    refused(
        &["-a", "MPIIO", "-S"],
        "useStridedDatatype (-S) is not supported",
    );
    refused(
        &["-a", "MPIIO", "-P"],
        "useSharedFilePointer (-P) is not supported",
    );
    refused(
        &["-a", "URING", "--uring.odirect", "-t", "2k"],
        "must be multiples of 4096",
    );
    // Checked from the backends' descriptors, built or not.
    refused(&["-a", "HDF5", "-z"], "random offsets");
    refused(&["-a", "NCMPI", "-F"], "file per process");
    refused(&["-a", "NCMPI", "-z"], "random offsets");
    refused(&["-a", "NCMPI", "-V"], "useFileView is an MPI-IO option");
    if !built("NCMPI") {
        // Why it is missing: left out on purpose (the build names the
        // variable that did it) or the library was not found.
        let why = if pario_testkit::left_out("NCMPI") {
            "left out of this build (PARIO_"
        } else {
            "libpnetcdf-dev"
        };
        refused(&["-a", "NCMPI"], why);
    }
}

/// HDF5 and PnetCDF are loaded when their backend is created: a library
/// that cannot be loaded is one error line naming the file, not a crash.
#[test]
fn a_library_that_cannot_be_loaded_is_refused_in_one_line() {
    for (api, var, what, file) in [
        (
            "HDF5",
            "PARIO_HDF5_LIBRARY",
            "parallel HDF5",
            "/nonexistent/libhdf5.so",
        ),
        (
            "NCMPI",
            "PARIO_PNETCDF_LIBRARY",
            "PnetCDF",
            "/nonexistent/libpnetcdf.so",
        ),
    ] {
        if built(api) {
            let needle = format!("-a {api}: cannot load {what} ({file}");
            refused_env(&["-a", api], &[(var, file)], &needle);
        }
    }
}
