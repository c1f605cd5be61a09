#![no_main]

#[path = "../../tests/notation/fuzz_common.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::grammar(data));
