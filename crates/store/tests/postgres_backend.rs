//! The shared store tests on PostgreSQL. Needs PARIO_TEST_PG_URL (a
//! superuser URL; see scripts/test-db-servers.sh). Each test gets its own
//! database, dropped afterwards. Without the variable the tests FAIL in CI
//! (`CI=true`) and print "skipped: <why>" elsewhere.
#![cfg(feature = "postgres")]

#[macro_use]
mod common;
use common::TestDb;
use pario_store::*;

struct PgDb {
    admin: String,
    name: String,
    url: String,
}

impl TestDb for PgDb {
    fn open(&self) -> DbStore {
        DbStore::postgres(&self.url).unwrap_or_else(|e| panic!("connect {}: {e}", self.url))
    }
    fn url(&self) -> DbUrl {
        DbUrl::parse(&self.url).unwrap()
    }
}

impl Drop for PgDb {
    fn drop(&mut self) {
        if let Ok(mut c) = postgres::Client::connect(&self.admin, postgres::NoTls) {
            let _ = c.batch_execute(&format!(
                "DROP DATABASE IF EXISTS {} WITH (FORCE)",
                self.name
            ));
        }
    }
}

fn fresh() -> Option<PgDb> {
    let admin = common::server_url("PARIO_TEST_PG_URL", "PostgreSQL")?;
    let name = common::unique_db_name();
    let mut c = postgres::Client::connect(&admin, postgres::NoTls)
        .unwrap_or_else(|e| panic!("PARIO_TEST_PG_URL={admin}: {e}"));
    c.batch_execute(&format!("CREATE DATABASE {name}")).unwrap();
    let url = common::with_database(&admin, &name);
    Some(PgDb { admin, name, url })
}

backend_tests!(fresh());
