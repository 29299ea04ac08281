//! `stratus validate`: decode a request as the emulator would and run the constraint engine.

use std::io::Read;
use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, Result};
use aws_smithy_json::serialize::JsonObjectWriter;
use aws_smithy_types::Number;
use stratus_core::json::{decode, KeyNames};
use stratus_core::validate::validate_input;
use stratus_core::AwsError;

/// Prints `{"status":…,"code":…,"message":…}` for a refusal (exit 1), or `valid` (exit 0).
pub(crate) fn run(service: &str, operation: &str, request: &Path) -> Result<ExitCode> {
    let svc = stratus_gen_registry::find(service).with_context(|| {
        let known: Vec<&str> = stratus_gen_registry::SERVICES.iter().map(|(id, _)| *id).collect();
        format!("unknown service {service:?}; known: {}", known.join(", "))
    })?;
    let op = svc
        .operation(operation)
        .with_context(|| format!("{} has no operation {operation:?}", svc.sdk_id))?;
    let mut body = Vec::new();
    if request == Path::new("-") {
        std::io::stdin()
            .read_to_end(&mut body)
            .context("reading standard input")?;
    } else {
        body = std::fs::read(request).with_context(|| format!("reading {}", request.display()))?;
    }
    let refusal = match decode(op.input, &body, KeyNames::Member) {
        Err(e) => Some(AwsError::new("SerializationException", e.message, 400).into()),
        Ok(input) => validate_input(svc, op, &input).err(),
    };
    match refusal {
        None => {
            println!("valid");
            Ok(ExitCode::SUCCESS)
        }
        Some(e) => {
            let mut out = String::new();
            let mut object = JsonObjectWriter::new(&mut out);
            object.key("status").number(Number::PosInt(e.http_status().into()));
            object.key("code").string(e.code());
            object.key("message").string(e.message());
            object.finish();
            println!("{out}");
            Ok(ExitCode::from(1))
        }
    }
}
