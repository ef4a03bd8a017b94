//! The command-line layer of pario's `ior` front end: IOR 3/4 options, `-O`
//! directives, module options and script decks, parsed into [`IorParams`].
//!
//! - [`options`]: the command line, directives, module options, cross-option
//!   checks, and [`parse_command_line`];
//! - [`deck`]: `ior -f deck` scripts;
//! - [`size`]: `4k`/`1m`/`80%` values;
//! - [`help`]: the `-h` text.

pub mod deck;
pub mod help;
pub mod options;
pub mod size;

pub use help::help_text;
pub use options::{
    parse_command_line, parse_command_line_with, AfterDeck, Api, DataPacketType, Invocation,
    IorParams, OptionError, SummaryFormat,
};
pub use size::{parse_size, parse_size_or_percent, MemorySize, SizeError};

/// Running parsed tests: options → engine specs → output.
pub mod driver;
/// `ior` on the shared front-end contract (used by `main` and `pario suite`).
pub mod front;
