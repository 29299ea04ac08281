//! The runtime clients Stratus ships for interpreted runtimes, embedded in the binary and
//! written to `<work_dir>/runtime/` (`LAMBDA_RUNTIME_DIR`) the first time an instance needs
//! them: a Python one (`python3.*`) and a Node.js one (`nodejs*`). Each implements the
//! Runtime API loop and AWS's handler conventions for its language.

use std::fs;
use std::path::Path;

use crate::HostError;

/// The Python client's file name.
pub(crate) const PYTHON: &str = "bootstrap.py";
/// The Node.js client's file name (an ES module, so it can `import()` `.mjs` handlers).
pub(crate) const NODE: &str = "bootstrap.mjs";

const FILES: [(&str, &str); 2] = [
    (PYTHON, include_str!("python_bootstrap.py")),
    (NODE, include_str!("node_bootstrap.mjs")),
];

/// Writes the clients into `dir` unless they are there with this binary's content.
/// Each file is written beside and renamed, so a running instance never reads half of one.
pub(crate) fn install(dir: &Path) -> Result<(), HostError> {
    let failed =
        |e: std::io::Error| HostError::Code(format!("could not write the runtime clients to {}: {e}", dir.display()));
    fs::create_dir_all(dir).map_err(failed)?;
    for (name, content) in FILES {
        let path = dir.join(name);
        if fs::read(&path).is_ok_and(|existing| existing == content.as_bytes()) {
            continue;
        }
        // A name of this call's own: concurrent cold starts install into the same directory.
        let temp = dir.join(format!(".{name}.{:016x}", stratus_core::id::random_u64()));
        fs::write(&temp, content).map_err(failed)?;
        fs::rename(&temp, &path).map_err(failed)?;
    }
    Ok(())
}
