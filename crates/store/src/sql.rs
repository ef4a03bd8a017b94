//! Dialect-neutral SQL plumbing shared by the three backends: bound values,
//! result cells, a query builder that writes each backend's placeholders
//! (`?` for SQLite and MySQL, `$n` for PostgreSQL), and the small `Conn`
//! trait each backend implements (query, insert in one transaction, migrate).

use crate::error::StoreError;
use crate::rows::InsertOutcome;
use crate::url::Backend;

/// A value bound to a placeholder. Nulls are typed (PostgreSQL checks types
/// even for NULL).
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum SqlValue {
    Int(i64),
    Real(Option<f64>),
    Text(Option<String>),
}

/// A value read from a result set.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Cell {
    Null,
    Int(i64),
    Real(f64),
    Text(String),
}

impl Cell {
    fn decode(&self, column: &str, want: &str) -> StoreError {
        StoreError::Decode {
            column: column.to_string(),
            detail: format!("expected {want}, got {self:?}"),
        }
    }
    pub fn int(&self, column: &str) -> Result<i64, StoreError> {
        match self {
            Cell::Int(i) => Ok(*i),
            Cell::Real(r) if r.fract() == 0.0 && r.abs() < 9.0e15 => Ok(*r as i64),
            Cell::Text(t) => t.parse().map_err(|_| self.decode(column, "an integer")),
            _ => Err(self.decode(column, "an integer")),
        }
    }
    pub fn uint<T: TryFrom<i64>>(&self, column: &str) -> Result<T, StoreError> {
        T::try_from(self.int(column)?)
            .map_err(|_| self.decode(column, "a non-negative integer in range"))
    }
    /// NULL reads as NaN (non-finite values are stored as NULL).
    pub fn real(&self, column: &str) -> Result<f64, StoreError> {
        match self {
            Cell::Real(r) => Ok(*r),
            Cell::Int(i) => Ok(*i as f64),
            Cell::Null => Ok(f64::NAN),
            Cell::Text(t) => t.parse().map_err(|_| self.decode(column, "a number")),
        }
    }
    /// Move the text out (the cell becomes NULL): no copy of the string.
    pub fn text(&mut self, column: &str) -> Result<String, StoreError> {
        match std::mem::replace(self, Cell::Null) {
            Cell::Text(t) => Ok(t),
            other => Err(other.decode(column, "text")),
        }
    }
    pub fn opt_text(&mut self, column: &str) -> Result<Option<String>, StoreError> {
        match self {
            Cell::Null => Ok(None),
            _ => self.text(column).map(Some),
        }
    }
}

/// A statement being built, with its bound values.
pub(crate) struct Sql {
    pub text: String,
    pub params: Vec<SqlValue>,
    dollar: bool,
}

impl Sql {
    pub fn new(backend: Backend) -> Sql {
        Sql {
            text: String::new(),
            params: Vec::new(),
            dollar: backend == Backend::Postgres,
        }
    }
    pub fn push(&mut self, s: &str) -> &mut Sql {
        self.text.push_str(s);
        self
    }
    /// Append a placeholder bound to `v`.
    pub fn bind(&mut self, v: SqlValue) -> &mut Sql {
        self.params.push(v);
        if self.dollar {
            self.text.push_str(&format!("${}", self.params.len()));
        } else {
            self.text.push('?');
        }
        self
    }
    /// Append `(?, ?, ...)` bound to `vs`.
    pub fn bind_list(&mut self, vs: impl IntoIterator<Item = SqlValue>) -> &mut Sql {
        self.text.push('(');
        for (i, v) in vs.into_iter().enumerate() {
            if i > 0 {
                self.text.push_str(", ");
            }
            self.bind(v);
        }
        self.text.push(')');
        self
    }
}

/// `INSERT INTO table (cols) VALUES (placeholders)` for `backend`.
pub(crate) fn insert_sql(backend: Backend, table: &str, columns: &[&str]) -> String {
    let ph: Vec<String> = (1..=columns.len())
        .map(|i| {
            if backend == Backend::Postgres {
                format!("${i}")
            } else {
                "?".to_string()
            }
        })
        .collect();
    format!(
        "INSERT INTO {table} ({}) VALUES ({})",
        columns.join(", "),
        ph.join(", ")
    )
}

/// One batch of an insert transaction: a statement and the rows to run it with.
pub(crate) struct Batch<'a> {
    pub sql: &'a str,
    pub rows: Vec<Vec<SqlValue>>,
}

/// What a backend provides; everything else is shared (`db.rs`).
pub(crate) trait Conn: Send {
    fn backend(&self) -> Backend;
    /// Run a query and return all rows.
    fn query(&mut self, sql: &str, params: &[SqlValue]) -> Result<Vec<Vec<Cell>>, StoreError>;
    /// Run every batch in one transaction. `batches[0]` inserts the `runs`
    /// row; if `run_id` is already present (found first, or a unique-key
    /// violation on that row from a concurrent writer) nothing is written and
    /// the result is `AlreadyPresent`.
    fn insert_tx(
        &mut self,
        run_id: &str,
        batches: &[Batch<'_>],
    ) -> Result<InsertOutcome, StoreError>;
    /// Apply the migrations whose version is above the stored one, under the
    /// backend's lock; return the resulting version.
    fn migrate(&mut self, migrations: &[&[&str]]) -> Result<u32, StoreError>;
    /// Run every statement in one transaction: all of them or none.
    fn execute_tx(&mut self, statements: &[Sql]) -> Result<(), StoreError>;
}
