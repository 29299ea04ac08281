//! Invoke latency on real functions: a warm invoke of a Python echo function (criterion),
//! then the host's share of a warm invoke and cold starts of Python and Node.js (p50 of
//! repeated runs, printed).
//!
//! `cargo bench -p stratus-lambda-host --bench invoke`

#![allow(clippy::disallowed_methods)] // a benchmark times the machine

#[path = "../tests/common/mod.rs"]
mod common;

use std::time::{Duration, Instant};

use criterion::Criterion;
use stratus_lambda_host::FunctionSpec;

const PY_ECHO: &str = "def handler(event, context):\n    return event\n";
const NODE_ECHO: &str = "exports.handler = async (event) => event;\n";
const EVENT: &str = r#"{"key":"value","n":1}"#;

fn main() {
    common::require_python();
    common::require_node();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    let host = common::host();
    let python = common::spec(
        "python3.12",
        "app.handler",
        common::archive(&[("app.py", PY_ECHO, 0o644)]),
    );

    let mut criterion = Criterion::default().configure_from_args();
    runtime.block_on(common::invoke(&host, &python, EVENT));
    criterion.bench_function("warm invoke, python echo", |b| {
        b.iter(|| runtime.block_on(common::invoke(&host, &python, EVENT)))
    });
    criterion.final_summary();

    // The host's share: the invoke's wall time less the time the runtime held the event
    // (from its `/next` to its `/response`).
    let mut overhead = Vec::new();
    let mut total = Vec::new();
    for _ in 0..2000 {
        let started = Instant::now();
        let outcome = runtime.block_on(common::invoke(&host, &python, EVENT));
        let elapsed = started.elapsed();
        total.push(elapsed);
        overhead.push(elapsed.saturating_sub(outcome.duration));
    }
    println!(
        "warm invoke, python echo: p50 {:?}, p99 {:?}",
        p(&mut total, 50),
        p(&mut total, 99)
    );
    println!(
        "warm invoke, host overhead (wall time less the runtime's Duration): p50 {:?}, p99 {:?}",
        p(&mut overhead, 50),
        p(&mut overhead, 99)
    );
    host.shutdown();

    let node = common::spec(
        "nodejs20.x",
        "index.handler",
        common::archive(&[("index.js", NODE_ECHO, 0o644)]),
    );
    for (name, spec) in [("python3.12", &python), ("nodejs20.x", &node)] {
        for (how, namespaces) in [("in namespaces", true), ("plain process", false)] {
            let mut cold = cold_starts(&runtime, spec, namespaces);
            println!(
                "cold start, {name} echo, {how} (first invoke to response, code unpacked already): \
                 p50 {:?}, min {:?}, max {:?}",
                p(&mut cold, 50),
                cold[0],
                cold[cold.len() - 1]
            );
        }
    }
}

fn cold_starts(runtime: &tokio::runtime::Runtime, spec: &FunctionSpec, namespaces: bool) -> Vec<Duration> {
    let host = common::host();
    host.set_namespaces(namespaces);
    // The first start also unpacks the code and writes the runtime client.
    runtime.block_on(common::invoke(&host, spec, EVENT));
    let mut times = Vec::new();
    for _ in 0..20 {
        host.stop_function(&spec.function_arn);
        let started = Instant::now();
        let outcome = runtime.block_on(common::invoke(&host, spec, EVENT));
        times.push(started.elapsed());
        assert!(outcome.log_tail.contains("Init Duration"), "not a cold start");
    }
    host.shutdown();
    times
}

fn p(samples: &mut [Duration], percentile: usize) -> Duration {
    samples.sort();
    samples[(samples.len() * percentile / 100).min(samples.len() - 1)]
}
