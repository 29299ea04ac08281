//! Test-only crate: the integration tests in `tests/` start the real `stratus` binary and
//! drive it with the AWS SDK for Rust. The SDK is heavy, so it lives here and not in the
//! builds of the emulator itself.
