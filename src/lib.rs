//! kabir: rules, notation and a game database for the Shatranj family of chess games.
//!
//! The crate is layered so that data flows one way:
//! text ([`notation`]) -> games and moves ([`rules`]) -> rows and answers ([`db`]).
//! Variant definitions ([`variants`]) are data files compiled into [`rules::Variant`] values.
#[cfg(feature = "parquet")]
pub mod columnar;
#[cfg(feature = "db")]
pub mod db;
#[cfg(feature = "diagram")]
pub mod diagram;
pub mod generate;
pub mod notation;
pub mod render;
pub mod replay;
pub mod rules;
#[cfg(feature = "serve")]
pub mod serve;
pub mod variants;
