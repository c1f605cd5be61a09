//! The read path: the queries over stored games and their derived data, and the answers,
//! reports and exports made of them.

pub(crate) mod answer;
pub(crate) mod export;
pub(crate) mod filtered;
pub(crate) mod query;
pub(crate) mod report;
pub(crate) mod search;
pub(crate) mod suite;
