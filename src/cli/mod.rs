//! The command line: one module per subcommand, each a thin layer over the library.

pub mod args;
pub mod diagram;
pub mod generate;
pub mod import;
pub mod input;
pub mod perft;
pub mod validate;
pub mod variants;
