//! Code archives: reading a zip's directory ([`inspect_zip`]) and unpacking it once per
//! `CodeSha256` into a directory every instance of that code shares ([`unpack`]), plus the
//! merge of a function's layers into the directory its instances see as `/opt`
//! ([`merge_layers`]).
//!
//! Unpacking is atomic: the archive goes into a temporary directory beside the final one,
//! which is renamed into place when complete, so a directory under `code/` is always whole
//! (a crash leaves only a `.tmp-` directory behind, removed on the next unpack of that sha).

use std::fs;
use std::io::{self, Read};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::{CodeArchive, HostError, InvalidZip, ZipInfo};

/// The Unix file-type bits of a zip entry's external attributes.
const S_IFMT: u32 = 0o170_000;
const S_IFLNK: u32 = 0o120_000;

/// Reads a zip archive's central directory without unpacking it.
pub(crate) fn inspect(zip: &[u8]) -> Result<ZipInfo, InvalidZip> {
    let mut archive = ::zip::ZipArchive::new(io::Cursor::new(zip)).map_err(|_| InvalidZip)?;
    let mut unzipped_size = 0u64;
    for index in 0..archive.len() {
        let size = archive.by_index_raw(index).map_err(|_| InvalidZip)?.size();
        unzipped_size = unzipped_size.saturating_add(size);
    }
    Ok(ZipInfo { unzipped_size })
}

/// The directory name of an archive: its base64 SHA-256 in the URL-safe alphabet (a `/` of
/// standard base64 cannot be in a file name), without padding.
pub(crate) fn dir_name(sha256: &str) -> String {
    sha256
        .chars()
        .filter(|c| *c != '=')
        .map(|c| match c {
            '+' => '-',
            '/' => '_',
            other => other,
        })
        .collect()
}

/// Unpacks `archive` into `<root>/<dir_name(sha)>` unless it is there already, and returns
/// that directory. Blocking: call it from a blocking thread.
pub(crate) fn unpack(archive: &CodeArchive, root: &Path) -> Result<PathBuf, HostError> {
    let name = dir_name(&archive.sha256);
    if name.is_empty() || name.starts_with('.') {
        return Err(HostError::Code(format!("invalid code sha256 {:?}", archive.sha256)));
    }
    let target = root.join(&name);
    if target.is_dir() {
        return Ok(target);
    }
    fs::create_dir_all(root).map_err(|e| io_error("create", root, e))?;
    let temp = temp_beside(root, &name);
    let unpacked = fs::create_dir(&temp)
        .map_err(|e| io_error("create", &temp, e))
        .and_then(|()| extract(&archive.zip_path, &temp));
    if let Err(error) = unpacked {
        let _ = fs::remove_dir_all(&temp);
        return Err(error);
    }
    publish(&temp, &target)?;
    Ok(target)
}

/// Merges unpacked layer directories, later over earlier, into one directory under `root`
/// named after the layers, and returns it (hard links: no file is copied).
pub(crate) fn merge_layers(layers: &[PathBuf], root: &Path) -> Result<PathBuf, HostError> {
    let name = layers
        .iter()
        .filter_map(|dir| dir.file_name().and_then(|n| n.to_str()))
        .collect::<Vec<_>>()
        .join("+");
    let target = root.join(&name);
    if target.is_dir() {
        return Ok(target);
    }
    fs::create_dir_all(root).map_err(|e| io_error("create", root, e))?;
    let temp = temp_beside(root, &name);
    let merged = fs::create_dir(&temp)
        .map_err(|e| io_error("create", &temp, e))
        .and_then(|()| layers.iter().try_for_each(|layer| link_tree(layer, &temp)));
    if let Err(error) = merged {
        let _ = fs::remove_dir_all(&temp);
        return Err(error);
    }
    publish(&temp, &target)?;
    Ok(target)
}

/// A fresh temporary directory path beside the final `name` under `root`.
fn temp_beside(root: &Path, name: &str) -> PathBuf {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    root.join(format!(".tmp-{name}-{}-{n}", std::process::id()))
}

/// Renames a complete `temp` to `target`; if another unpack won the race, keeps its copy.
fn publish(temp: &Path, target: &Path) -> Result<(), HostError> {
    match fs::rename(temp, target) {
        Ok(()) => Ok(()),
        Err(_) if target.is_dir() => {
            let _ = fs::remove_dir_all(temp);
            Ok(())
        }
        Err(e) => {
            let _ = fs::remove_dir_all(temp);
            Err(io_error("rename", target, e))
        }
    }
}

fn extract(zip_path: &Path, into: &Path) -> Result<(), HostError> {
    let file = fs::File::open(zip_path).map_err(|e| io_error("open", zip_path, e))?;
    let mut archive = ::zip::ZipArchive::new(io::BufReader::new(file)).map_err(|e| bad_zip(zip_path, e))?;
    // Symlinks are made last, so no entry can be written through one.
    let mut links = Vec::new();
    for index in 0..archive.len() {
        let mut entry = archive.by_index(index).map_err(|e| bad_zip(zip_path, e))?;
        let Some(relative) = entry.enclosed_name() else {
            return Err(HostError::Code(format!(
                "the code archive's entry {:?} points outside the code directory",
                entry.name()
            )));
        };
        let path = into.join(relative);
        let mode = entry.unix_mode();
        if entry.is_dir() {
            fs::create_dir_all(&path).map_err(|e| io_error("create", &path, e))?;
            continue;
        }
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).map_err(|e| io_error("create", parent, e))?;
        }
        if mode.is_some_and(|m| m & S_IFMT == S_IFLNK) {
            let mut target = String::new();
            entry
                .read_to_string(&mut target)
                .map_err(|e| io_error("read", zip_path, e))?;
            links.push((path, target));
            continue;
        }
        let mut out = fs::File::create(&path).map_err(|e| io_error("create", &path, e))?;
        io::copy(&mut entry, &mut out).map_err(|e| io_error("write", &path, e))?;
        // Zips made without Unix attributes (Windows tools) get rw-r--r--; AWS likewise.
        let permissions = mode.map_or(0o644, |m| m & 0o7777);
        fs::set_permissions(&path, fs::Permissions::from_mode(permissions)).map_err(|e| io_error("chmod", &path, e))?;
    }
    for (path, target) in links {
        std::os::unix::fs::symlink(&target, &path).map_err(|e| io_error("symlink", &path, e))?;
    }
    Ok(())
}

/// Hard-links every file under `from` into `into`, replacing what an earlier layer put there.
fn link_tree(from: &Path, into: &Path) -> Result<(), HostError> {
    for entry in fs::read_dir(from).map_err(|e| io_error("read", from, e))? {
        let entry = entry.map_err(|e| io_error("read", from, e))?;
        let source = entry.path();
        let dest = into.join(entry.file_name());
        let kind = entry.file_type().map_err(|e| io_error("stat", &source, e))?;
        if kind.is_dir() {
            // Never follow what an earlier layer put there: a symlink is replaced, not entered.
            let existing = dest.symlink_metadata().ok();
            if !existing.as_ref().is_some_and(fs::Metadata::is_dir) {
                if existing.is_some() {
                    remove_any(&dest)?;
                }
                fs::create_dir(&dest).map_err(|e| io_error("create", &dest, e))?;
            }
            link_tree(&source, &dest)?;
            continue;
        }
        if dest.symlink_metadata().is_ok() {
            remove_any(&dest)?;
        }
        if kind.is_symlink() {
            let target = fs::read_link(&source).map_err(|e| io_error("read", &source, e))?;
            std::os::unix::fs::symlink(target, &dest).map_err(|e| io_error("symlink", &dest, e))?;
        } else if fs::hard_link(&source, &dest).is_err() {
            fs::copy(&source, &dest).map_err(|e| io_error("copy", &dest, e))?;
        }
    }
    Ok(())
}

fn remove_any(path: &Path) -> Result<(), HostError> {
    let removed = if path.symlink_metadata().is_ok_and(|m| m.is_dir()) {
        fs::remove_dir_all(path)
    } else {
        fs::remove_file(path)
    };
    removed.map_err(|e| io_error("remove", path, e))
}

fn bad_zip(path: &Path, error: ::zip::result::ZipError) -> HostError {
    HostError::Code(format!("could not unzip {}: {error}", path.display()))
}

fn io_error(what: &str, path: &Path, error: io::Error) -> HostError {
    HostError::Code(format!("could not {what} {}: {error}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dir_names_are_url_safe() {
        assert_eq!(dir_name("ab+/cd=="), "ab-_cd");
    }

    #[test]
    fn refuses_what_is_not_a_zip() {
        assert!(inspect(b"").is_err());
        assert!(inspect(b"PK\x03\x04 not really").is_err());
        assert!(inspect(&[0u8; 100]).is_err());
    }

    fn zip_of(entries: &[(&str, Option<&str>)]) -> Vec<u8> {
        use std::io::Write;
        let mut out = io::Cursor::new(Vec::new());
        let mut writer = ::zip::ZipWriter::new(&mut out);
        let options = ::zip::write::SimpleFileOptions::default().compression_method(::zip::CompressionMethod::Stored);
        for (name, link) in entries {
            match link {
                Some(target) => writer.add_symlink(*name, *target, options).expect("symlink"),
                None => {
                    writer.start_file(*name, options).expect("entry");
                    writer.write_all(b"x").expect("write");
                }
            }
        }
        writer.finish().expect("finish");
        out.into_inner()
    }

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("stratus-lambda-zip-test-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).expect("scratch");
        dir
    }

    #[test]
    fn refuses_entries_escaping_the_directory() {
        let dir = scratch("escape");
        let zip_path = dir.join("evil.zip");
        fs::write(&zip_path, zip_of(&[("ok.txt", None), ("../evil.txt", None)])).expect("write");
        let archive = CodeArchive {
            zip_path,
            sha256: "evil".into(),
        };
        assert!(matches!(unpack(&archive, &dir.join("code")), Err(HostError::Code(_))));
        assert!(!dir.join("evil.txt").exists());
        assert!(!dir.join("code/evil").exists(), "a failed unpack leaves nothing");
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn layers_cannot_write_through_an_earlier_layers_symlink() {
        let dir = scratch("layers");
        let outside = dir.join("outside");
        fs::create_dir_all(&outside).expect("outside");
        let first = dir.join("first.zip");
        fs::write(&first, zip_of(&[("python", Some(outside.to_str().expect("utf-8")))])).expect("write");
        let second = dir.join("second.zip");
        fs::write(&second, zip_of(&[("python/mod.py", None)])).expect("write");
        let code = dir.join("code");
        let layers = [
            unpack(
                &CodeArchive {
                    zip_path: first,
                    sha256: "first".into(),
                },
                &code,
            )
            .expect("first"),
            unpack(
                &CodeArchive {
                    zip_path: second,
                    sha256: "second".into(),
                },
                &code,
            )
            .expect("second"),
        ];
        let merged = merge_layers(&layers, &dir.join("opt")).expect("merge");
        assert!(merged.join("python/mod.py").is_file());
        assert!(!merged.join("python").is_symlink());
        assert!(!outside.join("mod.py").exists(), "wrote through the symlink");
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn never_panics_on_truncated_input() {
        // The empty archive: only an end-of-central-directory record.
        let mut empty = b"PK\x05\x06".to_vec();
        empty.extend_from_slice(&[0u8; 18]);
        assert_eq!(inspect(&empty).map(|i| i.unzipped_size).ok(), Some(0));
        for cut in 0..empty.len() {
            let _ = inspect(&empty[..cut]);
        }
    }
}
