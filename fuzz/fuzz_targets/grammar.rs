#![no_main]

#[path = "../../tests/fuzz_common/mod.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::grammar(data));
