//! Which command starts an instance of each runtime, and the environment it starts with.
//!
//! `provided*` runs the package's `bootstrap` (the code's, else the layers' in `/opt`);
//! `python3.*` and `nodejs*` run the host's interpreter on a runtime client Stratus ships
//! ([`crate::clients`]). Every other runtime is refused with what it would take.

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use crate::{Credentials, FunctionSpec, HostError};

/// The kind of a runtime string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Family {
    /// `provided`, `provided.al2`, `provided.al2023`.
    Provided,
    /// `python3.X`, with `3.X`.
    Python(String),
    /// `nodejsNN.x`.
    Node,
}

/// What runtime `runtime` is, or why the host cannot run it.
pub(crate) fn family(runtime: &str) -> Result<Family, HostError> {
    if runtime == "provided" || runtime.starts_with("provided.") {
        return Ok(Family::Provided);
    }
    if let Some(version) = runtime.strip_prefix("python") {
        if version.starts_with("3.") && version[2..].chars().all(|c| c.is_ascii_digit()) && version.len() > 2 {
            return Ok(Family::Python(version.to_owned()));
        }
    }
    if runtime.starts_with("nodejs") {
        return Ok(Family::Node);
    }
    let language = runtime.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.' || c == 'x');
    Err(HostError::RuntimeUnavailable(match language {
        "java" | "dotnet" | "ruby" | "go" => format!(
            "The runtime {runtime} is not supported by Stratus yet: use python3.x, nodejsNN.x or provided.al2023"
        ),
        _ => format!("The runtime {runtime} is not supported by Stratus: use python3.x, nodejsNN.x or provided.al2023"),
    }))
}

/// How an instance's process is started.
pub(crate) struct Launch {
    pub(crate) program: PathBuf,
    pub(crate) args: Vec<OsString>,
}

/// Where an instance's files are: on the host, or as its process sees them.
#[derive(Debug, Clone)]
pub(crate) struct Dirs {
    /// `LAMBDA_TASK_ROOT`: the unpacked code.
    pub(crate) task_root: PathBuf,
    /// The layers merged (`/opt`), if any.
    pub(crate) opt: Option<PathBuf>,
    /// `LAMBDA_RUNTIME_DIR`: where the runtime clients are.
    pub(crate) runtime_dir: PathBuf,
}

/// Why a `provided` function could not start: AWS's `Runtime.InvalidEntrypoint` message.
pub(crate) struct NoBootstrap(pub(crate) String);

/// The command of `family`, or `Ok(Err(..))` when a custom runtime has no bootstrap: looked
/// for in `host`, named as the process sees it (`view`).
/// Blocking (it may ask an interpreter where it is): call it from a blocking thread.
pub(crate) fn launch(family: &Family, host: &Dirs, view: &Dirs) -> Result<Result<Launch, NoBootstrap>, HostError> {
    match family {
        Family::Provided => {
            let mut candidates = vec![(host.task_root.join("bootstrap"), view.task_root.join("bootstrap"))];
            if let (Some(host_opt), Some(view_opt)) = (&host.opt, &view.opt) {
                candidates.push((host_opt.join("bootstrap"), view_opt.join("bootstrap")));
            }
            Ok(match candidates.into_iter().find(|(path, _)| path.is_file()) {
                Some((_, bootstrap)) => Ok(Launch {
                    program: bootstrap,
                    args: Vec::new(),
                }),
                None => Err(NoBootstrap(
                    "Couldn't find valid bootstrap(s): [/var/task/bootstrap /opt/bootstrap]".to_owned(),
                )),
            })
        }
        Family::Python(version) => {
            let program = python(version).ok_or_else(|| {
                HostError::RuntimeUnavailable(format!(
                    "The runtime python{version} needs python3 on the host: install python{version} or python3 (e.g. apt-get install python3)"
                ))
            })?;
            let mut args = vec![view.runtime_dir.join(crate::clients::PYTHON).into_os_string()];
            args.extend(view.opt.as_ref().map(|opt| opt.as_os_str().to_owned()));
            Ok(Ok(Launch { program, args }))
        }
        Family::Node => {
            let program = find_program(&["node", "nodejs"]).ok_or_else(|| {
                HostError::RuntimeUnavailable(
                    "The nodejs runtimes need node on the host: install Node.js (e.g. apt-get install nodejs)"
                        .to_owned(),
                )
            })?;
            let args = vec![view.runtime_dir.join(crate::clients::NODE).into_os_string()];
            Ok(Ok(Launch { program, args }))
        }
    }
}

/// The interpreter for `python3.X`: `python3.X` if the host has one that runs, else
/// `python3`. Asked once per version (blocking), it answers with the real executable
/// (`sys.executable`), so a version manager's shim is neither run per cold start nor taken
/// when it only names a version that is not installed.
fn python(version: &str) -> Option<PathBuf> {
    static FOUND: Mutex<Option<HashMap<String, Option<PathBuf>>>> = Mutex::new(None);
    let mut found = FOUND.lock().unwrap_or_else(PoisonError::into_inner);
    let cache = found.get_or_insert_with(HashMap::new);
    if let Some(known) = cache.get(version) {
        return known.clone();
    }
    let specific = format!("python{version}");
    let resolved = [specific.as_str(), "python3"].iter().find_map(|name| {
        let program = find_program(&[name])?;
        let output = std::process::Command::new(&program)
            .args(["-c", "import sys; sys.stdout.write(sys.executable)"])
            .stdin(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .output()
            .ok()?;
        let executable = PathBuf::from(String::from_utf8(output.stdout).ok()?);
        (output.status.success() && is_executable(&executable)).then_some(executable)
    });
    cache.insert(version.to_owned(), resolved.clone());
    resolved
}

/// The first of `names` found on the host's `PATH`.
fn find_program(names: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    names.iter().find_map(|name| {
        std::env::split_paths(&path)
            .map(|dir| dir.join(name))
            .find(|candidate| is_executable(candidate))
    })
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata()
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// What an instance's environment is made of besides the function's own settings.
pub(crate) struct Context<'a> {
    /// As the process sees them.
    pub(crate) dirs: Dirs,
    pub(crate) log_stream: String,
    pub(crate) endpoint_url: &'a str,
}

/// The environment of an instance of `spec`: what Lambda sets (but `AWS_LAMBDA_RUNTIME_API`,
/// added once the instance's server listens), then the function's own variables over it
/// (the service has refused reserved keys already).
pub(crate) fn environment(spec: &FunctionSpec, family: &Family, context: &Context<'_>) -> Vec<(String, String)> {
    let task = context.dirs.task_root.display().to_string();
    let runtime_dir = context.dirs.runtime_dir.display().to_string();
    let opt = context.dirs.opt.as_ref().map(|opt| opt.display().to_string());
    let opt_or = |sub: &str| match &opt {
        Some(opt) => format!("{opt}/{sub}"),
        None => format!("/opt/{sub}"),
    };
    // AWS: /var/lang/bin:/usr/local/bin:/usr/bin/:/bin:/opt/bin. On the host, its own PATH
    // stands for the image's directories.
    let host_path = std::env::var("PATH").unwrap_or_else(|_| "/usr/local/bin:/usr/bin:/bin".to_owned());
    let mut env: Vec<(String, String)> = vec![
        ("_HANDLER".into(), spec.handler.clone()),
        ("AWS_REGION".into(), spec.region.clone()),
        ("AWS_DEFAULT_REGION".into(), spec.region.clone()),
        ("AWS_LAMBDA_FUNCTION_NAME".into(), spec.function_name.clone()),
        ("AWS_LAMBDA_FUNCTION_MEMORY_SIZE".into(), spec.memory_mb.to_string()),
        ("AWS_LAMBDA_FUNCTION_VERSION".into(), spec.version.clone()),
        ("AWS_LAMBDA_INITIALIZATION_TYPE".into(), "on-demand".into()),
        ("AWS_LAMBDA_LOG_GROUP_NAME".into(), spec.log_group.clone()),
        ("AWS_LAMBDA_LOG_STREAM_NAME".into(), context.log_stream.clone()),
        ("LAMBDA_TASK_ROOT".into(), task.clone()),
        ("LAMBDA_RUNTIME_DIR".into(), runtime_dir.clone()),
        ("LANG".into(), "en_US.UTF-8".into()),
        ("TZ".into(), ":UTC".into()),
        ("PATH".into(), format!("{host_path}:{}", opt_or("bin"))),
        (
            "LD_LIBRARY_PATH".into(),
            format!("{runtime_dir}:{runtime_dir}/lib:{task}:{task}/lib:{}", opt_or("lib")),
        ),
        ("AWS_ENDPOINT_URL".into(), context.endpoint_url.to_owned()),
    ];
    match family {
        // Custom runtimes get no AWS_EXECUTION_ENV.
        Family::Provided => {}
        Family::Python(_) => {
            env.push(("AWS_EXECUTION_ENV".into(), format!("AWS_Lambda_{}", spec.runtime)));
            env.push(("PYTHONPATH".into(), runtime_dir.clone()));
        }
        Family::Node => {
            env.push(("AWS_EXECUTION_ENV".into(), format!("AWS_Lambda_{}", spec.runtime)));
            let major = spec.runtime.trim_start_matches("nodejs").trim_end_matches(".x");
            env.push((
                "NODE_PATH".into(),
                format!(
                    "{}:{}:{runtime_dir}/node_modules:{runtime_dir}:{task}",
                    opt_or(&format!("nodejs/node{major}/node_modules")),
                    opt_or("nodejs/node_modules")
                ),
            ));
        }
    }
    if let Some(Credentials {
        access_key_id,
        secret_access_key,
        session_token,
    }) = &spec.credentials
    {
        env.push(("AWS_ACCESS_KEY_ID".into(), access_key_id.clone()));
        env.push(("AWS_SECRET_ACCESS_KEY".into(), secret_access_key.clone()));
        env.push(("AWS_SESSION_TOKEN".into(), session_token.clone()));
    }
    for (key, value) in &spec.environment {
        env.retain(|(k, _)| k != key);
        env.push((key.clone(), value.clone()));
    }
    env
}

/// A log stream name as Lambda makes them: `YYYY/MM/DD/[VERSION]<32 hex digits>`.
pub(crate) fn log_stream_name(epoch_secs: u64, version: &str) -> String {
    let days = i64::try_from(epoch_secs / 86_400).unwrap_or(0);
    let (year, month, day) = stratus_core::calendar::civil_from_days(days);
    let hex = format!(
        "{:016x}{:016x}",
        stratus_core::id::random_u64(),
        stratus_core::id::random_u64()
    );
    format!("{year:04}/{month:02}/{day:02}/[{version}]{hex}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runtime_families() {
        assert_eq!(family("provided.al2023").ok(), Some(Family::Provided));
        assert_eq!(family("python3.12").ok(), Some(Family::Python("3.12".into())));
        assert_eq!(family("nodejs20.x").ok(), Some(Family::Node));
        assert!(matches!(family("java21"), Err(HostError::RuntimeUnavailable(_))));
        assert!(matches!(family("python3."), Err(HostError::RuntimeUnavailable(_))));
        assert!(matches!(family(""), Err(HostError::RuntimeUnavailable(_))));
        assert!(matches!(family("python2.7"), Err(HostError::RuntimeUnavailable(_))));
    }

    #[test]
    fn log_stream_names_are_dated() {
        let name = log_stream_name(1_700_000_000, "$LATEST");
        assert!(name.starts_with("2023/11/14/[$LATEST]"), "{name}");
        assert_eq!(name.len(), "2023/11/14/[$LATEST]".len() + 32);
    }
}
