//! The write path: games read, replayed and made ready on the reading threads, then sorted and
//! stored a batch at a time by one writer.

pub(crate) mod batch;
pub(crate) mod import;
pub(crate) mod pipeline;
pub(crate) mod prepare;
pub(crate) mod record;
