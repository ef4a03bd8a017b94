//! A front end's two text streams, injected: the program's stdout and
//! stderr in `main`, byte buffers in tests.
//!
//! Writes go through `&self` (the streams sit in `RefCell`s) so that an
//! engine observer and the phase hooks of the same run can both print.
//! Each write is flushed at once: lines appear while a run progresses.
//! Write errors (a closed pipe) are ignored, as `print!` would not be
//! able to report them either without ending the run.

use std::cell::RefCell;
use std::io::Write;

/// Where a front end's text goes.
pub struct Console<'w> {
    program: &'static str,
    out: RefCell<&'w mut dyn Write>,
    err: RefCell<&'w mut dyn Write>,
}

impl<'w> Console<'w> {
    /// A console for `program` (the prefix of error and warning lines).
    pub fn new(program: &'static str, out: &'w mut dyn Write, err: &'w mut dyn Write) -> Self {
        Console {
            program,
            out: RefCell::new(out),
            err: RefCell::new(err),
        }
    }

    /// The program name used as prefix ("ior", "mdtest").
    pub fn program(&self) -> &'static str {
        self.program
    }

    /// Text on stdout as it is (nothing for an empty string).
    pub fn out(&self, s: &str) {
        self.out_bytes(s.as_bytes());
    }

    /// Stdout as a [`Write`], for code that writes through one (matched
    /// paths, results streamed to a file or the console): bytes as they are.
    pub fn stdout(&self) -> StdoutWriter<'_, 'w> {
        StdoutWriter(self)
    }

    /// [`Console::out`] for bytes that need not be UTF-8 (file names).
    pub fn out_bytes(&self, b: &[u8]) {
        if b.is_empty() {
            return;
        }
        let mut o = self.out.borrow_mut();
        let _ = o.write_all(b);
        let _ = o.flush();
    }

    /// Text on stderr as it is.
    pub fn err(&self, s: &str) {
        if s.is_empty() {
            return;
        }
        let mut e = self.err.borrow_mut();
        let _ = e.write_all(s.as_bytes());
        let _ = e.flush();
    }

    /// An error on stderr: every line of `msg` prefixed "program: ".
    pub fn error(&self, msg: &str) {
        let p = self.program;
        self.err(&format!(
            "{p}: {}\n",
            msg.replace('\n', &format!("\n{p}: "))
        ));
    }

    /// "program: warning: msg" on stderr.
    pub fn warning(&self, msg: &str) {
        self.err(&format!("{}: warning: {msg}\n", self.program));
    }

    /// "program: note: msg" on stderr.
    pub fn note(&self, msg: &str) {
        self.err(&format!("{}: note: {msg}\n", self.program));
    }
}

/// [`Console::stdout`]: each write goes to the console's stdout at once.
pub struct StdoutWriter<'c, 'w>(&'c Console<'w>);

impl Write for StdoutWriter<'_, '_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.out_bytes(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_prefixed_and_streams_kept_apart() {
        let (mut o, mut e) = (Vec::new(), Vec::new());
        {
            let c = Console::new("ior", &mut o, &mut e);
            c.out("table\n");
            c.out("");
            c.error("first\nsecond");
            c.warning("w");
            c.note("n");
            assert_eq!(c.program(), "ior");
        }
        assert_eq!(String::from_utf8(o).unwrap(), "table\n");
        assert_eq!(
            String::from_utf8(e).unwrap(),
            "ior: first\nior: second\nior: warning: w\nior: note: n\n"
        );
    }
}
