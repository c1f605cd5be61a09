//! Variant definition files.
