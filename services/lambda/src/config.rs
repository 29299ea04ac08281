//! A version's configuration: built from CreateFunction and UpdateFunctionConfiguration,
//! checked as Lambda checks what its model cannot say, and answered as `FunctionConfiguration`.

use std::collections::BTreeMap;

use sha2::{Digest, Sha256};
use stratus_core::AwsError;
use stratus_gen_lambda::types::*;

use crate::error::invalid_parameter;
use crate::records::{Image, Logging, Settling, VersionConfig, Vpc};

/// Runtimes AWS no longer lets functions be created or updated with.
const BLOCKED_RUNTIMES: &[&str] = &[
    "nodejs",
    "nodejs4.3",
    "nodejs4.3-edge",
    "nodejs6.10",
    "nodejs8.10",
    "nodejs10.x",
    "nodejs12.x",
    "nodejs14.x",
    "java8",
    "python2.7",
    "python3.6",
    "python3.7",
    "dotnetcore1.0",
    "dotnetcore2.0",
    "dotnetcore2.1",
    "dotnetcore3.1",
    "go1.x",
    "ruby2.5",
    "ruby2.7",
    "provided",
];

/// The runtimes AWS lists as valid when it refuses one it does not know, in its order.
const VALID_RUNTIMES: &str =
    "nodejs20.x, python3.14, provided.al2023, python3.12, python3.13, nodejs24.x, nodejs22.x, \
     java25, python3.10, python3.11, java21, ruby3.3, ruby3.4, ruby3.2, python3.8, python3.9, java17, nodejs16.x, \
     dotnet10, dotnet8, java11, dotnet6, nodejs18.x, provided.al2, java8.al2";

/// Environment variable names Lambda sets itself and refuses from users.
const RESERVED_VARIABLES: &[&str] = &[
    "_HANDLER",
    "_X_AMZN_TRACE_ID",
    "AWS_DEFAULT_REGION",
    "AWS_REGION",
    "AWS_EXECUTION_ENV",
    "AWS_LAMBDA_FUNCTION_NAME",
    "AWS_LAMBDA_FUNCTION_MEMORY_SIZE",
    "AWS_LAMBDA_FUNCTION_VERSION",
    "AWS_LAMBDA_INITIALIZATION_TYPE",
    "AWS_LAMBDA_LOG_GROUP_NAME",
    "AWS_LAMBDA_LOG_STREAM_NAME",
    "AWS_ACCESS_KEY",
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AWS_LAMBDA_RUNTIME_API",
    "LAMBDA_TASK_ROOT",
    "LAMBDA_RUNTIME_DIR",
];

/// Checks a runtime as Lambda does for a create or update.
pub(crate) fn check_runtime(runtime: &str) -> Result<(), AwsError> {
    if BLOCKED_RUNTIMES.contains(&runtime) {
        return Err(invalid_parameter(format!(
            "The runtime parameter of {runtime} is no longer supported for creating or updating AWS Lambda functions. We \
             recommend you use a supported runtime while creating or updating functions."
        )));
    }
    if !Runtime::VALUES.contains(&runtime) {
        return Err(invalid_parameter(format!(
            "Value {runtime} at 'runtime' failed to satisfy constraint: Member must satisfy enum value set: \
             [{VALID_RUNTIMES}] or be a valid ARN"
        )));
    }
    Ok(())
}

/// Checks environment variables: no reserved names, at most 4 KB as JSON.
pub(crate) fn check_environment(vars: &BTreeMap<String, String>) -> Result<(), AwsError> {
    let reserved: Vec<&str> = vars
        .keys()
        .map(String::as_str)
        .filter(|k| RESERVED_VARIABLES.contains(k))
        .collect();
    if !reserved.is_empty() {
        return Err(invalid_parameter(format!(
            "Lambda was unable to configure your environment variables because the environment variables you have \
             provided contains reserved keys that are currently not supported for modification. Reserved keys used in \
             this request: {}",
            reserved.join(", ")
        )));
    }
    let measured = serde_json::to_string(vars).unwrap_or_default();
    if measured.len() > 4096 {
        return Err(invalid_parameter(format!(
            "Lambda was unable to configure your environment variables because the environment variables you have \
             provided exceeded the 4KB limit. String measured: {measured}"
        )));
    }
    Ok(())
}

/// The runtime version ARN Lambda reports for `runtime` (a stable digest of its name).
pub(crate) fn runtime_version_arn(region: &str, runtime: &str) -> String {
    let digest = Sha256::digest(runtime.as_bytes());
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    format!(
        "arn:{}:lambda:{region}::runtime:{hex}",
        stratus_core::arn::partition_of(region)
    )
}

/// Logging as configured, with Lambda's defaults for a function `name`.
pub(crate) fn logging(given: Option<LoggingConfig>, name: &str, current: Option<&Logging>) -> Logging {
    let mut out = current.cloned().unwrap_or_else(|| Logging {
        log_format: "Text".into(),
        application_log_level: None,
        system_log_level: None,
        log_group: format!("/aws/lambda/{name}"),
    });
    if let Some(given) = given {
        if let Some(f) = given.log_format {
            out.log_format = f.as_str().to_owned();
        }
        if let Some(g) = given.log_group {
            out.log_group = g;
        }
        out.application_log_level = given.application_log_level.map(|l| l.as_str().to_owned());
        out.system_log_level = given.system_log_level.map(|l| l.as_str().to_owned());
        if out.log_format == "JSON" {
            out.application_log_level.get_or_insert_with(|| "INFO".into());
            out.system_log_level.get_or_insert_with(|| "INFO".into());
        } else {
            out.application_log_level = None;
            out.system_log_level = None;
        }
    }
    out
}

pub(crate) fn vpc(given: VpcConfig) -> Vpc {
    Vpc {
        subnet_ids: given.subnet_ids.unwrap_or_default(),
        security_group_ids: given.security_group_ids.unwrap_or_default(),
        ipv6_allowed_for_dual_stack: given.ipv6_allowed_for_dual_stack,
    }
}

pub(crate) fn image(given: ImageConfig) -> Image {
    Image {
        entry_point: given.entry_point,
        command: given.command,
        working_directory: given.working_directory,
    }
}

/// How a configuration is being answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum View {
    /// The answer to the write that made it: `Pending`/`InProgress` while settling.
    Written,
    /// A read: `Active`, `LastUpdateStatus: Successful`.
    Read,
    /// An item of ListFunctions/ListVersionsByFunction: no state at all, as AWS lists them.
    Listed,
}

/// `cfg` as Lambda answers it; `arn` is the function ARN as the answer names it (qualified
/// for a version, or when the request named `$LATEST`).
pub(crate) fn configuration(
    name: &str,
    arn: String,
    region: &str,
    cfg: &VersionConfig,
    view: View,
) -> FunctionConfiguration {
    let zip = cfg.package_type == "Zip";
    let mut out = FunctionConfiguration {
        function_name: Some(name.to_owned()),
        function_arn: Some(arn),
        runtime: cfg.runtime.as_deref().map(Runtime::from_wire),
        role: Some(cfg.role.clone()),
        handler: cfg.handler.clone(),
        code_size: i64::try_from(cfg.code.size).unwrap_or(i64::MAX),
        description: Some(cfg.description.clone()),
        timeout: Some(cfg.timeout),
        memory_size: Some(cfg.memory_size),
        last_modified: Some(cfg.last_modified.clone()),
        code_sha256: Some(cfg.code.sha256.clone()),
        version: Some(cfg.version.clone()),
        vpc_config: cfg.vpc.as_ref().map(|v| VpcConfigResponse {
            subnet_ids: Some(v.subnet_ids.clone()),
            security_group_ids: Some(v.security_group_ids.clone()),
            vpc_id: Some(String::new()),
            ipv6_allowed_for_dual_stack: v.ipv6_allowed_for_dual_stack,
        }),
        dead_letter_config: cfg.dead_letter_target.as_ref().map(|t| DeadLetterConfig {
            target_arn: Some(t.clone()),
        }),
        environment: cfg.environment.as_ref().map(|vars| EnvironmentResponse {
            variables: Some(vars.clone()),
            error: None,
        }),
        kms_key_arn: cfg.kms_key_arn.clone(),
        tracing_config: Some(TracingConfigResponse {
            mode: Some(TracingMode::from_wire(&cfg.tracing_mode)),
        }),
        revision_id: Some(cfg.revision_id.clone()),
        layers: (!cfg.layers.is_empty()).then(|| {
            cfg.layers
                .iter()
                .map(|l| Layer {
                    arn: Some(l.arn.clone()),
                    code_size: i64::try_from(l.code_size).unwrap_or(i64::MAX),
                    ..Layer::default()
                })
                .collect()
        }),
        file_system_configs: (!cfg.file_systems.is_empty()).then(|| {
            cfg.file_systems
                .iter()
                .map(|(arn, path)| FileSystemConfig {
                    arn: arn.clone(),
                    local_mount_path: path.clone(),
                })
                .collect()
        }),
        package_type: Some(PackageType::from_wire(&cfg.package_type)),
        image_config_response: cfg.image.as_ref().map(|i| ImageConfigResponse {
            image_config: Some(ImageConfig {
                entry_point: i.entry_point.clone(),
                command: i.command.clone(),
                working_directory: i.working_directory.clone(),
            }),
            error: None,
        }),
        architectures: Some(cfg.architectures.iter().map(|a| Architecture::from_wire(a)).collect()),
        ephemeral_storage: Some(EphemeralStorage {
            size: cfg.ephemeral_storage,
        }),
        snap_start: Some(SnapStartResponse {
            apply_on: Some(SnapStartApplyOn::from_wire(&cfg.snap_start)),
            optimization_status: Some(SnapStartOptimizationStatus::from_wire("Off")),
        }),
        logging_config: Some(LoggingConfig {
            log_format: Some(LogFormat::from_wire(&cfg.logging.log_format)),
            application_log_level: cfg
                .logging
                .application_log_level
                .as_deref()
                .map(ApplicationLogLevel::from_wire),
            system_log_level: cfg.logging.system_log_level.as_deref().map(SystemLogLevel::from_wire),
            log_group: Some(cfg.logging.log_group.clone()),
        }),
        ..FunctionConfiguration::default()
    };
    if view == View::Listed {
        return out;
    }
    if zip {
        if let Some(runtime) = &cfg.runtime {
            out.runtime_version_config = Some(RuntimeVersionConfig {
                runtime_version_arn: Some(runtime_version_arn(region, runtime)),
                error: None,
            });
        }
    }
    match (view, cfg.settling) {
        (View::Written, Some(Settling::Creating)) => {
            out.state = Some(State::from_wire("Pending"));
            out.state_reason = Some("The function is being created.".into());
            out.state_reason_code = Some(StateReasonCode::from_wire("Creating"));
        }
        (View::Written, Some(Settling::Updating)) => {
            out.state = Some(State::from_wire("Active"));
            out.last_update_status = Some(LastUpdateStatus::from_wire("InProgress"));
            out.last_update_status_reason = Some("The function is being created.".into());
            out.last_update_status_reason_code = Some(LastUpdateStatusReasonCode::from_wire("Creating"));
        }
        _ => {
            out.state = Some(State::from_wire("Active"));
            out.last_update_status = Some(LastUpdateStatus::from_wire("Successful"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocked_and_unknown_runtimes_are_refused_in_aws_words() {
        assert!(check_runtime("python3.12").is_ok());
        let e = check_runtime("python3.7").unwrap_err();
        assert!(e
            .message
            .starts_with("The runtime parameter of python3.7 is no longer supported"));
        let e = check_runtime("cobol").unwrap_err();
        assert!(e
            .message
            .starts_with("Value cobol at 'runtime' failed to satisfy constraint"));
    }

    #[test]
    fn environments_over_4kb_or_with_reserved_keys_are_refused() {
        let ok = BTreeMap::from([("A".to_string(), "x".repeat(100))]);
        assert!(check_environment(&ok).is_ok());
        let big = BTreeMap::from([("A".to_string(), "x".repeat(4100))]);
        assert!(check_environment(&big)
            .unwrap_err()
            .message
            .contains("exceeded the 4KB limit"));
        let reserved = BTreeMap::from([("AWS_REGION".to_string(), "x".into())]);
        assert!(check_environment(&reserved).unwrap_err().message.contains("AWS_REGION"));
    }

    #[test]
    fn runtime_version_arns_are_stable_per_runtime() {
        let a = runtime_version_arn("us-east-1", "python3.12");
        assert_eq!(a, runtime_version_arn("us-east-1", "python3.12"));
        assert_ne!(a, runtime_version_arn("us-east-1", "python3.13"));
        assert!(a.starts_with("arn:aws:lambda:us-east-1::runtime:"));
    }
}
