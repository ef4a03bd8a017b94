//! What the `pario` integration tests share: the binary's path and one
//! finished process's status and output.
#![allow(dead_code)]

use serde_json::Value;
use std::process::{Command, Stdio};

pub const PARIO: &str = env!("CARGO_BIN_EXE_pario");

/// A finished process: exit status (-1 when killed by a signal) and output.
pub struct Out {
    pub status: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Out {
    /// Both streams, for assertion messages.
    pub fn both(&self) -> String {
        format!("--- stdout\n{}\n--- stderr\n{}", self.stdout, self.stderr)
    }
    /// stdout as JSON (the test fails, showing both streams, if it is not).
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| panic!("{e}\n{}", self.both()))
    }
}

/// Run `c` to its end with no standard input.
pub fn finish(c: &mut Command) -> Out {
    let o = c.stdin(Stdio::null()).output().expect("process starts");
    Out {
        status: o.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}
