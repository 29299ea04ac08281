//! `stratus-codegen`: `sync` copies pinned models in; `generate` writes `generated/`; `diff`
//! tells what a newer set of models changes.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};
use stratus_codegen::manifest::Manifest;
use stratus_codegen::model::Model;
use stratus_codegen::sync::{sha256_hex, sync_models, OnMismatch};
use stratus_codegen::{authorization, diff, emit, Error};

const USAGE: &str = "usage:
  stratus-codegen sync --manifest FILE --from DIR --to DIR [--repin]
  stratus-codegen generate --manifest FILE --models DIR --out DIR [--only SDK_ID]
  stratus-codegen diff --from DIR --to DIR [--services DIR]";

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let flag = |name: &str| -> Option<PathBuf> {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .map(PathBuf::from)
    };
    let required = |name: &str| flag(name).with_context(|| format!("missing {name}\n{USAGE}"));
    match args.first().map(String::as_str) {
        Some("sync") => {
            let mode = if args.iter().any(|a| a == "--repin") {
                OnMismatch::Repin
            } else {
                OnMismatch::Refuse
            };
            let repinned = sync_models(&required("--manifest")?, &required("--from")?, &required("--to")?, mode)?;
            for sdk_id in repinned {
                println!("re-pinned {sdk_id}");
            }
            Ok(())
        }
        Some("generate") => {
            let only = flag("--only").map(|p| p.to_string_lossy().into_owned());
            generate(
                &required("--manifest")?,
                &required("--models")?,
                &required("--out")?,
                only.as_deref(),
            )
        }
        Some("diff") => {
            let report = diff::compare_dirs(&required("--from")?, &required("--to")?, flag("--services").as_deref())?;
            print!("{}", diff::render::render(&report));
            Ok(())
        }
        _ => bail!("{USAGE}"),
    }
}

fn generate(manifest_path: &Path, models: &Path, out: &Path, only: Option<&str>) -> Result<()> {
    let manifest = Manifest::load(manifest_path)?;
    // The repository's rustfmt.toml, so output formats the same wherever it is written.
    let rustfmt_config = manifest_path
        .canonicalize()?
        .parent()
        .and_then(Path::parent)
        .map(|root| root.join("rustfmt.toml"))
        .context("manifest has no parent directory")?;
    let authorization_dir = manifest_path.parent().unwrap_or(Path::new(".")).join("authorization");
    write_crate(
        &out.join("registry"),
        emit::registry(&manifest.service),
        &rustfmt_config,
    )?;
    for entry in manifest.service.iter().filter(|e| only.is_none_or(|o| o == e.sdk_id)) {
        let path = models.join(&entry.model);
        let bytes = std::fs::read(&path).map_err(|e| Error::io(&path, e))?;
        let hash = sha256_hex(&bytes);
        if hash != entry.sha256 {
            bail!(Error::HashMismatch {
                file: path,
                pinned: entry.sha256.clone(),
                found: hash
            });
        }
        let model = Model::load_json(&path)?;
        // Every service has its authorization data beside the manifest.
        let data_path = authorization_dir.join(format!("{}.toml", entry.sdk_id));
        let data = authorization::Data::load(&data_path)?;
        let files = emit::generate_with_authorization(&model, entry, &hash, Some(&data))
            .with_context(|| format!("generating {}", entry.sdk_id))?;
        write_crate(&out.join(&entry.sdk_id), files, &rustfmt_config)?;
    }
    Ok(())
}

/// Writes a generated crate's files under `dir`, in place of what was there (a crate that
/// becomes schema-only loses its typed files), and formats its Rust sources.
fn write_crate(dir: &Path, files: Vec<emit::GeneratedFile>, rustfmt_config: &Path) -> Result<()> {
    if dir.exists() {
        std::fs::remove_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    }
    let mut rust_files = Vec::new();
    for file in files {
        let target = dir.join(&file.path);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent).map_err(|e| Error::io(parent, e))?;
        }
        std::fs::write(&target, file.contents).map_err(|e| Error::io(&target, e))?;
        if file.path.ends_with(".rs") {
            rust_files.push(target);
        }
    }
    rustfmt(&rust_files, rustfmt_config)?;
    println!("generated {}", dir.display());
    Ok(())
}

fn rustfmt(files: &[PathBuf], config: &Path) -> Result<()> {
    let output = Command::new("rustfmt")
        .args(["--edition", "2021", "--config-path"])
        .arg(config)
        .args(files)
        .output()
        .context("running rustfmt")?;
    if !output.status.success() {
        bail!(Error::Rustfmt {
            path: files.first().cloned().unwrap_or_default(),
            reason: String::from_utf8_lossy(&output.stderr).into_owned(),
        });
    }
    Ok(())
}
