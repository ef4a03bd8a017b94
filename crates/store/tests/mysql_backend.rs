//! The shared store tests on MySQL/MariaDB. Needs PARIO_TEST_MYSQL_URL (a
//! user allowed to create databases; see scripts/test-db-servers.sh). Each
//! test gets its own database, dropped afterwards. Without the variable the
//! tests FAIL in CI (`CI=true`) and print "skipped: <why>" elsewhere.
#![cfg(feature = "mysql")]

#[macro_use]
mod common;
use common::TestDb;
use mysql::prelude::Queryable;
use pario_store::*;

struct MyDb {
    admin: String,
    name: String,
    url: String,
}

impl TestDb for MyDb {
    fn open(&self) -> DbStore {
        DbStore::mysql(&self.url).unwrap_or_else(|e| panic!("connect {}: {e}", self.url))
    }
    fn url(&self) -> DbUrl {
        DbUrl::parse(&self.url).unwrap()
    }
}

impl Drop for MyDb {
    fn drop(&mut self) {
        if let Ok(opts) = mysql::Opts::from_url(&self.admin) {
            if let Ok(mut c) = mysql::Conn::new(opts) {
                let _ = c.query_drop(format!("DROP DATABASE IF EXISTS {}", self.name));
            }
        }
    }
}

fn fresh() -> Option<MyDb> {
    let admin = common::server_url("PARIO_TEST_MYSQL_URL", "MySQL/MariaDB")?;
    let name = common::unique_db_name();
    let opts = mysql::Opts::from_url(&admin)
        .unwrap_or_else(|e| panic!("PARIO_TEST_MYSQL_URL={admin}: {e}"));
    let mut c =
        mysql::Conn::new(opts).unwrap_or_else(|e| panic!("PARIO_TEST_MYSQL_URL={admin}: {e}"));
    c.query_drop(format!("CREATE DATABASE {name}")).unwrap();
    let url = common::with_database(&admin, &name);
    Some(MyDb { admin, name, url })
}

backend_tests!(fresh());
