//! Starting a new instance: the work directory, the code and layers unpacked, the runtime
//! client written, the command and environment chosen, and the process spawned.
//!
//! The work directory holds `code/<sha>/` (one per code archive or layer, shared by every
//! instance of it), `opt/<sha>+<sha>…/` (a function's layers merged, in order) and
//! `runtime/` (the runtime clients).

use std::path::{Path, PathBuf};
use std::sync::{Mutex, Once, PoisonError};

use stratus_core::clock::Clock;

use crate::instance::{Instance, ProcessSpec};
use crate::runtimes::{self, Dirs, Family};
use crate::{clients, zip, CodeArchive, FunctionSpec, HostConfig, HostError};

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
) -> Result<Started, HostError> {
    let family = runtimes::family(&spec.runtime)?;
    warn_plain_processes();
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
    let launch = {
        let (family, code, opt, runtime_dir) = (family.clone(), code.clone(), opt.clone(), runtime_dir.clone());
        blocking(move || {
            let dirs = Dirs {
                task_root: &code,
                opt: opt.as_deref(),
                runtime_dir: &runtime_dir,
            };
            runtimes::launch(&family, &dirs)
        })
        .await?
    };
    let dirs = Dirs {
        task_root: &code,
        opt: opt.as_deref(),
        runtime_dir: &runtime_dir,
    };
    let launch = match launch {
        Ok(launch) => launch,
        Err(runtimes::NoBootstrap(message)) => return Ok(Started::NoBootstrap(message)),
    };
    let context = runtimes::Context {
        dirs,
        runtime_api: String::new(),
        log_stream: runtimes::log_stream_name(clock.epoch_secs(), &spec.version),
        endpoint_url,
    };
    let env = runtimes::environment(spec, &family, &context);
    let process = ProcessSpec {
        program: launch.program,
        args: launch.args,
        cwd: code.clone(),
        env,
        function_name: spec.function_name.clone(),
    };
    Instance::start(process, clock).await.map(Started::Instance)
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

/// Says once that instances are plain processes, not namespaced sandboxes.
fn warn_plain_processes() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        tracing::warn!(
            "Lambda instances run as plain host processes: LAMBDA_TASK_ROOT is the unpacked code \
             directory (not /var/task), layers are merged in a directory of the work dir (not /opt), \
             and /tmp is the host's"
        );
    });
}
