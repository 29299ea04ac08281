//! `stratus`: a local AWS. This is the binary's edge — command line parsing and wiring; the
//! work is done by the library crates under `runtime/`, `generated/` and `services/`.

mod policy_from_log;
mod serve;
mod settings;
mod validate;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "stratus",
    version,
    about = "A local AWS: AWS's answers and AWS's refusals, on your machine"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    serve: serve::ServeArgs,
}

#[derive(Subcommand)]
enum Command {
    /// Validate a request against a service's model, printing what the emulator would answer.
    ///
    /// The request is JSON keyed by member names, as `aws ... --cli-input-json` takes it.
    /// Exit status: 0 valid, 1 refused, 2 unusable arguments.
    Validate {
        /// The service: the sdk id of its model (`dynamodb`, `cloudwatch-logs`) or its SDK name.
        service: String,
        /// The operation, as AWS spells it (`PutItem`).
        operation: String,
        /// The request JSON file, or `-` for standard input.
        request: PathBuf,
    },
    /// List the services and their pinned models.
    Models,
    /// IAM tools.
    Iam {
        #[command(subcommand)]
        command: IamCommand,
    },
}

#[derive(Subcommand)]
enum IamCommand {
    /// Print the least-privilege identity policy a workload needed, from the decisions a server
    /// run with `--iam audit --iam-log FILE` (or `enforce`) recorded.
    PolicyFromLog {
        /// The decision log `--iam-log` wrote.
        log: PathBuf,
        /// Only the decisions of this principal (an ARN, as the log names it).
        #[arg(long)]
        principal: Option<String>,
    },
}

fn list_models() -> anyhow::Result<ExitCode> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    for (id, service) in stratus_gen_registry::SERVICES {
        let ops = service.operations.len();
        let line = writeln!(
            out,
            "{id:<18} {:<18} {ops:>3} operations  sha256 {}",
            service.sdk_id, service.model_sha256
        );
        if line.is_err() {
            break; // the reader went away (`stratus models | head`)
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        None => serve::run(cli.serve).map(|()| ExitCode::SUCCESS),
        Some(Command::Validate {
            service,
            operation,
            request,
        }) => validate::run(&service, &operation, &request),
        Some(Command::Models) => list_models(),
        Some(Command::Iam {
            command: IamCommand::PolicyFromLog { log, principal },
        }) => policy_from_log::run(&log, principal.as_deref()).map(|()| ExitCode::SUCCESS),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("stratus: {e:#}");
            ExitCode::from(2)
        }
    }
}
