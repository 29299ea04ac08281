//! Links the `stratus` executable as position-dependent (`-no-pie`). The generated schemas are
//! static tables full of pointers: in a position-independent executable the loader relocates
//! all of them at start (about 97,000 relocations), which writes every page of those tables —
//! over 7 MB of resident memory that a request mostly never reads. Linked at a fixed address,
//! they stay clean file-backed pages, read in only when used (docs/performance.md).
fn main() {
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}
