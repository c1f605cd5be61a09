//! The database library's tests (`crates/kabir-db`): opening old and damaged files, import,
//! the derived tables against brute force, and crashes in the middle of a write.

mod db_common;
mod db_crash;
mod db_derived;
mod db_import;
mod db_open;
