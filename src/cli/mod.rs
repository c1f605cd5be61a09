//! The command line: one module per subcommand, each a thin layer over the library.

pub mod args;
pub mod completions;
pub mod diagnostic;
pub mod diagram;
pub mod explore;
pub mod export;
pub mod export_openings;
#[cfg(feature = "parquet")]
pub mod export_parquet;
pub mod generate;
pub mod import;
pub mod index;
pub mod input;
pub mod output;
pub mod perft;
pub mod progress;
pub mod query;
pub mod search;
#[cfg(feature = "serve")]
pub mod serve;
pub mod show;
pub mod stats;
pub mod validate;
pub mod variants;
