//! The generated model as the emulator uses it: schemas, patterns, authorization tables, typed
//! values, the JSON decoder and `stratus validate`. One test binary, so the generated crates are
//! linked once rather than once per file.

#[path = "../support/mod.rs"]
mod support;

mod authorization;
mod generated_patterns;
mod json_decoder_fuzz;
mod typed_values;
mod validate_cli;
