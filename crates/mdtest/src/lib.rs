//! pario's `mdtest` front end: mdtest 4.1's command line and text output on
//! pario's engine ([`pario_engine::mdtest`]), namespace plan
//! ([`pario_plan::mdtest`]) and backends, producing the same results model
//! as `ior`.
//!
//! - [`options`]: the command line and its consistency checks;
//! - [`driver`]: header, specs, running, summaries, output files;
//! - [`output`]: `--saveRankPerformanceDetails` and `--summary-format=csv`;
//! - [`mknod`]: the `-k` option;
//! - [`help`]: the `-h` text.
//!
//! # Version string
//!
//! The header reads `mdtest-4.1.0+pario-<version> was launched with ...`:
//! parsers that look for `mdtest-` and a 4.1 version keep working, and the
//! build metadata says which implementation ran.
//!
//! # Live progress and time series
//!
//! `--progress=MODE`, `--progress-interval=S` and `--live-json=FILE` are
//! pario's (see `docs/ior.md`, "Progress and time series"): rank 0 shows
//! each item phase's rate and count on stderr, never on stdout, and every
//! item phase keeps a per-second time series in the record. `--warmup` is
//! refused: mdtest phases have no time limit.
//!
//! # Deliberate differences from mdtest 4.1
//!
//! Names, directory layout, phase order, options and the text layout are
//! mdtest 4.1's. Where it misbehaves, pario does not copy it:
//!
//! * Any failed operation ends the run with an error that names the phase
//!   and the path, on every rank, with a non-zero exit status; what the run
//!   created is removed (`--keep-on-error` keeps it). mdtest 4.1 prints a
//!   warning and goes on counting the failed item as done.
//! * A tree left by an earlier run is an error ("Tree creation: mkdir ...:
//!   File exists"), and that tree is left untouched.
//! * The statistics are computed from exactly the per-iteration rates, the
//!   time table holds milliseconds per operation, tree rows count every
//!   directory made (see [`pario_results::render::mdtest_text`]).
//! * `-W` stops directory creation as well as file creation, for any tree;
//!   every rank continues to the largest count reached. `-x` is written by
//!   every creating run (mdtest 4.1: only with `-W`); it holds the file
//!   count, or the directory count with `-D`.
//! * Without `-G` the data signature is 0, not the start time, so that a
//!   later `-E -X` run verifies what an earlier `-C -w` run wrote.
//! * `-I` and `-L` need a tree (`-z`); `-L` is accepted without one
//!   together with `-u` (the IO500's `-u -L`), where it has no effect.
//! * With `-u` and `-N` the items of rank `o` live in the tree of rank
//!   `(o + N) mod n` at every depth (mdtest 4.1 only gets depth 0 right).
//! * Items are created directory by directory in heap order (mdtest 4.1
//!   goes depth first); names and places are the same.
//! * `-R` draws a seeded permutation per rank (O(1) memory) instead of
//!   glibc's `rand()`: the orders differ from mdtest 4.1's.
//! * With `-S` only rank 0 removes (as in mdtest 4.1), and only its
//!   removals are counted; with `-c` and `-w` rank 0 also writes the data.
//! * `-t` with `-u` starts the phase timer before the opening barrier.
//! * pario adds `-U` (run the directory rename phase; mdtest 4.1 runs it
//!   only when no phase option is given), `--summary-format=json|csv`,
//!   `--summary-file` and `--keep-on-error`.
//!
//! # Inputs mdtest 4.1 accepts and pario does not (exit 2), or warns about
//!
//! * `-D -F` together (directories only and files only) are refused.
//! * `-n 0` (or no `-n`) without `-I` and without a tree: nothing to test,
//!   refused; with a tree (`-z`) and no items, a warning says that only the
//!   tree is created and removed.
//! * A tree of more than [`options::MAX_TREE_DIRS`] (10 million)
//!   directories (`-z 9 -b 10` is 1.1 billion) is refused with the count.
//! * `-n` with `-I` and a tree: mdtest's rule makes `n / I` directory loops
//!   of `I` items in every directory, so each rank handles `n` times the
//!   directories, not `n`: accepted as in mdtest, with a warning giving the
//!   real count (`-n 1 -I 1 -z 1` handles 2 items per rank).
//! * `-N` not below the number of ranks (`-N 99` with 2 ranks): each rank
//!   would stat its own items or another shift than asked; refused (a
//!   singleton's `-N 1` stays accepted).
//! * `--tag k=` (an empty value) is refused.
//! * `--gpuDirect`, `--allocateBufferOnGPU`, `--GPUid`: this build has no GPU
//!   support, so they are refused, unless `--allow-cpu-fallback` is given:
//!   then the run uses CPU memory and says so in a warning.
//! * A `-d` directory or `-x` file that is a device node, FIFO or socket is
//!   refused before anything is opened.
//! * The write and read buffers (`-w`, `-e`) must fit the address space
//!   left under `RLIMIT_AS` and the node's `MemAvailable` (shared by its
//!   ranks): `-w 100g` under an 8 GiB limit is refused naming both figures
//!   instead of aborting in the allocator.
//! * A requested output that is not written fails the run with exit 1:
//!   `-x`, `--summary-file` or `--saveRankPerformanceDetails` in a
//!   directory that does not exist (checked before any I/O), or a write
//!   that fails at the end (mdtest 4.1 warns and exits 0).
//! * `mdtest --version` prints the version line and exits 0.
//! * A rank much slower than the rest in a timed phase (the straggler rule
//!   of `pario_results::stragglers`: more than 1.5 times the fastest half's
//!   time per item and more than 0.1 s over it) is named with its host in
//!   one `mdtest: warning: straggler: ...` line on stderr and kept as an
//!   advisory in the record (`pario_frontend::advisor`).
//!
//! # Ctrl-C and SIGTERM
//!
//! Every rank catches SIGINT and SIGTERM ([`pario_engine::interrupt`]):
//! each stops at its next item (new creates, stats, reads, renames and
//! mkdirs fail; removals go on, since they are the clean-up), the record is
//! kept with `"interrupted": true`, then what the run created is removed
//! (unless `--keep-on-error`), and the exit status is 130 (SIGINT) or 143
//! (SIGTERM). Any failed test keeps its record in the same order: the
//! record first, then the clean-up (whose problems are printed, not kept).
//!
//! The record comes first because a launcher does not wait for a long
//! clean-up: Open MPI's mpirun forwards SIGTERM to the ranks and kills them
//! one second later, and removing a tree of 150,000 files takes far longer.
//! To give the clean-up time, raise the launcher's grace period:
//! `mpirun --mca odls_base_sigkill_timeout 60 ...` (or
//! `OMPI_MCA_odls_base_sigkill_timeout=60` in the environment) for Open MPI,
//! `KillWait=120` in slurm.conf for Slurm (the seconds between SIGTERM and
//! SIGKILL when a job is cancelled or runs out of time). What a cut-short
//! clean-up leaves is under the run's `-d` directory.

pub mod driver;
pub mod front;
pub mod help;
pub mod mknod;
pub mod options;
pub mod output;

pub use options::{parse, MdtestOptions, OptionError, MDTEST_VERSION};
