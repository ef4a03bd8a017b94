//! HDF5 and PnetCDF files are interchangeable with upstream IOR's: files
//! upstream IOR wrote (tests/fixtures/upstream/ior/formats, command lines
//! in its README) read back and verify here with the same geometry, and
//! files written here have upstream's dataset / variable names and hold the
//! data where upstream's do.
//!
//! The check of a written file needs no HDF5 or netCDF tool: the data of
//! IOR's datasets (contiguous, one per segment) and of its record variable
//! (records back to back) lie in the file as plain runs of bytes, equal to
//! the same job's POSIX file cut into segments.

mod common;

use common::{ior, reference};
use pario_backends::available_apis;
use std::path::Path;

/// The geometry of the fixtures: 2 ranks, -t 4k -b 16k -s 2, -G 424242.
const GEOMETRY: [&str; 8] = ["-t", "4k", "-b", "16k", "-s", "2", "-G", "424242"];
const SEGMENT: usize = 2 * 16 * 1024;

fn built(api: &str) -> bool {
    let ok = available_apis().iter().any(|(n, b)| *b && *n == api);
    if !ok {
        eprintln!("note: -a {api} is not built here; its interoperability is not tested");
    }
    ok
}

fn args<'a>(api: &'a str, what: &[&'a str], fpp: bool, file: &'a str) -> Vec<&'a str> {
    let mut v = vec!["-a", api];
    v.extend_from_slice(what);
    if fpp {
        v.push("-F");
    }
    v.extend_from_slice(&GEOMETRY);
    v.extend(["-o", file]);
    v
}

/// Copy fixture `name` (and its per-rank files) into `dir`; our reader
/// then reads and verifies it with the writer's geometry.
fn reads_upstream_file(api: &str, name: &str, fpp: bool) {
    let dir = tempfile::tempdir().unwrap();
    let src = reference("ior/formats");
    for e in std::fs::read_dir(&src).unwrap() {
        let e = e.unwrap();
        let f = e.file_name().to_string_lossy().into_owned();
        if f.starts_with(name) {
            std::fs::copy(e.path(), dir.path().join(&f)).unwrap();
        }
    }
    let a = args(api, &["-r", "-R", "-k"], fpp, name);
    let run = ior(2, dir.path(), &a);
    assert!(run.ok(), "ior {}: {}", a.join(" "), run.both());
    assert!(!run.stdout.contains("WARNING"), "{}", run.both());
    assert!(run.stdout.contains("read "), "{}", run.both());
}

#[test]
fn upstream_hdf5_and_pnetcdf_files_read_and_verify() {
    if built("HDF5") {
        reads_upstream_file("HDF5", "ssf.h5", false);
        reads_upstream_file("HDF5", "fpp.h5", true);
    }
    if built("NCMPI") {
        reads_upstream_file("NCMPI", "ssf.nc", false);
    }
}

/// Where `needle` starts in `hay`, if anywhere.
fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// The job's data as one POSIX file written here with the same geometry.
fn posix_stream(dir: &Path) -> Vec<u8> {
    let run = ior(2, dir, &args("POSIX", &["-w", "-k"], false, "plain.dat"));
    assert!(run.ok(), "{}", run.both());
    let data = std::fs::read(dir.join("plain.dat")).unwrap();
    assert_eq!(data.len(), 2 * SEGMENT);
    data
}

fn write(dir: &Path, api: &str, file: &str) -> Vec<u8> {
    let run = ior(2, dir, &args(api, &["-w", "-k"], false, file));
    assert!(run.ok(), "{}", run.both());
    assert!(
        !run.stdout.contains("Expected aggregate file size"),
        "a format with metadata gets no size warning (as upstream):\n{}",
        run.both()
    );
    std::fs::read(dir.join(file)).unwrap()
}

#[test]
fn written_hdf5_file_has_upstreams_datasets_and_data() {
    if !built("HDF5") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let stream = posix_stream(dir.path());
    let ours = write(dir.path(), "HDF5", "ours.h5");
    let upstream = std::fs::read(reference("ior/formats/ssf.h5")).unwrap();
    for file in [&ours, &upstream] {
        for name in ["Dataset-0000.0000", "Dataset-0000.0001"] {
            assert!(find(file, name.as_bytes()).is_some(), "no dataset {name}");
        }
        assert!(find(file, b"pario").is_none(), "a dataset of our own");
        // Each segment's blocks (both ranks) are one contiguous dataset.
        for seg in stream.chunks(SEGMENT) {
            assert!(find(file, seg).is_some(), "a segment's data is not one run");
        }
    }
}

#[test]
fn written_pnetcdf_file_has_upstreams_variable_and_data() {
    if !built("NCMPI") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let stream = posix_stream(dir.path());
    let ours = write(dir.path(), "NCMPI", "ours.nc");
    let upstream = std::fs::read(reference("ior/formats/ssf.nc")).unwrap();
    for file in [&ours, &upstream] {
        for name in [
            "data_var",
            "segments_times_np",
            "number_of_transfers",
            "transfer_size",
        ] {
            assert!(find(file, name.as_bytes()).is_some(), "no name {name}");
        }
        let at = find(file, &stream).expect("the records hold the data in order");
        // The header before the data is the same: same dimensions, variable
        // and record count.
        assert_eq!(at, file.len() - stream.len());
    }
    let header = ours.len() - stream.len();
    assert_eq!(ours[..header], upstream[..upstream.len() - stream.len()]);
}
