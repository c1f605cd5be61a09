//! The notation's tests (`crates/kabir-notation`): the reader on good and bad input, the
//! grammar, the examples of `notation-spec/`, replay, and write-read round trips.

mod fuzz_common;
mod fuzz_regressions;
mod notation_spec_examples;
mod piece_letters;
mod reader_bad_input;
mod reader_grammar;
mod reader_properties;
mod replay_shortcuts;
mod replay_variations;
mod roundtrip;
