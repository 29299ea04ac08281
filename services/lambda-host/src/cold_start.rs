//! Starting a new instance: the work directory, the code and layers unpacked, the runtime
//! client written, the command and environment chosen, and the process spawned.
//!
//! The work directory holds `code/<sha>/` (one per code archive or layer, shared by every
//! instance of it), `opt/<sha>+<sha>…/` (a function's layers merged, in order) and
//! `runtime/` (the runtime clients).

use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use stratus_core::clock::Clock;

use crate::extensions_api::FunctionInfo;
use crate::instance::{Instance, ProcessSpec};
use crate::runtimes::{self, Dirs, Family};
use crate::{clients, sandbox, zip, CodeArchive, FunctionSpec, HostConfig, HostError};

/// Where instances' files go: the configured directory, or a private temporary one made on
/// first use and removed by [`WorkDir::remove_private`].
pub(crate) struct WorkDir {
    configured: Option<PathBuf>,
    private: Mutex<Option<PathBuf>>,
}

impl WorkDir {
    pub(crate) fn new(config: &HostConfig) -> WorkDir {
        WorkDir {
            configured: config.work_dir.clone(),
            private: Mutex::new(None),
        }
    }

    /// The directory, made if need be.
    fn get(&self) -> Result<PathBuf, HostError> {
        let failed = |path: &Path, e: std::io::Error| {
            HostError::Code(format!(
                "could not create the Lambda work directory {}: {e}",
                path.display()
            ))
        };
        if let Some(dir) = &self.configured {
            std::fs::create_dir_all(dir).map_err(|e| failed(dir, e))?;
            return Ok(dir.clone());
        }
        let mut private = self.private.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(dir) = &*private {
            return Ok(dir.clone());
        }
        let dir = std::env::temp_dir().join(format!(
            "stratus-lambda-{}-{:08x}",
            std::process::id(),
            stratus_core::id::random_u64() as u32
        ));
        std::fs::create_dir_all(&dir).map_err(|e| failed(&dir, e))?;
        *private = Some(dir.clone());
        Ok(dir)
    }

    /// The directory, if it exists yet.
    pub(crate) fn current(&self) -> Option<PathBuf> {
        match &self.configured {
            Some(dir) => dir.is_dir().then(|| dir.clone()),
            None => self.private.lock().unwrap_or_else(PoisonError::into_inner).clone(),
        }
    }

    /// Removes the private directory, if one was made.
    pub(crate) fn remove_private(&self) {
        if let Some(dir) = self.private.lock().unwrap_or_else(PoisonError::into_inner).take() {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

/// What a cold start produced.
pub(crate) enum Started {
    Instance(Instance),
    /// A custom runtime without a bootstrap: `Runtime.InvalidEntrypoint`, with this message.
    NoBootstrap(String),
}

/// Starts a new instance of `spec`.
pub(crate) async fn start(
    spec: &FunctionSpec,
    work: &WorkDir,
    endpoint_url: &str,
    clock: &Clock,
    namespaces: bool,
) -> Result<Started, HostError> {
    let family = runtimes::family(&spec.runtime)?;
    let root = work.get()?;
    let code = unpack(spec.code.clone(), root.join("code")).await?;
    let mut layers = Vec::with_capacity(spec.layers.len());
    for layer in &spec.layers {
        layers.push(unpack(layer.clone(), root.join("code")).await?);
    }
    let opt = if layers.is_empty() {
        None
    } else {
        let opt_root = root.join("opt");
        Some(blocking(move || zip::merge_layers(&layers, &opt_root)).await?)
    };
    let runtime_dir = root.join("runtime");
    if family != Family::Provided {
        let dir = runtime_dir.clone();
        blocking(move || clients::install(&dir)).await?;
    }
    let host_dirs = Dirs {
        task_root: code,
        opt,
        runtime_dir,
    };
    let log_stream = runtimes::log_stream_name(clock.epoch_secs(), &spec.version);
    let plain = || {
        prepare(
            spec,
            &family,
            &host_dirs,
            host_dirs.clone(),
            &log_stream,
            endpoint_url,
            None,
        )
    };
    if namespaces && !sandbox::unavailable() {
        let view = Dirs {
            task_root: sandbox::TASK_ROOT.into(),
            opt: host_dirs.opt.as_ref().map(|_| sandbox::OPT.into()),
            runtime_dir: sandbox::RUNTIME_DIR.into(),
        };
        let made = sandbox::Sandbox::new(
            &sandbox::root_mount_point(&root),
            &host_dirs.task_root,
            host_dirs.opt.as_deref(),
            &host_dirs.runtime_dir,
            spec.ephemeral_storage_mb,
        );
        let sandboxed = match made {
            Ok(made) => prepare(spec, &family, &host_dirs, view, &log_stream, endpoint_url, Some(made)).await?,
            Err(error) => {
                sandbox::mark_unavailable(&error);
                return plain().await?.start(clock).await;
            }
        };
        match sandboxed {
            Prepared::Process(process) if !sandbox::hides(&process.program) => {
                match Instance::start(*process, clock).await {
                    Ok(instance) => return Ok(Started::Instance(instance)),
                    Err(error) => {
                        // Namespaces failed (or something else did): the plain path decides.
                        let started = plain().await?.start(clock).await?;
                        sandbox::mark_unavailable(&std::io::Error::other(error.to_string()));
                        return Ok(started);
                    }
                }
            }
            Prepared::NoBootstrap(message) => return Ok(Started::NoBootstrap(message)),
            Prepared::Process(_) => {}
        }
    }
    plain().await?.start(clock).await
}

/// An instance ready to spawn, or why a custom runtime cannot start.
enum Prepared {
    Process(Box<ProcessSpec>),
    NoBootstrap(String),
}

impl Prepared {
    async fn start(self, clock: &Clock) -> Result<Started, HostError> {
        match self {
            Prepared::Process(process) => Instance::start(*process, clock).await.map(Started::Instance),
            Prepared::NoBootstrap(message) => Ok(Started::NoBootstrap(message)),
        }
    }
}

/// The command and environment of an instance whose files it sees at `view`.
async fn prepare(
    spec: &FunctionSpec,
    family: &Family,
    host: &Dirs,
    view: Dirs,
    log_stream: &str,
    endpoint_url: &str,
    sandbox: Option<sandbox::Sandbox>,
) -> Result<Prepared, HostError> {
    let launch = {
        let (family, host, view) = (family.clone(), host.clone(), view.clone());
        blocking(move || runtimes::launch(&family, &host, &view)).await?
    };
    let launch = match launch {
        Ok(launch) => launch,
        Err(runtimes::NoBootstrap(message)) => return Ok(Prepared::NoBootstrap(message)),
    };
    let cwd = if sandbox.is_some() {
        PathBuf::from("/")
    } else {
        view.task_root.clone()
    };
    let extensions = match (&host.opt, &view.opt) {
        (Some(host_opt), Some(view_opt)) => external_extensions(host_opt)
            .into_iter()
            .map(|name| view_opt.join("extensions").join(name))
            .collect(),
        _ => Vec::new(),
    };
    let context = runtimes::Context {
        dirs: view,
        log_stream: log_stream.to_owned(),
        endpoint_url,
    };
    Ok(Prepared::Process(Box::new(ProcessSpec {
        program: launch.program,
        args: launch.args,
        cwd,
        env: runtimes::environment(spec, family, &context),
        function_name: spec.function_name.clone(),
        sandbox,
        extensions,
        function: FunctionInfo {
            name: spec.function_name.clone(),
            version: spec.version.clone(),
            handler: spec.handler.clone(),
        },
    })))
}

/// The external extensions a function's layers bring: the executables in `/opt/extensions`.
fn external_extensions(opt: &Path) -> Vec<std::ffi::OsString> {
    use std::os::unix::fs::PermissionsExt;
    let Ok(entries) = std::fs::read_dir(opt.join("extensions")) else {
        return Vec::new();
    };
    let mut names: Vec<_> = entries
        .flatten()
        .filter(|entry| {
            entry
                .path()
                .metadata()
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
        .map(|entry| entry.file_name())
        .collect();
    names.sort();
    names
}

async fn unpack(archive: CodeArchive, root: PathBuf) -> Result<PathBuf, HostError> {
    blocking(move || zip::unpack(&archive, &root)).await
}

async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, HostError> + Send + 'static,
) -> Result<T, HostError> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| HostError::Code(format!("unpacking failed: {e}")))?
}
