//! Sends prebuilt HTTP/1.1 requests to a server as fast as it answers them, on keep-alive
//! connections with one thread each, and prints what it measured as one JSON line:
//!
//! ```text
//! stratus-loadgen --port 4566 --connections 16 --requests 20000 put.http get.http
//! {"requests":20000,"seconds":1.234567,"failed":0}
//! ```
//!
//! Each file is a whole request (head and body). Connections take the files in turn, and every
//! occurrence of the ten bytes `@SEQUENCE@` in a request is replaced by the request's number
//! (zero-padded to ten digits, unique across connections), so requests can write distinct keys
//! without changing their length. A request fails if the answer is not 2xx; the run stops at
//! the first connection error. A server that closes connections after each answer
//! (`Connection: close`, as moto's does) is reconnected to, as Python's `http.client` does. Python clients top out near 5,000–10,000 requests a second on
//! this machine, which hides the difference between fast servers: this client does not.
// A load generator measures the machine's time.
#![allow(clippy::disallowed_methods)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::Instant;

const PLACEHOLDER: &[u8] = b"@SEQUENCE@";

struct Options {
    port: u16,
    connections: usize,
    requests: usize,
    templates: Vec<Vec<u8>>,
}

fn usage() -> ! {
    eprintln!("usage: stratus-loadgen --port P [--connections C] [--requests N] REQUEST_FILE...");
    std::process::exit(2)
}

fn options() -> Options {
    let mut args = std::env::args().skip(1);
    let mut options = Options {
        port: 0,
        connections: 16,
        requests: 10_000,
        templates: Vec::new(),
    };
    let number = |value: Option<String>| value.and_then(|v| v.parse::<usize>().ok()).unwrap_or_else(|| usage());
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--port" => options.port = u16::try_from(number(args.next())).unwrap_or_else(|_| usage()),
            "--connections" => options.connections = number(args.next()).max(1),
            "--requests" => options.requests = number(args.next()),
            "--help" | "-h" => usage(),
            path => match std::fs::read(path) {
                Ok(bytes) => options.templates.push(bytes),
                Err(e) => {
                    eprintln!("{path}: {e}");
                    std::process::exit(2)
                }
            },
        }
    }
    if options.port == 0 || options.templates.is_empty() {
        usage();
    }
    options
}

/// Where each placeholder in `template` starts.
fn placeholders(template: &[u8]) -> Vec<usize> {
    template
        .windows(PLACEHOLDER.len())
        .enumerate()
        .filter(|(_, w)| *w == PLACEHOLDER)
        .map(|(at, _)| at)
        .collect()
}

/// An answer's status, and whether the server keeps the connection open.
struct Answer {
    status: u16,
    keep_alive: bool,
}

/// Reads one answer.
fn read_response(reader: &mut BufReader<TcpStream>, line: &mut String) -> std::io::Result<Answer> {
    let bad = |what: &str| std::io::Error::new(std::io::ErrorKind::InvalidData, what.to_string());
    line.clear();
    reader.read_line(line)?;
    let status = line
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| bad("no status line"))?;
    let mut length = None;
    let mut keep_alive = true;
    loop {
        line.clear();
        if reader.read_line(line)? == 0 {
            return Err(bad("connection closed in the head"));
        }
        let header = line.trim_end();
        if header.is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            if name.eq_ignore_ascii_case("content-length") {
                length = value.trim().parse::<u64>().ok();
            } else if name.eq_ignore_ascii_case("connection") {
                keep_alive = !value.trim().eq_ignore_ascii_case("close");
            } else if name.eq_ignore_ascii_case("transfer-encoding") {
                return Err(bad("chunked answers are not supported"));
            }
        }
    }
    let length = length.ok_or_else(|| bad("no Content-Length"))?;
    std::io::copy(&mut reader.by_ref().take(length), &mut std::io::sink())?;
    Ok(Answer { status, keep_alive })
}

/// A connection's two ends.
fn connect(port: u16) -> std::io::Result<(TcpStream, BufReader<TcpStream>)> {
    let stream = TcpStream::connect(("127.0.0.1", port))?;
    stream.set_nodelay(true)?;
    Ok((stream.try_clone()?, BufReader::new(stream)))
}

/// Sends requests `first..first + count` on one connection; returns how many failed.
fn drive(port: u16, templates: &[Vec<u8>], first: usize, count: usize) -> std::io::Result<usize> {
    let mut connection = None;
    let slots: Vec<Vec<usize>> = templates.iter().map(|t| placeholders(t)).collect();
    let mut requests = templates.to_vec();
    let mut line = String::new();
    let mut failed = 0;
    for n in first..first + count {
        let which = n % templates.len();
        let request = &mut requests[which];
        let sequence = format!("{n:010}");
        for &at in &slots[which] {
            request[at..at + PLACEHOLDER.len()].copy_from_slice(sequence.as_bytes());
        }
        let (writer, reader) = match &mut connection {
            Some(open) => open,
            None => connection.insert(connect(port)?),
        };
        writer.write_all(request)?;
        let answer = read_response(reader, &mut line)?;
        if !(200..300).contains(&answer.status) {
            failed += 1;
        }
        if !answer.keep_alive {
            connection = None;
        }
    }
    Ok(failed)
}

fn main() {
    let options = options();
    // Every request is sent: the first `requests % connections` connections take one more, and
    // no connection is opened to send nothing.
    let connections = options.connections.min(options.requests).max(1);
    let (share, extra) = (options.requests / connections, options.requests % connections);
    let started = Instant::now();
    let outcomes: Vec<std::io::Result<usize>> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..connections)
            .map(|c| {
                let templates = &options.templates;
                let first = c * share + c.min(extra);
                let count = share + usize::from(c < extra);
                scope.spawn(move || drive(options.port, templates, first, count))
            })
            .collect();
        workers
            .into_iter()
            .map(|w| w.join().expect("a connection thread panicked"))
            .collect()
    });
    let seconds = started.elapsed().as_secs_f64();
    let mut failed = 0;
    for outcome in outcomes {
        match outcome {
            Ok(n) => failed += n,
            Err(e) => {
                eprintln!("connection failed: {e}");
                std::process::exit(1)
            }
        }
    }
    println!(
        "{{\"requests\":{},\"seconds\":{seconds:.6},\"failed\":{failed}}}",
        options.requests
    );
}
