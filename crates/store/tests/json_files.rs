//! The JSON-file layer: atomic writes, file naming, listing, bad input.

mod common;
use pario_store::*;

#[test]
fn write_creates_the_directory_and_round_trips_exactly() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("results/2024");
    let mut rec = common::record(
        "0192ab-1",
        1_700_000_000.123456,
        &[("release", "2.15")],
        1 << 20,
        1.2345678901234567e9,
    );
    rec.tests[0].phases[0].latency = 0.1 + 0.2; // not exactly representable as printed
    let path = write_record_json(&dir, &rec).unwrap();
    assert_eq!(path, dir.join("0192ab-1.json"));
    assert_eq!(read_record_json(&path).unwrap(), rec);
    // Nothing but the record is left in the directory.
    let names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["0192ab-1.json"]);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(
            mode & 0o044,
            0o044,
            "result files are readable by others: {mode:o}"
        );
    }
}

#[test]
fn rewriting_a_run_replaces_its_file() {
    let dir = tempfile::tempdir().unwrap();
    let mut rec = common::record("r1", 1.0, &[], 1 << 20, 1e9);
    write_record_json(dir.path(), &rec).unwrap();
    rec.warnings.push("second write".into());
    let path = write_record_json(dir.path(), &rec).unwrap();
    assert_eq!(read_record_json(&path).unwrap().warnings, ["second write"]);
    assert_eq!(record_files(dir.path()).unwrap().len(), 1);
}

#[test]
fn bad_run_ids_and_unwritable_places_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let rec = common::record("../escape", 1.0, &[], 1 << 20, 1e9);
    assert!(matches!(
        write_record_json(dir.path(), &rec),
        Err(StoreError::InvalidRunId(_))
    ));
    assert!(!dir.path().parent().unwrap().join("escape.json").exists());
    // The "directory" is a regular file.
    let file = dir.path().join("plain");
    std::fs::write(&file, b"x").unwrap();
    let e = write_record_json(&file, &common::record("r", 1.0, &[], 1 << 20, 1e9)).unwrap_err();
    assert!(matches!(e, StoreError::Io { .. }), "{e}");
}

#[test]
fn listing_skips_hidden_and_other_files() {
    let dir = tempfile::tempdir().unwrap();
    for name in [
        "b.json",
        "a.json",
        ".pario-x.json.tmp",
        ".hidden.json",
        "notes.txt",
    ] {
        std::fs::write(dir.path().join(name), b"{}").unwrap();
    }
    std::fs::create_dir(dir.path().join("sub.json")).unwrap();
    let files = record_files(dir.path()).unwrap();
    let names: Vec<_> = files
        .iter()
        .map(|p| p.file_name().unwrap().to_str().unwrap())
        .collect();
    assert_eq!(names, ["a.json", "b.json"]);
    assert!(record_files(&dir.path().join("missing"))
        .unwrap()
        .is_empty());
    assert!(matches!(
        read_record_json(&files[0]),
        Err(StoreError::Json { .. })
    ));
    assert!(matches!(
        read_record_json(&dir.path().join("none.json")),
        Err(StoreError::Io { .. })
    ));
}
