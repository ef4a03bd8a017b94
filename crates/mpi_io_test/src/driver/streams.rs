//! The output streams: `-output` (rank 0) or the console, and `-errout`.

use super::*;

pub(super) type Streams<'a> = (Box<dyn Write + 'a>, ErrOut);

/// `-output` (rank 0, truncated) and `-errout` (created by rank 0, then
/// appended to by every rank). Agreed: an error on rank 0 stops all.
pub(super) fn open_streams<'a, C: Comm + ?Sized>(
    world: &C,
    cfg: &Config,
    console: &'a Console<'_>,
) -> Result<Streams<'a>, String> {
    let r = world.rank();
    let mut problem = None;
    let mut results: Box<dyn Write + 'a> = Box::new(std::io::sink());
    if r == 0 {
        match &cfg.opts.output {
            Some(p) => match std::fs::File::create(p) {
                Ok(f) => results = Box::new(std::io::BufWriter::new(f)),
                Err(e) => {
                    problem = Some(format!(
                        "[RANK 0] ERROR: Unable to open output information file {p}: {e}."
                    ))
                }
            },
            None => results = Box::new(console.stdout()),
        }
        if let (Some(p), None) = (&cfg.opts.errout, &problem) {
            if let Err(e) = std::fs::File::create(p) {
                problem = Some(format!(
                    "[RANK 0] ERROR: Unable to open output error log file {p}: {e}."
                ));
            }
        }
    }
    if world.any_true(problem.is_some()) {
        return Err(problem.unwrap_or_default());
    }
    let err = match &cfg.opts.errout {
        Some(p) => ErrOut(std::fs::OpenOptions::new().append(true).open(p).ok()),
        None => ErrOut(None),
    };
    Ok((results, err))
}
