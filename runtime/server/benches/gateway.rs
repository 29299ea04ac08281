//! Whole-process gateway benchmarks over real sockets (`cargo bench -p stratus-server`):
//!
//! - one STS GetCallerIdentity (awsQuery, as the SDKs send it) against the real `stratus`
//!   binary, side by side with the same request against `examples/bare_hyper.rs`, a hyper
//!   server that only answers `ok`: the ratio is the gateway's cost over the HTTP floor, in
//!   latency and in the servers' CPU time per request (Linux: `/proc/PID/task/*/schedstat`);
//! - process start to the first successful GetCallerIdentity.
//!
//! On Linux the client and both servers share one vCPU during the GetCallerIdentity
//! measurements (see `pin_to_one_cpu`).
//!
//! The binary is `$STRATUS_BIN`, else `target/release/stratus` (run `cargo build --release`
//! first); the floor server is built by cargo as this package's example.
// A benchmark measures the machine's time.
#![allow(clippy::disallowed_methods)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};

const BODY: &str = "Action=GetCallerIdentity&Version=2011-06-15";

fn request(host: &str) -> Vec<u8> {
    format!(
        "POST / HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/x-www-form-urlencoded; charset=utf-8\r\n\
         X-Amz-Date: 20261129T000000Z\r\nAuthorization: AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20261129/us-east-1/sts/aws4_request, \
         SignedHeaders=content-type;host;x-amz-date, Signature=0000000000000000000000000000000000000000000000000000000000000000\r\n\
         Content-Length: {}\r\n\r\n{BODY}",
        BODY.len()
    )
    .into_bytes()
}

fn workspace_target() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target"))
}

fn stratus_bin() -> PathBuf {
    std::env::var_os("STRATUS_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_target().join("release/stratus"))
}

fn bare_bin() -> PathBuf {
    let status = Command::new(env!("CARGO"))
        .args(["build", "--release", "-p", "stratus-server", "--example", "bare_hyper"])
        .status()
        .expect("cargo runs");
    assert!(status.success(), "building the bare hyper example failed");
    workspace_target().join("release/examples/bare_hyper")
}

/// Starts a server that prints `stratus listening on http://ADDR`; returns it and ADDR.
fn start(bin: &PathBuf, args: &[&str]) -> (Child, String) {
    let mut child = Command::new(bin)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {}: {e}", bin.display()));
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let addr = line
        .trim()
        .strip_prefix("stratus listening on http://")
        .expect("listening line")
        .to_string();
    (child, addr)
}

/// A keep-alive HTTP/1.1 connection that sends one fixed request at a time.
struct Connection {
    stream: TcpStream,
    request: Vec<u8>,
    buf: Vec<u8>,
}

impl Connection {
    fn open(addr: &str) -> Connection {
        let stream = TcpStream::connect(addr).unwrap();
        stream.set_nodelay(true).unwrap();
        Connection {
            stream,
            request: request(addr),
            buf: vec![0; 64 * 1024],
        }
    }

    /// Sends the request and reads the whole response; returns the status line's code.
    fn round_trip(&mut self) -> u16 {
        self.stream.write_all(&self.request).unwrap();
        let mut have = 0;
        loop {
            let n = self.stream.read(&mut self.buf[have..]).unwrap();
            assert!(n > 0, "server closed the connection");
            have += n;
            let text = &self.buf[..have];
            if let Some(head_end) = text.windows(4).position(|w| w == b"\r\n\r\n") {
                let head = std::str::from_utf8(&text[..head_end]).unwrap().to_ascii_lowercase();
                let length: usize = head
                    .lines()
                    .find_map(|l| l.strip_prefix("content-length:"))
                    .map(|v| v.trim().parse().unwrap())
                    .unwrap_or(0);
                if have >= head_end + 4 + length {
                    return head[9..12].parse().unwrap();
                }
            }
        }
    }
}

fn get_caller_identity(c: &mut Criterion) {
    let floor = bare_bin();
    let unpinned = pin_to_one_cpu();
    let (mut stratus, stratus_addr) = start(
        &stratus_bin(),
        &["--listen", "127.0.0.1:0", "--ephemeral", "--log-level", "error"],
    );
    let (mut bare, bare_addr) = start(&floor, &[]);
    let mut group = c.benchmark_group("GetCallerIdentity over a socket");
    for (name, addr) in [("stratus", &stratus_addr), ("bare hyper ok", &bare_addr)] {
        let mut conn = Connection::open(addr);
        assert_eq!(conn.round_trip(), 200);
        group.bench_function(name, |b| b.iter(|| conn.round_trip()));
    }
    group.finish();
    paired([(&stratus_addr, stratus.id()), (&bare_addr, bare.id())]);
    let _ = stratus.kill();
    let _ = bare.kill();
    restore_cpus(unpinned);
}

/// Pins this thread — the client — and so the servers it starts afterwards to one vCPU (the
/// first it may use); returns the CPUs it could use before. On these VMs a request that wakes
/// a thread on the other vCPU waits for that vCPU to come out of its halt, which costs more
/// than the request itself and falls unevenly on the two servers (the separate and paired
/// figures then scatter by 2×); on one vCPU both servers pay the same context switches and
/// nothing else, and the figures repeat to within a few percent.
#[cfg(target_os = "linux")]
fn pin_to_one_cpu() -> Option<libc::cpu_set_t> {
    let size = std::mem::size_of::<libc::cpu_set_t>();
    // SAFETY: cpu_set_t is plain data; the calls read and write only the sets passed, of `size`.
    unsafe {
        let mut allowed: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, size, &mut allowed) != 0 {
            return None;
        }
        let first = (0..libc::CPU_SETSIZE as usize).find(|&cpu| libc::CPU_ISSET(cpu, &allowed))?;
        let mut one: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(first, &mut one);
        if libc::sched_setaffinity(0, size, &one) != 0 {
            return None;
        }
        println!("client and servers pinned to CPU {first}");
        Some(allowed)
    }
}

#[cfg(target_os = "linux")]
fn restore_cpus(allowed: Option<libc::cpu_set_t>) {
    if let Some(allowed) = allowed {
        // SAFETY: as in `pin_to_one_cpu`.
        unsafe {
            libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &allowed);
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn pin_to_one_cpu() -> Option<()> {
    None
}

#[cfg(not(target_os = "linux"))]
fn restore_cpus(_: Option<()>) {}

/// Criterion's separate runs drift on a shared machine, so the ratio comes from requests
/// sent in turns, one to each server, each timed: both see the same conditions. The first
/// request of a turn is measurably slower than the second (the client's core has just been
/// idle), so who goes first alternates and each server's figure is the mean of its median
/// going first and its median going second. On an idle VM latency still depends on which
/// server's vCPU has to wake, so the servers' CPU time over the same rounds is printed too:
/// what each request costs its server, whatever the wake-ups.
fn paired(servers: [(&str, u32); 2]) {
    const ROUNDS: usize = 20_000;
    let mut conns = servers.map(|(addr, _)| Connection::open(addr));
    let cpu_before = servers.map(|(_, pid)| cpu_ns(pid));
    // samples[server][position]
    let mut samples: [[Vec<Duration>; 2]; 2] = Default::default();
    for round in 0..ROUNDS {
        let order = if round % 2 == 0 { [0, 1] } else { [1, 0] };
        for (position, server) in order.into_iter().enumerate() {
            let t = Instant::now();
            conns[server].round_trip();
            samples[server][position].push(t.elapsed());
        }
    }
    let cpu = [0, 1].map(|i| (cpu_ns(servers[i].1) - cpu_before[i]) as f64 / ROUNDS as f64 / 1e3);
    let figure = |runs: &mut [Vec<Duration>; 2]| {
        runs.iter_mut()
            .map(|r| {
                r.sort();
                r[r.len() / 2].as_secs_f64() * 1e6
            })
            .sum::<f64>()
            / 2.0
    };
    let (s, b) = (figure(&mut samples[0]), figure(&mut samples[1]));
    println!(
        "paired over {ROUNDS} rounds: stratus {s:.1} µs, bare hyper {b:.1} µs, ratio {:.3}",
        s / b
    );
    println!(
        "server CPU per request over the same rounds: stratus {:.1} µs, bare hyper {:.1} µs, ratio {:.3}",
        cpu[0],
        cpu[1],
        cpu[0] / cpu[1]
    );
}

/// The time all of process `pid`'s threads have run on a CPU, user and system
/// (`/proc/PID/task/*/schedstat`, nanoseconds).
fn cpu_ns(pid: u32) -> u64 {
    std::fs::read_dir(format!("/proc/{pid}/task"))
        .map(|tasks| {
            tasks
                .flatten()
                .filter_map(|task| std::fs::read_to_string(task.path().join("schedstat")).ok())
                .filter_map(|stat| stat.split_whitespace().next()?.parse::<u64>().ok())
                .sum()
        })
        .unwrap_or(0)
}

fn start_to_first_request(c: &mut Criterion) {
    let bin = stratus_bin();
    let mut group = c.benchmark_group("process");
    group.sample_size(20);
    group.bench_function("start to first GetCallerIdentity", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let began = Instant::now();
                let (mut child, addr) = start(
                    &bin,
                    &["--listen", "127.0.0.1:0", "--ephemeral", "--log-level", "error"],
                );
                assert_eq!(Connection::open(&addr).round_trip(), 200);
                total += began.elapsed();
                let _ = child.kill();
                let _ = child.wait();
            }
            total
        })
    });
    group.finish();
}

criterion_group!(benches, get_caller_identity, start_to_first_request);
criterion_main!(benches);
