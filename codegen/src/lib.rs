//! Stratus's code generator: reads AWS's Smithy models (the JSON AST; Smithy IDL for the
//! protocol compliance tests, see [`idl`]) and writes one Rust
//! crate per service into `generated/<sdk-id>/` — typed inputs, outputs and errors, static
//! schema and constraint tables, REST routes, an operation enum and the service trait.
//!
//! [`diff`] compares two sets of models in the same terms, before a re-pin.
//!
//! Output is deterministic and rustfmt-formatted, and carries no documentation text from the
//! models. Anything in a model the generator does not understand is refused with an error
//! naming the shape, rather than silently generating something wrong.

pub mod authorization;
pub mod diff;
pub mod emit;
pub mod idl;
pub mod manifest;
pub mod model;
pub mod names;
pub mod sync;

use std::path::{Path, PathBuf};

/// Everything that can stop generation.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("manifest: {0}")]
    Manifest(String),
    #[error("{file}: not a Smithy JSON AST model: {reason}")]
    Parse { file: PathBuf, reason: String },
    #[error("{file}:{line}:{column}: {message}")]
    Idl {
        file: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("shape {shape}: {reason}")]
    Unsupported { shape: String, reason: String },
    #[error("{file}: SHA-256 is {found}, pinned {pinned}; run `make models REPIN=1` to accept the new model")]
    HashMismatch {
        file: PathBuf,
        pinned: String,
        found: String,
    },
    #[error("no model for {sdk_id} in {source_dir} (looked for <sdk-id>.json and <sdk-id>/service/<version>/<sdk-id>-<version>.json)")]
    ModelMissing { sdk_id: String, source_dir: PathBuf },
    #[error("{file}: {reason}")]
    Authorization { file: String, reason: String },
    #[error("rustfmt failed on {path}: {reason}")]
    Rustfmt { path: PathBuf, reason: String },
}

impl Error {
    pub fn io(path: &Path, source: std::io::Error) -> Error {
        Error::Io {
            path: path.to_path_buf(),
            source,
        }
    }

    pub fn unsupported(shape: &str, reason: impl Into<String>) -> Error {
        Error::Unsupported {
            shape: shape.to_string(),
            reason: reason.into(),
        }
    }
}
