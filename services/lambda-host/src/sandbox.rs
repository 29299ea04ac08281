//! Linux namespaces for an instance, so its files are where Lambda puts them: the code
//! read-only at `/var/task`, the layers at `/opt`, the runtime client at `/var/runtime`, and
//! a private `/tmp` (a tmpfs of `EphemeralStorage.Size`).
//!
//! The instance's process, between fork and exec ([`Sandbox::enter`], from `pre_exec`):
//! 1. unshares a user, mount, PID and IPC namespace and maps its own uid and gid to root;
//! 2. forks once more, so the runtime is PID 1 of the new PID namespace; the first child
//!    stays outside only to wait for it and pass its exit status on;
//! 3. builds a new root on a tmpfs: every top-level entry of the host's `/` (and of `/var`)
//!    bind-mounted, except `/tmp`, `/opt` and `/proc`, which are the instance's own, then
//!    `pivot_root`s into it.
//!
//! Everything the child runs is prepared before the fork ([`Sandbox::new`]): between fork
//! and exec it only makes system calls on C strings it was handed, allocating nothing.
//! Where namespaces are not available (no user namespaces, a seccomp filter, another OS) the
//! first attempt fails, [`unavailable`] remembers it, and instances run as plain processes.

use std::ffi::CString;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

/// Where an instance's files appear inside its namespace.
pub(crate) const TASK_ROOT: &str = "/var/task";
/// The layers' directory inside the namespace.
pub(crate) const OPT: &str = "/opt";
/// The runtime clients' directory inside the namespace.
pub(crate) const RUNTIME_DIR: &str = "/var/runtime";

static UNAVAILABLE: AtomicBool = AtomicBool::new(false);

/// Whether an attempt has shown that namespaces cannot be used here.
pub(crate) fn unavailable() -> bool {
    UNAVAILABLE.load(Ordering::Relaxed)
}

/// Records that namespaces failed, and says so once.
pub(crate) fn mark_unavailable(error: &io::Error) {
    if !UNAVAILABLE.swap(true, Ordering::Relaxed) {
        tracing::warn!(
            "Lambda instances run as plain host processes (Linux namespaces are not available: {error}): \
             LAMBDA_TASK_ROOT is the unpacked code directory, not /var/task, layers are not at /opt, \
             and /tmp is the host's"
        );
    }
}

/// One bind mount or symlink of the new root.
enum Entry {
    Bind {
        source: CString,
        target: CString,
        read_only: bool,
    },
    Symlink {
        link: CString,
        target: CString,
    },
}

/// What an instance's namespace is made of, ready for the child to build.
pub(crate) struct Sandbox {
    uid_map: Vec<u8>,
    gid_map: Vec<u8>,
    new_root: CString,
    entries: Vec<Entry>,
    /// Directories made inside the new root before anything is mounted on them.
    dirs: Vec<CString>,
    tmp: CString,
    tmp_options: CString,
    proc_dir: CString,
    task_root: CString,
}

/// The host's own directories the new root shows as they are (besides those in `/var`).
const SKIPPED: [&str; 4] = ["proc", "tmp", "opt", "var"];
const SKIPPED_IN_VAR: [&str; 2] = ["task", "runtime"];

fn cstring(path: &Path) -> io::Result<CString> {
    CString::new(path.as_os_str().as_bytes()).map_err(|_| io::Error::other("a path holds a NUL byte"))
}

impl Sandbox {
    /// Prepares a namespace for code at `code`, layers at `opt`, clients at `runtime_dir`,
    /// built on the (empty) mount point `new_root`, with a `/tmp` of `tmp_mb`.
    pub(crate) fn new(
        new_root: &Path,
        code: &Path,
        opt: Option<&Path>,
        runtime_dir: &Path,
        tmp_mb: u32,
    ) -> io::Result<Sandbox> {
        std::fs::create_dir_all(new_root)?;
        // SAFETY: geteuid and getegid cannot fail and touch no memory.
        let (uid, gid) = unsafe { (libc::geteuid(), libc::getegid()) };
        let mut sandbox = Sandbox {
            uid_map: format!("0 {uid} 1\n").into_bytes(),
            gid_map: format!("0 {gid} 1\n").into_bytes(),
            new_root: cstring(new_root)?,
            entries: Vec::new(),
            dirs: Vec::new(),
            tmp: cstring(&new_root.join("tmp"))?,
            tmp_options: CString::new(format!("size={}m,mode=1777", tmp_mb.max(1)))
                .map_err(|_| io::Error::other("bad tmpfs options"))?,
            proc_dir: cstring(&new_root.join("proc"))?,
            task_root: CString::new(TASK_ROOT).map_err(|_| io::Error::other("bad path"))?,
        };
        sandbox.mirror(Path::new("/"), new_root, &SKIPPED)?;
        sandbox.dirs.push(cstring(&new_root.join("var"))?);
        sandbox.mirror(Path::new("/var"), &new_root.join("var"), &SKIPPED_IN_VAR)?;
        for dir in ["tmp", "proc", "opt", "var/task", "var/runtime"] {
            sandbox.dirs.push(cstring(&new_root.join(dir))?);
        }
        sandbox.bind(code, &new_root.join("var/task"), true)?;
        sandbox.bind(runtime_dir, &new_root.join("var/runtime"), true)?;
        if let Some(opt) = opt {
            sandbox.bind(opt, &new_root.join("opt"), true)?;
        }
        Ok(sandbox)
    }

    fn bind(&mut self, source: &Path, target: &Path, read_only: bool) -> io::Result<()> {
        self.entries.push(Entry::Bind {
            source: cstring(source)?,
            target: cstring(target)?,
            read_only,
        });
        Ok(())
    }

    /// Shows every entry of the host's `from` at `to`, but those `skipped`.
    fn mirror(&mut self, from: &Path, to: &Path, skipped: &[&str]) -> io::Result<()> {
        let Ok(entries) = std::fs::read_dir(from) else {
            return Ok(());
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            if name.to_str().is_some_and(|n| skipped.contains(&n)) {
                continue;
            }
            let source = entry.path();
            let target = to.join(&name);
            let Ok(kind) = entry.file_type() else { continue };
            if kind.is_symlink() {
                let Ok(link_target) = std::fs::read_link(&source) else {
                    continue;
                };
                self.entries.push(Entry::Symlink {
                    link: cstring(&target)?,
                    target: cstring(&link_target)?,
                });
            } else if kind.is_dir() {
                self.dirs.push(cstring(&target)?);
                self.bind(&source, &target, false)?;
            }
            // Plain files and sockets at the top level are not needed by a runtime.
        }
        Ok(())
    }

    /// Enters the namespaces; called in the forked child before exec. Returns in the
    /// runtime's process (PID 1 of the new namespace) ready to exec; the intermediate process
    /// never returns.
    ///
    /// # Safety
    /// Only between fork and exec, in a single-threaded child.
    pub(crate) unsafe fn enter(&self) -> io::Result<()> {
        check(libc::unshare(
            libc::CLONE_NEWUSER | libc::CLONE_NEWNS | libc::CLONE_NEWPID | libc::CLONE_NEWIPC,
        ))?;
        write_file(c"/proc/self/setgroups", b"deny")?;
        write_file(c"/proc/self/uid_map", &self.uid_map)?;
        write_file(c"/proc/self/gid_map", &self.gid_map)?;
        let child = check(libc::fork())?;
        if child > 0 {
            wait_and_exit(child);
        }
        // The runtime: dies with the intermediate process, which dies with Stratus.
        check(libc::prctl(
            libc::PR_SET_PDEATHSIG,
            libc::SIGKILL as libc::c_ulong,
            0,
            0,
            0,
        ))?;
        self.build_root()
    }

    unsafe fn build_root(&self) -> io::Result<()> {
        let none = std::ptr::null();
        check(libc::mount(
            none,
            c"/".as_ptr(),
            none,
            libc::MS_REC | libc::MS_PRIVATE,
            std::ptr::null(),
        ))?;
        check(libc::mount(
            c"tmpfs".as_ptr(),
            self.new_root.as_ptr(),
            c"tmpfs".as_ptr(),
            libc::MS_NOSUID | libc::MS_NODEV,
            c"mode=0755".as_ptr().cast(),
        ))?;
        for dir in &self.dirs {
            libc::mkdir(dir.as_ptr(), 0o755);
        }
        for entry in &self.entries {
            match entry {
                Entry::Symlink { link, target } => {
                    libc::symlink(target.as_ptr(), link.as_ptr());
                }
                Entry::Bind {
                    source,
                    target,
                    read_only,
                } => {
                    let bound = libc::mount(
                        source.as_ptr(),
                        target.as_ptr(),
                        none,
                        libc::MS_BIND | libc::MS_REC,
                        std::ptr::null(),
                    );
                    if *read_only {
                        // The code, layers and clients must be there; read-only is best effort
                        // (a remount can be refused when the source's flags are locked).
                        check(bound)?;
                        libc::mount(
                            none,
                            target.as_ptr(),
                            none,
                            libc::MS_BIND | libc::MS_REMOUNT | libc::MS_RDONLY | libc::MS_NOSUID | libc::MS_NODEV,
                            std::ptr::null(),
                        );
                    }
                }
            }
        }
        // /tmp: a tmpfs of the function's size, else a directory of the new root's tmpfs.
        libc::mount(
            c"tmpfs".as_ptr(),
            self.tmp.as_ptr(),
            c"tmpfs".as_ptr(),
            libc::MS_NOSUID | libc::MS_NODEV,
            self.tmp_options.as_ptr().cast(),
        );
        // /proc of the new PID namespace, else the host's.
        if libc::mount(
            c"proc".as_ptr(),
            self.proc_dir.as_ptr(),
            c"proc".as_ptr(),
            libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
            std::ptr::null(),
        ) != 0
        {
            check(libc::mount(
                c"/proc".as_ptr(),
                self.proc_dir.as_ptr(),
                none,
                libc::MS_BIND | libc::MS_REC,
                std::ptr::null(),
            ))?;
        }
        check(libc::chdir(self.new_root.as_ptr()))?;
        check(libc::syscall(libc::SYS_pivot_root, c".".as_ptr(), c".".as_ptr()) as libc::c_int)?;
        check(libc::umount2(c".".as_ptr(), libc::MNT_DETACH))?;
        check(libc::chdir(self.task_root.as_ptr()))?;
        Ok(())
    }
}

/// The intermediate process: closes everything (so the parent's spawn sees the exec, not
/// this process), waits for the runtime and exits as it did.
unsafe fn wait_and_exit(child: libc::pid_t) -> ! {
    if libc::syscall(libc::SYS_close_range, 0u32, u32::MAX, 0u32) != 0 {
        for fd in 0..1024 {
            libc::close(fd);
        }
    }
    let mut status = 0;
    loop {
        let waited = libc::waitpid(child, &mut status, 0);
        if waited == child {
            break;
        }
        if waited < 0 && *libc::__errno_location() != libc::EINTR {
            libc::_exit(127);
        }
    }
    if libc::WIFEXITED(status) {
        libc::_exit(libc::WEXITSTATUS(status));
    }
    if libc::WIFSIGNALED(status) {
        let signal = libc::WTERMSIG(status);
        libc::signal(signal, libc::SIG_DFL);
        libc::kill(libc::getpid(), signal);
        libc::_exit(128 + signal);
    }
    libc::_exit(127)
}

unsafe fn write_file(path: &std::ffi::CStr, content: &[u8]) -> io::Result<()> {
    let fd = check(libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC))?;
    let written = libc::write(fd, content.as_ptr().cast(), content.len());
    libc::close(fd);
    if written < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

fn check(result: libc::c_int) -> io::Result<libc::c_int> {
    if result < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(result)
    }
}

/// The process a sandboxed instance's runtime runs as: the child of `intermediate`.
pub(crate) fn runtime_pid(intermediate: u32) -> Option<u32> {
    let children = std::fs::read_to_string(format!("/proc/{intermediate}/task/{intermediate}/children")).ok()?;
    children.split_whitespace().next()?.parse().ok()
}

/// Whether `program` would be hidden inside the namespace (it lives where the instance's
/// own directories are mounted), so the instance must run as a plain process.
pub(crate) fn hides(program: &Path) -> bool {
    ["/tmp", "/opt", "/proc", "/var/task", "/var/runtime"]
        .iter()
        .any(|dir| program.starts_with(dir))
}

/// A mount point for instances' new roots (each namespace mounts its own tmpfs on it).
pub(crate) fn root_mount_point(work_dir: &Path) -> PathBuf {
    work_dir.join("sandbox-root")
}
