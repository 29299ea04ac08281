//! Functions: create, read, update code and configuration, delete, list.

use stratus_core::paging::{take_page, PageSize, Token};
use stratus_core::service::Caller;
use stratus_core::{AwsError, RequestContext};
use stratus_gen_lambda::types::*;

use super::{caller, function_ref, resolve, revision};
use crate::code::{Source, MAX_UNZIPPED};
use crate::config::{self, configuration, View};
use crate::error::{self, conflict, function_not_found, invalid_parameter};
use crate::function_urls;
use crate::names::{function_arn, FunctionRef, Qualifier, LATEST};
use crate::records::{CodeRecord, FunctionRecord, LayerUse, Settling, VersionConfig};
use crate::service::{lambda_time, load_function, LambdaService, FUNCTIONS};

const FUNCTION_LISTING: Token = Token::for_listing("lambda:ListFunctions");
/// ListFunctions answers at most 50 a page, whatever `MaxItems` asks.
const FUNCTION_PAGE: PageSize = PageSize {
    min: 1,
    max: 50,
    default: 50,
};

pub(crate) async fn create_function(
    lambda: &LambdaService,
    ctx: &RequestContext,
    input: CreateFunctionRequest,
) -> Result<FunctionConfiguration, AwsError> {
    if input.function_name.chars().count() > 140 {
        return Err(AwsError::new(
            "ValidationException",
            format!(
                "1 validation error detected: Value '{}' at 'functionName' failed to satisfy constraint: Member must \
                 have length less than or equal to 140",
                input.function_name
            ),
            400,
        ));
    }
    let f = function_ref(ctx, &input.function_name, None)?;
    if f.name.chars().count() > 64 {
        return Err(invalid_parameter(format!(
            "1 validation error detected: Value '{}' at 'functionName' failed to satisfy constraint: Member must have \
             length less than or equal to 64",
            input.function_name
        )));
    }
    let package_type = input.package_type.as_ref().map_or("Zip", |p| p.as_str()).to_owned();
    let runtime = input.runtime.as_ref().map(|r| r.as_str().to_owned());
    if package_type == "Zip" && (runtime.is_none() || input.handler.is_none()) {
        return Err(invalid_parameter(
            "Runtime and Handler are mandatory parameters for functions created with deployment packages.",
        ));
    }
    if let Some(runtime) = &runtime {
        config::check_runtime(runtime)?;
    }
    let environment = input.environment.and_then(|e| e.variables);
    if let Some(vars) = &environment {
        config::check_environment(vars)?;
    }
    if let Some(tags) = &input.tags {
        super::tags::check_tags(tags)?;
    }
    let architectures = architectures(input.architectures)?;
    check_role(lambda, ctx, &input.role).await?;
    // Layers are checked before the name is, as AWS does.
    let layers = lambda.layer_uses(ctx, input.layers.as_deref().unwrap_or_default(), &f.region)?;
    let store = lambda.store(&f.account, &f.region)?;
    if load_function(&*store, &f.name)?.is_some() {
        return Err(conflict(format!("Function already exist: {}", f.name)));
    }
    let code = take_code(lambda, caller(ctx), input.code, &package_type).await?;
    check_unzipped(&code, &layers)?;
    let now = lambda_time(lambda.now_ms());
    let latest = VersionConfig {
        version: LATEST.into(),
        description: input.description.unwrap_or_default(),
        runtime,
        role: input.role,
        handler: input.handler,
        timeout: input.timeout.unwrap_or(3),
        memory_size: input.memory_size.unwrap_or(128),
        package_type,
        code,
        environment,
        dead_letter_target: input
            .dead_letter_config
            .and_then(|d| d.target_arn)
            .filter(|t| !t.is_empty()),
        kms_key_arn: input.kms_key_arn.filter(|k| !k.is_empty()),
        tracing_mode: input
            .tracing_config
            .and_then(|t| t.mode)
            .map_or("PassThrough".into(), |m| m.as_str().to_owned()),
        layers,
        file_systems: input
            .file_system_configs
            .unwrap_or_default()
            .into_iter()
            .map(|c| (c.arn, c.local_mount_path))
            .collect(),
        architectures,
        ephemeral_storage: input.ephemeral_storage.map_or(512, |e| e.size),
        snap_start: input
            .snap_start
            .and_then(|s| s.apply_on)
            .map_or("None".into(), |a| a.as_str().to_owned()),
        logging: config::logging(input.logging_config, &f.name, None),
        vpc: input
            .vpc_config
            .map(config::vpc)
            .filter(|v| !v.subnet_ids.is_empty() || !v.security_group_ids.is_empty()),
        image: input.image_config.map(config::image),
        last_modified: now,
        revision_id: revision(),
        settled_revision_id: revision(),
        settling: Some(Settling::Creating),
    };
    let mut record = FunctionRecord {
        name: f.name.clone(),
        latest,
        tags: input.tags.unwrap_or_default(),
        code_signing_config_arn: input.code_signing_config_arn,
        ..FunctionRecord::default()
    };
    let answer = if input.publish {
        let cfg = publish_settling(&mut record, lambda.now_ms());
        // AWS names the unqualified function, with the version published.
        configuration(&f.name, f.arn(), &f.region, &cfg, View::Written)
    } else {
        configuration(&f.name, f.arn(), &f.region, &record.latest, View::Written)
    };
    let name = f.name.clone();
    lambda
        .transact(&f.account, &f.region, move |tx| {
            if load_function(tx, &name)?.is_some() {
                return Err(conflict(format!("Function already exist: {name}")));
            }
            FUNCTIONS.put(tx, name.as_bytes(), &record).map_err(error::storage)
        })
        .await?;
    Ok(answer)
}

/// Architectures as given (one of `x86_64`, `arm64`), `x86_64` when none.
fn architectures(given: Option<Vec<Architecture>>) -> Result<Vec<String>, AwsError> {
    match given {
        None => Ok(vec!["x86_64".into()]),
        Some(list) if list.is_empty() => Ok(vec!["x86_64".into()]),
        Some(list) => Ok(list.iter().map(|a| a.as_str().to_owned()).collect()),
    }
}

/// The code of a create: a zip (inline or from S3) or an image URI.
async fn take_code(
    lambda: &LambdaService,
    caller: Caller<'_>,
    code: FunctionCode,
    package_type: &str,
) -> Result<CodeRecord, AwsError> {
    if package_type == "Image" {
        let Some(uri) = code.image_uri else {
            return Err(invalid_parameter(
                "Please provide ImageUri when creating a function with packageType Image.",
            ));
        };
        return Ok(image_code(uri));
    }
    if code.image_uri.is_some() {
        return Err(invalid_parameter(
            "Please don't provide ImageUri when creating a function with packageType Zip.",
        ));
    }
    let mut record = lambda
        .take_zip(
            caller,
            Source {
                zip_file: code.zip_file,
                s3_bucket: code.s3_bucket.as_deref(),
                s3_key: code.s3_key.as_deref(),
                s3_object_version: code.s3_object_version.as_deref(),
            },
            "code",
        )
        .await?;
    record.source_kms_key_arn = code.source_kms_key_arn;
    Ok(record)
}

/// An image's code: the digest of its URI stands for the manifest's (Stratus pulls no images).
fn image_code(uri: String) -> CodeRecord {
    let (sha256, _) = crate::code::digests(uri.as_bytes());
    CodeRecord {
        sha256,
        size: 0,
        unzipped_size: 0,
        blob: None,
        image_uri: Some(uri),
        source_kms_key_arn: None,
    }
}

fn check_unzipped(code: &CodeRecord, layers: &[LayerUse]) -> Result<(), AwsError> {
    let total: u64 = code.unzipped_size + layers.iter().map(|l| l.unzipped_size).sum::<u64>();
    if total > MAX_UNZIPPED {
        return Err(invalid_parameter(format!(
            "Unzipped size must be smaller than {MAX_UNZIPPED} bytes"
        )));
    }
    Ok(())
}

/// Checks that the execution role exists and trusts Lambda, when IAM is served.
pub(crate) async fn check_role(lambda: &LambdaService, ctx: &RequestContext, role: &str) -> Result<(), AwsError> {
    let Some(roles) = &lambda.shared.roles else {
        return Ok(());
    };
    let cannot = || invalid_parameter("The role defined for the function cannot be assumed by Lambda.");
    let as_lambda = Caller::service("lambda.amazonaws.com", &ctx.account_id, &ctx.region);
    let Some(found) = roles.assumable_role(as_lambda, role).await else {
        return Err(cannot());
    };
    if !trusts_lambda(&found.trust_policy) {
        return Err(cannot());
    }
    Ok(())
}

/// Whether a trust policy lets `lambda.amazonaws.com` assume the role.
pub(crate) fn trusts_lambda(policy: &str) -> bool {
    let decoded;
    let text = if policy.trim_start().starts_with('%') || policy.contains("%22") {
        decoded = percent_decode(policy);
        decoded.as_str()
    } else {
        policy
    };
    let Ok(doc) = serde_json::from_str::<serde_json::Value>(text) else {
        return false;
    };
    let statements = match doc.get("Statement") {
        Some(serde_json::Value::Array(list)) => list.clone(),
        Some(one) => vec![one.clone()],
        None => return false,
    };
    let has = |value: Option<&serde_json::Value>, wanted: &dyn Fn(&str) -> bool| match value {
        Some(serde_json::Value::String(s)) => wanted(s),
        Some(serde_json::Value::Array(list)) => list.iter().filter_map(|v| v.as_str()).any(wanted),
        _ => false,
    };
    statements.iter().any(|s| {
        s.get("Effect").and_then(|e| e.as_str()) == Some("Allow")
            && has(s.get("Action"), &|a| {
                a == "*" || a.eq_ignore_ascii_case("sts:AssumeRole") || a.eq_ignore_ascii_case("sts:*")
            })
            && match s.get("Principal") {
                Some(serde_json::Value::String(p)) => p == "*",
                Some(p) => {
                    has(p.get("Service"), &|svc| svc == "lambda.amazonaws.com") || has(p.get("AWS"), &|a| a == "*")
                }
                None => false,
            }
    })
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            if let Some(b) = text.get(i + 1..i + 3).and_then(|h| u8::from_str_radix(h, 16).ok()) {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(if bytes[i] == b'+' { b' ' } else { bytes[i] });
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Publishes `$LATEST` as a new version, unless the last version already has its code and
/// configuration; answers the version.
pub(crate) fn publish(record: &mut FunctionRecord, description: Option<String>, now_ms: i64) -> VersionConfig {
    if let Some((_, last)) = record.versions.iter().next_back() {
        if same_version(last, &record.latest) {
            return last.clone();
        }
    }
    record.last_version += 1;
    let number = record.last_version;
    let mut version = record.latest.clone();
    version.version = number.to_string();
    if let Some(d) = description {
        version.description = d;
    }
    version.last_modified = lambda_time(now_ms);
    version.revision_id = revision();
    version.settled_revision_id = version.revision_id.clone();
    version.settling = None;
    record.versions.insert(number, version.clone());
    // Publishing gives $LATEST a new revision, as on AWS.
    record.latest.revision_id = revision();
    record.latest.settled_revision_id = record.latest.revision_id.clone();
    version
}

/// Publishes `$LATEST` with its code just written: the version is being created, as on AWS,
/// and settles to a revision of its own.
fn publish_settling(record: &mut FunctionRecord, now_ms: i64) -> VersionConfig {
    let before = record.last_version;
    let v = publish(record, None, now_ms);
    if record.last_version == before {
        return v;
    }
    let Some(stored) = v.version.parse().ok().and_then(|n: u64| record.versions.get_mut(&n)) else {
        return v;
    };
    stored.settling = Some(Settling::Creating);
    stored.settled_revision_id = revision();
    stored.clone()
}

/// Whether two configurations differ only in what publishing changes.
fn same_version(a: &VersionConfig, b: &VersionConfig) -> bool {
    let strip = |v: &VersionConfig| VersionConfig {
        version: String::new(),
        last_modified: String::new(),
        revision_id: String::new(),
        settled_revision_id: String::new(),
        settling: None,
        ..v.clone()
    };
    strip(a) == strip(b)
}

pub(crate) async fn get_function(
    lambda: &LambdaService,
    ctx: &RequestContext,
    input: GetFunctionRequest,
) -> Result<GetFunctionResponse, AwsError> {
    let f = function_ref(ctx, &input.function_name, input.qualifier.as_deref())?;
    let record = lambda.function(&f, &f.qualified_arn())?;
    let cfg = resolve(&record, &f)?;
    let location = cfg.code.blob.as_ref().map(|_| code_location(ctx, &f, &cfg.version));
    Ok(GetFunctionResponse {
        configuration: Some(configuration(&f.name, f.qualified_arn(), &f.region, cfg, View::Read)),
        code: Some(match &cfg.code.image_uri {
            Some(uri) => FunctionCodeLocation {
                repository_type: Some("ECR".into()),
                image_uri: Some(uri.clone()),
                resolved_image_uri: Some(uri.clone()),
                ..FunctionCodeLocation::default()
            },
            None => FunctionCodeLocation {
                repository_type: Some("S3".into()),
                location,
                source_kms_key_arn: cfg.code.source_kms_key_arn.clone(),
                ..FunctionCodeLocation::default()
            },
        }),
        tags: (!record.tags.is_empty()).then(|| record.tags.clone()),
        tags_error: None,
        concurrency: record.reserved_concurrency.map(|n| Concurrency {
            reserved_concurrent_executions: Some(n),
        }),
    })
}

/// Where a version's zip is read from: a path on Stratus's own listener.
fn code_location(ctx: &RequestContext, f: &FunctionRef, version: &str) -> String {
    let host = ctx.host.as_deref().unwrap_or("127.0.0.1:4566");
    format!(
        "http://{host}/_stratus/lambda/code/{}/{}/{}/{}",
        f.account,
        f.region,
        f.name,
        version.replace('$', "%24")
    )
}

pub(crate) async fn get_function_configuration(
    lambda: &LambdaService,
    ctx: &RequestContext,
    input: GetFunctionConfigurationRequest,
) -> Result<FunctionConfiguration, AwsError> {
    let f = function_ref(ctx, &input.function_name, input.qualifier.as_deref())?;
    let record = lambda.function(&f, &f.qualified_arn())?;
    let cfg = resolve(&record, &f)?;
    Ok(configuration(&f.name, f.qualified_arn(), &f.region, cfg, View::Read))
}

/// Refuses a change unless `given` is the current revision.
pub(crate) fn check_revision(given: Option<&str>, current: &str) -> Result<(), AwsError> {
    match given {
        Some(r) if r != current => Err(error::revision_mismatch("GetFunction/GetAlias")),
        _ => Ok(()),
    }
}

pub(crate) async fn update_function_code(
    lambda: &LambdaService,
    ctx: &RequestContext,
    input: UpdateFunctionCodeRequest,
) -> Result<FunctionConfiguration, AwsError> {
    let f = function_ref(ctx, &input.function_name, None)?;
    super::unqualified_only(&f)
        .map_err(|_| invalid_parameter("Please do not provide a qualifier when updating function code."))?;
    let current = lambda.function(&f, &f.arn())?;
    check_revision(input.revision_id.as_deref(), &current.latest.revision_id)?;
    let code = if current.latest.package_type == "Image" {
        let Some(uri) = input.image_uri else {
            return Err(invalid_parameter(
                "Please provide ImageUri when updating a function with packageType Image.",
            ));
        };
        image_code(uri)
    } else {
        if input.image_uri.is_some() {
            return Err(invalid_parameter(
                "Please don't provide ImageUri when updating a function with packageType Zip.",
            ));
        }
        let mut code = lambda
            .take_zip(
                caller(ctx),
                Source {
                    zip_file: input.zip_file,
                    s3_bucket: input.s3_bucket.as_deref(),
                    s3_key: input.s3_key.as_deref(),
                    s3_object_version: input.s3_object_version.as_deref(),
                },
                "code",
            )
            .await?;
        code.source_kms_key_arn = input.source_kms_key_arn;
        code
    };
    check_unzipped(&code, &current.latest.layers)?;
    let architectures = input.architectures.map(|a| architectures(Some(a))).transpose()?;
    let now = lambda.now_ms();
    let change = move |record: &mut FunctionRecord| {
        record.latest.code = code;
        if let Some(a) = architectures {
            record.latest.architectures = a;
        }
        touch(&mut record.latest, now);
    };
    if input.dry_run {
        let mut record = current;
        change(&mut record);
        return Ok(configuration(
            &f.name,
            f.arn(),
            &f.region,
            &record.latest,
            View::Written,
        ));
    }
    let revision_id = input.revision_id;
    let publish_it = input.publish;
    let name = f.name.clone();
    let region = f.region.clone();
    let arn = f.arn();
    let answer = lambda
        .update(&f, f.arn(), move |record, _| {
            check_revision(revision_id.as_deref(), &record.latest.revision_id)?;
            change(record);
            if publish_it {
                let v = publish_settling(record, now);
                return Ok(configuration(
                    &name,
                    format!("{arn}:{}", v.version),
                    &region,
                    &v,
                    View::Written,
                ));
            }
            Ok(configuration(&name, arn, &region, &record.latest, View::Written))
        })
        .await?;
    lambda.stop_instances(&f.arn());
    Ok(answer)
}

/// Marks `$LATEST` changed at `now_ms`: a new revision, settling.
fn touch(cfg: &mut VersionConfig, now_ms: i64) {
    cfg.last_modified = lambda_time(now_ms);
    cfg.revision_id = revision();
    cfg.settled_revision_id = revision();
    cfg.settling = Some(Settling::Updating);
}

pub(crate) async fn update_function_configuration(
    lambda: &LambdaService,
    ctx: &RequestContext,
    input: UpdateFunctionConfigurationRequest,
) -> Result<FunctionConfiguration, AwsError> {
    let f = function_ref(ctx, &input.function_name, None)?;
    super::unqualified_only(&f)?;
    let current = lambda.function(&f, &f.arn())?;
    check_revision(input.revision_id.as_deref(), &current.latest.revision_id)?;
    if let Some(runtime) = &input.runtime {
        config::check_runtime(runtime.as_str())?;
    }
    let environment = input.environment.map(|e| e.variables.unwrap_or_default());
    if let Some(vars) = &environment {
        config::check_environment(vars)?;
    }
    if let Some(role) = &input.role {
        check_role(lambda, ctx, role).await?;
    }
    let layers = match &input.layers {
        Some(arns) => Some(lambda.layer_uses(ctx, arns, &f.region)?),
        None => None,
    };
    if let Some(layers) = &layers {
        check_unzipped(&current.latest.code, layers)?;
    }
    if current.latest.package_type == "Zip" && input.image_config.is_some() {
        return Err(invalid_parameter(
            "Please don't provide ImageConfig when updating a function with packageType Zip.",
        ));
    }
    let now = lambda.now_ms();
    let name = f.name.clone();
    let region = f.region.clone();
    let arn = f.arn();
    let answer = lambda
        .update(&f, f.arn(), move |record, _| {
            check_revision(input.revision_id.as_deref(), &record.latest.revision_id)?;
            let cfg = &mut record.latest;
            if let Some(v) = input.role {
                cfg.role = v;
            }
            if let Some(v) = input.handler {
                cfg.handler = Some(v);
            }
            if let Some(v) = input.description {
                cfg.description = v;
            }
            if let Some(v) = input.timeout {
                cfg.timeout = v;
            }
            if let Some(v) = input.memory_size {
                cfg.memory_size = v;
            }
            if let Some(v) = input.vpc_config {
                let vpc = config::vpc(v);
                cfg.vpc = (!vpc.subnet_ids.is_empty() || !vpc.security_group_ids.is_empty()).then_some(vpc);
            }
            if let Some(v) = environment {
                cfg.environment = Some(v);
            }
            if let Some(v) = input.runtime {
                cfg.runtime = Some(v.as_str().to_owned());
            }
            if let Some(v) = input.dead_letter_config {
                cfg.dead_letter_target = v.target_arn.filter(|t| !t.is_empty());
            }
            if let Some(v) = input.kms_key_arn {
                cfg.kms_key_arn = Some(v).filter(|k| !k.is_empty());
            }
            if let Some(v) = input.tracing_config.and_then(|t| t.mode) {
                cfg.tracing_mode = v.as_str().to_owned();
            }
            if let Some(v) = layers {
                cfg.layers = v;
            }
            if let Some(v) = input.file_system_configs {
                cfg.file_systems = v.into_iter().map(|c| (c.arn, c.local_mount_path)).collect();
            }
            if let Some(v) = input.image_config {
                cfg.image = Some(config::image(v));
            }
            if let Some(v) = input.ephemeral_storage {
                cfg.ephemeral_storage = v.size;
            }
            if let Some(v) = input.snap_start.and_then(|s| s.apply_on) {
                cfg.snap_start = v.as_str().to_owned();
            }
            if input.logging_config.is_some() {
                cfg.logging = config::logging(input.logging_config, &name, Some(&cfg.logging));
            }
            touch(cfg, now);
            Ok(configuration(&name, arn, &region, &record.latest, View::Written))
        })
        .await?;
    lambda.stop_instances(&f.arn());
    Ok(answer)
}

pub(crate) async fn delete_function(
    lambda: &LambdaService,
    ctx: &RequestContext,
    input: DeleteFunctionRequest,
) -> Result<DeleteFunctionResponse, AwsError> {
    let f = function_ref(ctx, &input.function_name, input.qualifier.as_deref())?;
    match Qualifier::of(f.qualifier.as_deref()) {
        Qualifier::Latest if f.qualifier.is_some() => {
            return Err(invalid_parameter(
                "$LATEST version cannot be deleted without deleting the function.",
            ))
        }
        Qualifier::Alias(_) => return Err(invalid_parameter("Deletion of aliases is not currently supported.")),
        Qualifier::Version(n) => {
            lambda
                .update(&f, f.arn(), move |record, _| {
                    // Deleting a version that does not exist is idempotent, as on AWS.
                    if !record.versions.contains_key(&n) {
                        return Ok(());
                    }
                    let pointing: Vec<&str> = record
                        .aliases
                        .values()
                        .filter(|a| a.function_version == n.to_string() || a.weights.contains_key(&n.to_string()))
                        .map(|a| a.name.as_str())
                        .collect();
                    if !pointing.is_empty() {
                        return Err(conflict(format!(
                            "Unable to delete version because the following aliases reference it: [{}]",
                            pointing.join(", ")
                        )));
                    }
                    record.versions.remove(&n);
                    let key = n.to_string();
                    record.policies.remove(&key);
                    record.event_invoke.remove(&key);
                    record.provisioned.remove(&key);
                    Ok(())
                })
                .await?;
        }
        Qualifier::Latest => {
            let name = f.name.clone();
            let missing = f.arn();
            lambda
                .transact(&f.account, &f.region, move |tx| {
                    let Some(record) = load_function(tx, &name)? else {
                        return Err(function_not_found(&missing));
                    };
                    function_urls::forget(tx, record.urls.values());
                    FUNCTIONS.delete(tx, name.as_bytes());
                    Ok(())
                })
                .await?;
        }
    }
    lambda.stop_instances(&f.arn());
    Ok(DeleteFunctionResponse { status_code: 204 })
}

pub(crate) async fn list_functions(
    lambda: &LambdaService,
    ctx: &RequestContext,
    input: ListFunctionsRequest,
) -> Result<ListFunctionsResponse, AwsError> {
    let size = FUNCTION_PAGE.clamp(input.max_items);
    let all = input.function_version.is_some();
    let after = match &input.marker {
        Some(m) => Some(
            FUNCTION_LISTING
                .decode_str(m)
                .map_err(|_| invalid_parameter("Invalid marker"))?,
        ),
        None => None,
    };
    let store = lambda.store(&ctx.account_id, &ctx.region)?;
    let records = FUNCTIONS.scan_prefix(&*store, b"").map_err(error::storage)?;
    let mut items = Vec::new();
    for (_, record) in records {
        let record = record.settled();
        let arn = function_arn(&ctx.region, &ctx.account_id, &record.name);
        items.push((
            format!("{}\u{0}", record.name),
            configuration(&record.name, arn.clone(), &ctx.region, &record.latest, View::Listed),
        ));
        if all {
            for (n, v) in &record.versions {
                items.push((
                    format!("{}\u{0}{n:020}", record.name),
                    configuration(&record.name, format!("{arn}:{n}"), &ctx.region, v, View::Listed),
                ));
            }
        }
    }
    let items = items
        .into_iter()
        .filter(|(key, _)| after.as_ref().is_none_or(|a| key > a));
    let (page, more) = take_page(items, size);
    let next_marker = if more {
        page.last().map(|(key, _)| FUNCTION_LISTING.encode_str(key))
    } else {
        None
    };
    Ok(ListFunctionsResponse {
        next_marker,
        functions: Some(page.into_iter().map(|(_, c)| c).collect()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trust_policies_are_read_for_lambda() {
        let trusts = r#"{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Service":"lambda.amazonaws.com"},"Action":"sts:AssumeRole"}]}"#;
        assert!(trusts_lambda(trusts));
        let list = r#"{"Statement":{"Effect":"Allow","Principal":{"Service":["ec2.amazonaws.com","lambda.amazonaws.com"]},"Action":["sts:AssumeRole"]}}"#;
        assert!(trusts_lambda(list));
        let other = r#"{"Statement":[{"Effect":"Allow","Principal":{"Service":"ec2.amazonaws.com"},"Action":"sts:AssumeRole"}]}"#;
        assert!(!trusts_lambda(other));
        assert!(trusts_lambda(&trusts.replace('"', "%22")));
        assert!(!trusts_lambda("not json"));
        assert!(!trusts_lambda("%"));
    }

    #[test]
    fn publishing_twice_without_a_change_answers_the_same_version() {
        let mut record = FunctionRecord::default();
        record.latest.version = LATEST.into();
        let v1 = publish(&mut record, None, 0);
        assert_eq!(v1.version, "1");
        assert_eq!(publish(&mut record, None, 1).version, "1");
        record.latest.memory_size = 256;
        assert_eq!(publish(&mut record, None, 2).version, "2");
    }
}
