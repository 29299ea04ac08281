//! One instance: a process running a function's runtime, its Runtime API server, the tasks
//! reading its output, and the task waiting for it to exit.
//!
//! The process is the leader of its own process group, which [`Instance::kill`] (and
//! dropping the instance) kills whole, and it is told to die with Stratus
//! (`PR_SET_PDEATHSIG`; strictly, with the thread that spawned it, which is one of the tokio
//! runtime's workers: they live as long as the runtime). When it exits, whatever invocation it
//! held ends with `Runtime.ExitError`.

use std::ffi::{CString, OsString};
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;
use std::process::{ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use stratus_core::clock::{Clock, Moment};
use tokio::process::Command;

use crate::extensions_api::{Extensions, FunctionInfo};
use crate::log::{capture, LogBuffer};
use crate::runtime_api::{self, Completion, Invocation, Mailbox, Server};
use crate::sandbox::{self, Sandbox};
use crate::HostError;

/// How to start an instance's process.
pub(crate) struct ProcessSpec {
    pub(crate) program: PathBuf,
    pub(crate) args: Vec<OsString>,
    pub(crate) cwd: PathBuf,
    /// Made complete by [`Instance::start`] with `AWS_LAMBDA_RUNTIME_API`, after the
    /// function's own variables (the service keeps users from setting it).
    pub(crate) env: Vec<(String, String)>,
    pub(crate) function_name: String,
    /// The namespaces to run in, if any.
    pub(crate) sandbox: Option<Sandbox>,
    /// External extensions to start beside the runtime (as the process sees them).
    pub(crate) extensions: Vec<PathBuf>,
    /// What the extensions are told when they register.
    pub(crate) function: FunctionInfo,
}

/// The external extensions' commands, made ready for `execve` before the fork.
struct ExtensionLauncher {
    programs: Vec<CString>,
    /// `KEY=value` of the instance's environment.
    env: Vec<CString>,
}

impl ExtensionLauncher {
    fn new(programs: &[PathBuf], env: &[(String, String)]) -> ExtensionLauncher {
        let cstring = |bytes: Vec<u8>| CString::new(bytes).ok();
        ExtensionLauncher {
            programs: programs
                .iter()
                .filter_map(|p| cstring(p.as_os_str().as_bytes().to_vec()))
                .collect(),
            env: env
                .iter()
                .filter_map(|(k, v)| cstring(format!("{k}={v}").into_bytes()))
                .collect(),
        }
    }

    /// Forks and execs each extension; called between fork and exec of the runtime.
    ///
    /// # Safety
    /// Only between fork and exec, in a single-threaded child.
    unsafe fn launch(&self, argv: &[*const libc::c_char], envp: &[*const libc::c_char]) {
        for (program, argv0) in self.programs.iter().zip(argv.chunks(2)) {
            if libc::fork() == 0 {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong, 0, 0, 0);
                libc::execve(program.as_ptr(), argv0.as_ptr(), envp.as_ptr());
                libc::_exit(127);
            }
        }
    }
}

/// Pointer arrays into an [`ExtensionLauncher`]'s strings (which outlive them).
struct Pointers(Vec<*const libc::c_char>);

impl Pointers {
    fn get(&self) -> &[*const libc::c_char] {
        &self.0
    }
}

// SAFETY: the pointers point into CStrings owned by the same closure, never written.
unsafe impl Send for Pointers {}
unsafe impl Sync for Pointers {}

/// A running instance.
pub(crate) struct Instance {
    mailbox: Arc<Mailbox>,
    pub(crate) log: LogBuffer,
    pid: Option<u32>,
    /// Whether the process is the namespaces' intermediate (the runtime is its child).
    sandboxed: bool,
    /// The sandboxed runtime's process, found once: the intermediate forks it only once.
    runtime: std::sync::OnceLock<u32>,
    exited: Arc<AtomicBool>,
    /// Woken when the process exits.
    exit_notice: Arc<tokio::sync::Notify>,
    pipes: [RawFd; 2],
    /// When the process was spawned (its init duration runs from here).
    pub(crate) spawned: Moment,
    /// Names the instance's log stream.
    pub(crate) environment_id: String,
    _server: Server,
}

/// A new execution environment's id: 32 hex digits.
pub(crate) fn environment_id() -> String {
    format!(
        "{:016x}{:016x}",
        stratus_core::id::random_u64(),
        stratus_core::id::random_u64()
    )
}

impl Instance {
    /// Starts the Runtime API and the process.
    pub(crate) async fn start(mut spec: ProcessSpec, clock: &Clock) -> Result<Instance, HostError> {
        let log = LogBuffer::default();
        let extensions = Extensions::new(spec.extensions.len(), spec.function.clone());
        let mailbox = Arc::new(Mailbox::new(clock.clone(), log.clone(), extensions));
        let server = runtime_api::serve(mailbox.clone())
            .await
            .map_err(|e| HostError::Code(format!("could not start the Runtime API: {e}")))?;
        spec.env.retain(|(k, _)| k != "AWS_LAMBDA_RUNTIME_API");
        spec.env
            .push(("AWS_LAMBDA_RUNTIME_API".into(), server.addr.to_string()));

        let mut command = Command::new(&spec.program);
        command
            .args(&spec.args)
            .current_dir(&spec.cwd)
            .env_clear()
            .envs(spec.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .kill_on_drop(true);
        let sandboxed = spec.sandbox.is_some();
        let sandbox = spec.sandbox.take();
        let launcher = ExtensionLauncher::new(&spec.extensions, &spec.env);
        // argv: [program, NULL] per extension; envp: every variable, NULL.
        let argv = Pointers(
            launcher
                .programs
                .iter()
                .flat_map(|p| [p.as_ptr(), std::ptr::null()])
                .collect(),
        );
        let envp = Pointers(
            launcher
                .env
                .iter()
                .map(|v| v.as_ptr())
                .chain(std::iter::once(std::ptr::null()))
                .collect(),
        );
        // SAFETY: between fork and exec the closure makes only system calls (prctl, getppid,
        // and the sandbox's, prepared beforehand) and allocates nothing.
        unsafe {
            command.pre_exec(move || {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong, 0, 0, 0) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                // Stratus died before the prctl took effect: so must this process.
                if libc::getppid() == 1 {
                    return Err(std::io::Error::other("the parent exited"));
                }
                if let Some(sandbox) = &sandbox {
                    sandbox.enter()?;
                }
                launcher.launch(argv.get(), envp.get());
                Ok(())
            });
        }
        let spawned = clock.moment();
        let mut child = command
            .spawn()
            .map_err(|e| HostError::Code(format!("could not start {}: {e}", spec.program.display())))?;
        let pid = child.id();
        let mut pipes = [-1, -1];
        if let Some(stdout) = child.stdout.take() {
            pipes[0] = stdout.as_raw_fd();
            tokio::spawn(capture(stdout, log.clone(), spec.function_name.clone()));
        }
        if let Some(stderr) = child.stderr.take() {
            pipes[1] = stderr.as_raw_fd();
            tokio::spawn(capture(stderr, log.clone(), spec.function_name.clone()));
        }
        let exited = Arc::new(AtomicBool::new(false));
        let exit_notice = Arc::new(tokio::sync::Notify::new());
        {
            let (exited, exit_notice) = (exited.clone(), exit_notice.clone());
            let mailbox = mailbox.clone();
            tokio::spawn(async move {
                let status = child.wait().await;
                exited.store(true, Ordering::Release);
                exit_notice.notify_one();
                let description = match status {
                    Ok(status) => describe(status),
                    Err(e) => format!("wait failed: {e}"),
                };
                mailbox.fail(Completion::Exited(description));
            });
        }
        Ok(Instance {
            mailbox,
            log,
            pid,
            sandboxed,
            runtime: std::sync::OnceLock::new(),
            exited,
            exit_notice,
            pipes,
            spawned,
            environment_id: environment_id(),
            _server: server,
        })
    }

    /// Hands `invocation` to the runtime.
    pub(crate) fn send(&self, invocation: Invocation) {
        self.mailbox.queue(invocation);
    }

    /// Forgets the invocation in flight (it timed out; the instance is being killed).
    pub(crate) fn abandon(&self) {
        self.mailbox.clear();
    }

    /// Whether the process has exited.
    pub(crate) fn has_exited(&self) -> bool {
        self.exited.load(Ordering::Acquire)
    }

    /// A future that completes when the process has exited (it holds no reference to the
    /// instance). One waiter at a time.
    pub(crate) fn exit(&self) -> impl std::future::Future<Output = ()> + Send + 'static {
        let (exited, notice) = (self.exited.clone(), self.exit_notice.clone());
        async move {
            while !exited.load(Ordering::Acquire) {
                notice.notified().await;
            }
        }
    }

    /// The process id, while it runs.
    pub(crate) fn pid(&self) -> Option<u32> {
        self.pid.filter(|_| !self.has_exited())
    }

    /// The runtime's own process (for its memory use), while it runs.
    pub(crate) fn runtime_pid(&self) -> Option<u32> {
        let pid = self.pid()?;
        if !self.sandboxed {
            return Some(pid);
        }
        match self.runtime.get() {
            Some(runtime) => Some(*runtime),
            None => {
                let runtime = sandbox::runtime_pid(pid)?;
                Some(*self.runtime.get_or_init(|| runtime))
            }
        }
    }

    /// Stops the instance as Lambda spins one down: its extensions get `SHUTDOWN` and until
    /// they ask for their next event (2 s at most) before the process is killed.
    pub(crate) fn spin_down(self: Arc<Self>, clock: &Clock) {
        const GRACE: Duration = Duration::from_secs(2);
        let deadline_ms = clock.epoch_millis().saturating_add(2000);
        if self.has_exited() || !self.mailbox.extensions().shut_down(deadline_ms) {
            self.kill();
            return;
        }
        tokio::spawn(async move {
            let step = Duration::from_millis(10);
            let mut waited = Duration::ZERO;
            while waited < GRACE && !self.has_exited() && !self.mailbox.extensions().idle() {
                tokio::time::sleep(step).await;
                waited += step;
            }
            self.kill();
        });
    }

    /// Kills the process and everything it started.
    pub(crate) fn kill(&self) {
        if let Some(pid) = self.pid() {
            if let Ok(pgid) = libc::pid_t::try_from(pid) {
                // SAFETY: kill has no memory effects; the group is the instance's own.
                unsafe {
                    libc::kill(-pgid, libc::SIGKILL);
                }
            }
        }
    }

    /// Waits (briefly) until what the process wrote to its pipes before now has been read
    /// into the log, so an invocation's log holds what its handler printed.
    pub(crate) async fn drain_output(&self) {
        for _ in 0..50 {
            if self.has_exited() || self.pipes.iter().all(|fd| pending(*fd) == 0) {
                break;
            }
            tokio::time::sleep(Duration::from_micros(200)).await;
        }
        tokio::task::yield_now().await;
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        self.kill();
    }
}

/// How many bytes wait unread in pipe `fd` (0 if it is closed).
fn pending(fd: RawFd) -> libc::c_int {
    if fd < 0 {
        return 0;
    }
    let mut count: libc::c_int = 0;
    // SAFETY: FIONREAD writes one c_int to the pointer given.
    let done = unsafe { libc::ioctl(fd, libc::FIONREAD, &mut count) };
    if done == 0 {
        count
    } else {
        0
    }
}

/// An exit status as Lambda reports it (Go's wording): `exit status 1`, `signal: killed`.
fn describe(status: ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    if let Some(code) = status.code() {
        return format!("exit status {code}");
    }
    match status.signal() {
        Some(libc::SIGKILL) => "signal: killed".to_owned(),
        Some(libc::SIGTERM) => "signal: terminated".to_owned(),
        Some(libc::SIGSEGV) => "signal: segmentation fault".to_owned(),
        Some(libc::SIGABRT) => "signal: aborted".to_owned(),
        Some(libc::SIGINT) => "signal: interrupt".to_owned(),
        Some(libc::SIGBUS) => "signal: bus error".to_owned(),
        Some(libc::SIGILL) => "signal: illegal instruction".to_owned(),
        Some(signal) => format!("signal: {signal}"),
        None => "exit status unknown".to_owned(),
    }
}
