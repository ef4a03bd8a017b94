//! Versioned schema migrations, as SQL per backend.
//!
//! `MIGRATIONS_*[i]` brings the schema from version i to i + 1. Each backend
//! keeps the applied versions in a `schema_version (version, applied_at)`
//! table and applies the missing ones in order under a lock (SQLite: an
//! IMMEDIATE transaction; PostgreSQL: an advisory transaction lock; MySQL:
//! GET_LOCK, because its DDL is not transactional). Every statement is
//! idempotent (`IF NOT EXISTS`), so a migration interrupted half-way is
//! simply re-run. Never edit a released migration: append a new one.
//!
//! Tables (all backends):
//! - `runs`: one row per run (run_id, tool, tool_version, began, finished,
//!   num_tasks, num_nodes, hosts, command_line, exit_status, fs_type).
//! - `run_records (run_id, record)`: the full `RunRecord` JSON, one-to-one
//!   with `runs` but in its own table, so that scanning `runs` for a listing
//!   never reads it (a large row would fill the table's pages: measured at
//!   10,000 runs, listing took 2-3 times longer with the JSON in `runs`).
//! - `run_tags (run_id, tag_key, tag_value)`: `--tag k=v` labels.
//! - `results`: one row per phase (operation × iteration) with bandwidth,
//!   IOPS, latency, time, bytes, ops and the workload key (api, num_tasks,
//!   file_per_proc, block_size, transfer_size, segment_count, ordering, items,
//!   workload_extra).
//! - `rank_times`: one row per rank per phase (open/xfer/close start and end).
//!
//! Indexes: runs(began), runs(tool, began), run_tags(tag_key, tag_value,
//! run_id), results(api, transfer_size, block_size, num_tasks, run_id),
//! results(items, run_id), plus the primary keys, which start with run_id.
//!
//! Integers are 64-bit signed; u64 values above i64::MAX are refused.
//! Non-finite floats are stored as NULL and read back as NaN. Text compares
//! case-sensitively everywhere (MySQL tables use `utf8mb4_bin`).

/// The schema version this code writes and reads.
pub const SCHEMA_VERSION: u32 = 1;

pub(crate) const SQLITE_V1: &[&str] = &[
    "CREATE TABLE IF NOT EXISTS runs (
        run_id TEXT PRIMARY KEY NOT NULL,
        tool TEXT,
        tool_version TEXT NOT NULL,
        began REAL NOT NULL,
        finished REAL NOT NULL,
        num_tasks INTEGER NOT NULL,
        num_nodes INTEGER NOT NULL,
        hosts TEXT NOT NULL,
        command_line TEXT NOT NULL,
        exit_status INTEGER NOT NULL,
        fs_type TEXT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS runs_began ON runs (began)",
    "CREATE INDEX IF NOT EXISTS runs_tool_began ON runs (tool, began)",
    "CREATE TABLE IF NOT EXISTS run_records (
        run_id TEXT PRIMARY KEY NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
        record TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS run_tags (
        run_id TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
        tag_key TEXT NOT NULL,
        tag_value TEXT NOT NULL,
        PRIMARY KEY (run_id, tag_key)) WITHOUT ROWID",
    "CREATE INDEX IF NOT EXISTS run_tags_kv ON run_tags (tag_key, tag_value, run_id)",
    "CREATE TABLE IF NOT EXISTS results (
        run_id TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
        test_id INTEGER NOT NULL,
        phase_idx INTEGER NOT NULL,
        operation TEXT,
        iteration INTEGER NOT NULL,
        bandwidth REAL,
        iops REAL,
        latency REAL,
        total_time REAL,
        bytes INTEGER NOT NULL,
        ops INTEGER NOT NULL,
        verification_errors INTEGER NOT NULL,
        api TEXT NOT NULL,
        num_tasks INTEGER NOT NULL,
        file_per_proc INTEGER NOT NULL,
        block_size INTEGER NOT NULL,
        transfer_size INTEGER NOT NULL,
        segment_count INTEGER NOT NULL,
        ordering TEXT NOT NULL,
        items INTEGER NOT NULL,
        workload_extra TEXT NOT NULL,
        PRIMARY KEY (run_id, test_id, phase_idx)) WITHOUT ROWID",
    "CREATE INDEX IF NOT EXISTS results_workload
        ON results (api, transfer_size, block_size, num_tasks, run_id)",
    "CREATE INDEX IF NOT EXISTS results_items ON results (items, run_id)",
    "CREATE TABLE IF NOT EXISTS rank_times (
        run_id TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
        test_id INTEGER NOT NULL,
        phase_idx INTEGER NOT NULL,
        operation TEXT,
        iteration INTEGER NOT NULL,
        rank_no INTEGER NOT NULL,
        host TEXT NOT NULL,
        open_start REAL,
        open_end REAL,
        xfer_start REAL,
        xfer_end REAL,
        close_start REAL,
        close_end REAL,
        bytes INTEGER NOT NULL,
        ops INTEGER NOT NULL,
        PRIMARY KEY (run_id, test_id, phase_idx, rank_no)) WITHOUT ROWID",
];

pub(crate) const POSTGRES_V1: &[&str] = &[
    "CREATE TABLE IF NOT EXISTS runs (
        run_id TEXT PRIMARY KEY,
        tool TEXT,
        tool_version TEXT NOT NULL,
        began DOUBLE PRECISION NOT NULL,
        finished DOUBLE PRECISION NOT NULL,
        num_tasks BIGINT NOT NULL,
        num_nodes BIGINT NOT NULL,
        hosts TEXT NOT NULL,
        command_line TEXT NOT NULL,
        exit_status BIGINT NOT NULL,
        fs_type TEXT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS runs_began ON runs (began)",
    "CREATE INDEX IF NOT EXISTS runs_tool_began ON runs (tool, began)",
    "CREATE TABLE IF NOT EXISTS run_records (
        run_id TEXT PRIMARY KEY REFERENCES runs (run_id) ON DELETE CASCADE,
        record TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS run_tags (
        run_id TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
        tag_key TEXT NOT NULL,
        tag_value TEXT NOT NULL,
        PRIMARY KEY (run_id, tag_key))",
    "CREATE INDEX IF NOT EXISTS run_tags_kv ON run_tags (tag_key, tag_value, run_id)",
    "CREATE TABLE IF NOT EXISTS results (
        run_id TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
        test_id BIGINT NOT NULL,
        phase_idx BIGINT NOT NULL,
        operation TEXT,
        iteration BIGINT NOT NULL,
        bandwidth DOUBLE PRECISION,
        iops DOUBLE PRECISION,
        latency DOUBLE PRECISION,
        total_time DOUBLE PRECISION,
        bytes BIGINT NOT NULL,
        ops BIGINT NOT NULL,
        verification_errors BIGINT NOT NULL,
        api TEXT NOT NULL,
        num_tasks BIGINT NOT NULL,
        file_per_proc BIGINT NOT NULL,
        block_size BIGINT NOT NULL,
        transfer_size BIGINT NOT NULL,
        segment_count BIGINT NOT NULL,
        ordering TEXT NOT NULL,
        items BIGINT NOT NULL,
        workload_extra TEXT NOT NULL,
        PRIMARY KEY (run_id, test_id, phase_idx))",
    "CREATE INDEX IF NOT EXISTS results_workload
        ON results (api, transfer_size, block_size, num_tasks, run_id)",
    "CREATE INDEX IF NOT EXISTS results_items ON results (items, run_id)",
    "CREATE TABLE IF NOT EXISTS rank_times (
        run_id TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
        test_id BIGINT NOT NULL,
        phase_idx BIGINT NOT NULL,
        operation TEXT,
        iteration BIGINT NOT NULL,
        rank_no BIGINT NOT NULL,
        host TEXT NOT NULL,
        open_start DOUBLE PRECISION,
        open_end DOUBLE PRECISION,
        xfer_start DOUBLE PRECISION,
        xfer_end DOUBLE PRECISION,
        close_start DOUBLE PRECISION,
        close_end DOUBLE PRECISION,
        bytes BIGINT NOT NULL,
        ops BIGINT NOT NULL,
        PRIMARY KEY (run_id, test_id, phase_idx, rank_no))",
];

/// MySQL/MariaDB: indexed text columns are VARCHAR (TEXT cannot be a key
/// without a prefix); the record is LONGTEXT (TEXT stops at 64 KiB). MySQL 8
/// lacks `CREATE INDEX IF NOT EXISTS`, so indexes are declared in the tables.
pub(crate) const MYSQL_V1: &[&str] = &[
    "CREATE TABLE IF NOT EXISTS runs (
        run_id VARCHAR(128) NOT NULL PRIMARY KEY,
        tool VARCHAR(32) NULL,
        tool_version TEXT NOT NULL,
        began DOUBLE NOT NULL,
        finished DOUBLE NOT NULL,
        num_tasks BIGINT NOT NULL,
        num_nodes BIGINT NOT NULL,
        hosts MEDIUMTEXT NOT NULL,
        command_line MEDIUMTEXT NOT NULL,
        exit_status BIGINT NOT NULL,
        fs_type TEXT NOT NULL,
        INDEX runs_began (began),
        INDEX runs_tool_began (tool, began)
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin",
    "CREATE TABLE IF NOT EXISTS run_records (
        run_id VARCHAR(128) NOT NULL PRIMARY KEY,
        record LONGTEXT NOT NULL,
        FOREIGN KEY (run_id) REFERENCES runs (run_id) ON DELETE CASCADE
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin",
    "CREATE TABLE IF NOT EXISTS run_tags (
        run_id VARCHAR(128) NOT NULL,
        tag_key VARCHAR(255) NOT NULL,
        tag_value TEXT NOT NULL,
        PRIMARY KEY (run_id, tag_key),
        INDEX run_tags_kv (tag_key, tag_value(255), run_id),
        FOREIGN KEY (run_id) REFERENCES runs (run_id) ON DELETE CASCADE
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin",
    "CREATE TABLE IF NOT EXISTS results (
        run_id VARCHAR(128) NOT NULL,
        test_id BIGINT NOT NULL,
        phase_idx BIGINT NOT NULL,
        operation VARCHAR(64) NULL,
        iteration BIGINT NOT NULL,
        bandwidth DOUBLE NULL,
        iops DOUBLE NULL,
        latency DOUBLE NULL,
        total_time DOUBLE NULL,
        bytes BIGINT NOT NULL,
        ops BIGINT NOT NULL,
        verification_errors BIGINT NOT NULL,
        api VARCHAR(255) NOT NULL,
        num_tasks BIGINT NOT NULL,
        file_per_proc BIGINT NOT NULL,
        block_size BIGINT NOT NULL,
        transfer_size BIGINT NOT NULL,
        segment_count BIGINT NOT NULL,
        ordering VARCHAR(255) NOT NULL,
        items BIGINT NOT NULL,
        workload_extra TEXT NOT NULL,
        PRIMARY KEY (run_id, test_id, phase_idx),
        INDEX results_workload (api, transfer_size, block_size, num_tasks, run_id),
        INDEX results_items (items, run_id),
        FOREIGN KEY (run_id) REFERENCES runs (run_id) ON DELETE CASCADE
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin",
    "CREATE TABLE IF NOT EXISTS rank_times (
        run_id VARCHAR(128) NOT NULL,
        test_id BIGINT NOT NULL,
        phase_idx BIGINT NOT NULL,
        operation VARCHAR(64) NULL,
        iteration BIGINT NOT NULL,
        rank_no BIGINT NOT NULL,
        host TEXT NOT NULL,
        open_start DOUBLE NULL,
        open_end DOUBLE NULL,
        xfer_start DOUBLE NULL,
        xfer_end DOUBLE NULL,
        close_start DOUBLE NULL,
        close_end DOUBLE NULL,
        bytes BIGINT NOT NULL,
        ops BIGINT NOT NULL,
        PRIMARY KEY (run_id, test_id, phase_idx, rank_no),
        FOREIGN KEY (run_id) REFERENCES runs (run_id) ON DELETE CASCADE
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin",
];

pub(crate) const SQLITE: &[&[&str]] = &[SQLITE_V1];
pub(crate) const POSTGRES: &[&[&str]] = &[POSTGRES_V1];
pub(crate) const MYSQL: &[&[&str]] = &[MYSQL_V1];

#[cfg(test)]
mod tests {
    #[test]
    fn every_backend_has_every_version() {
        for m in [super::SQLITE, super::POSTGRES, super::MYSQL] {
            assert_eq!(m.len() as u32, super::SCHEMA_VERSION);
            assert!(m
                .iter()
                .all(|v| v.iter().all(|s| s.contains("IF NOT EXISTS"))));
        }
    }
}
