//! Bucket configuration subresources (see [`crate::config`]): CORS, policy, encryption,
//! ownership controls, public access block, website, lifecycle, accelerate, request payment,
//! logging, notifications, replication and attribute-based access control (ABAC).

use stratus_core::{id, AwsError, RequestContext, Unit};
use stratus_gen_s3::*;

use crate::config::{self, Change};
use crate::error::S3Error;
use crate::versioning::State;
use crate::{lifecycle, notify, store, S3Service};

pub(crate) async fn put_bucket_cors(
    s3: &S3Service,
    _ctx: &RequestContext,
    input: PutBucketCorsRequest,
) -> Result<Unit, PutBucketCorsError> {
    let rules = input.cors_configuration.cors_rules;
    config::cors_rules::check_cors(&rules)?;
    let doc = config::encode(&schema::CORS_RULES, rules);
    s3.change_config(input.bucket, config::CORS, Change::Set(doc), |_, _| Ok(()))
        .await?;
    Ok(Unit {})
}

pub(crate) async fn get_bucket_cors(
    s3: &S3Service,
    _ctx: &RequestContext,
    input: GetBucketCorsRequest,
) -> Result<GetBucketCorsOutput, GetBucketCorsError> {
    let rules: Vec<CORSRule> = s3
        .typed_config(&input.bucket, config::CORS, &schema::CORS_RULES)?
        .ok_or_else(|| {
            config::not_found(
                &input.bucket,
                "NoSuchCORSConfiguration",
                "The CORS configuration does not exist",
            )
        })?;
    Ok(GetBucketCorsOutput {
        cors_rules: Some(rules),
    })
}

pub(crate) async fn delete_bucket_cors(
    s3: &S3Service,
    _ctx: &RequestContext,
    input: DeleteBucketCorsRequest,
) -> Result<Unit, DeleteBucketCorsError> {
    s3.change_config(input.bucket, config::CORS, Change::Remove, |_, _| Ok(()))
        .await?;
    Ok(Unit {})
}

pub(crate) async fn put_bucket_policy(
    s3: &S3Service,
    ctx: &RequestContext,
    input: PutBucketPolicyRequest,
) -> Result<Unit, PutBucketPolicyError> {
    let public = config::policy::check_policy(&input.bucket, &ctx.region, &input.policy)?;
    let doc = Change::Set(input.policy.into_bytes());
    s3.change_config(input.bucket, config::POLICY, doc, move |tx, bucket| {
        let block = config::tx_public_access_block(tx, &bucket.name)?;
        if public && block.is_some_and(|b| b.block_public_policy == Some(true)) {
            return Err(config::ownership::access_denied());
        }
        Ok(())
    })
    .await?;
    Ok(Unit {})
}

pub(crate) async fn get_bucket_policy(
    s3: &S3Service,
    _ctx: &RequestContext,
    input: GetBucketPolicyRequest,
) -> Result<GetBucketPolicyOutput, GetBucketPolicyError> {
    let policy = s3.policy(&input.bucket)?;
    Ok(GetBucketPolicyOutput { policy: Some(policy) })
}

pub(crate) async fn get_bucket_policy_status(
    s3: &S3Service,
    ctx: &RequestContext,
    input: GetBucketPolicyStatusRequest,
) -> Result<GetBucketPolicyStatusOutput, GetBucketPolicyStatusError> {
    let policy = s3.policy(&input.bucket)?;
    let public = config::policy::check_policy(&input.bucket, &ctx.region, &policy)?;
    Ok(GetBucketPolicyStatusOutput {
        policy_status: Some(PolicyStatus {
            is_public: Some(public),
        }),
    })
}

pub(crate) async fn delete_bucket_policy(
    s3: &S3Service,
    _ctx: &RequestContext,
    input: DeleteBucketPolicyRequest,
) -> Result<Unit, DeleteBucketPolicyError> {
    s3.change_config(input.bucket, config::POLICY, Change::Remove, |_, _| Ok(()))
        .await?;
    Ok(Unit {})
}

pub(crate) async fn put_bucket_encryption(
    s3: &S3Service,
    _ctx: &RequestContext,
    input: PutBucketEncryptionRequest,
) -> Result<Unit, PutBucketEncryptionError> {
    let encryption = input.server_side_encryption_configuration;
    config::encryption::check_encryption(&encryption)?;
    let doc = config::encode(&schema::SERVER_SIDE_ENCRYPTION_CONFIGURATION, encryption);
    s3.change_config(input.bucket, config::ENCRYPTION, Change::Set(doc), |_, _| Ok(()))
        .await?;
    Ok(Unit {})
}

pub(crate) async fn get_bucket_encryption(
    s3: &S3Service,
    _ctx: &RequestContext,
    input: GetBucketEncryptionRequest,
) -> Result<GetBucketEncryptionOutput, GetBucketEncryptionError> {
    // Every bucket has had SSE-S3 default encryption since January 2023.
    let encryption = s3
        .typed_config(
            &input.bucket,
            config::ENCRYPTION,
            &schema::SERVER_SIDE_ENCRYPTION_CONFIGURATION,
        )?
        .unwrap_or_else(config::encryption::default_encryption);
    Ok(GetBucketEncryptionOutput {
        server_side_encryption_configuration: Some(encryption),
    })
}

pub(crate) async fn delete_bucket_encryption(
    s3: &S3Service,
    _ctx: &RequestContext,
    input: DeleteBucketEncryptionRequest,
) -> Result<Unit, DeleteBucketEncryptionError> {
    s3.change_config(input.bucket, config::ENCRYPTION, Change::Remove, |_, _| Ok(()))
        .await?;
    Ok(Unit {})
}

pub(crate) async fn put_bucket_ownership_controls(
    s3: &S3Service,
    _ctx: &RequestContext,
    input: PutBucketOwnershipControlsRequest,
) -> Result<Unit, PutBucketOwnershipControlsError> {
    let controls = input.ownership_controls;
    config::ownership::check_ownership(&controls)?;
    let enforcing = config::ownership::enforced(Some(&controls));
    let doc = config::encode(&schema::OWNERSHIP_CONTROLS, controls);
    s3.change_config(input.bucket, config::OWNERSHIP, Change::Set(doc), move |tx, bucket| {
        let acl: Option<Vec<Grant>> = config::typed(tx, &bucket.name, config::ACL, &schema::GRANTS, || None)?;
        if enforcing && acl.is_some_and(|g| !config::acl::owner_only(&g, &bucket.owner)) {
            return Err(S3Error::invalid_bucket_acl_with_ownership());
        }
        Ok(())
    })
    .await?;
    Ok(Unit {})
}

pub(crate) async fn get_bucket_ownership_controls(
    s3: &S3Service,
    _ctx: &RequestContext,
    input: GetBucketOwnershipControlsRequest,
) -> Result<GetBucketOwnershipControlsOutput, GetBucketOwnershipControlsError> {
    let controls = match s3.load_config(&input.bucket, config::OWNERSHIP)? {
        None => config::ownership::default_ownership(),
        Some(bytes) if bytes.is_empty() => {
            return Err(config::not_found(
                &input.bucket,
                "OwnershipControlsNotFoundError",
                "The bucket ownership controls were not found",
            )
            .into());
        }
        Some(bytes) => config::decode(&schema::OWNERSHIP_CONTROLS, &bytes)?,
    };
    Ok(GetBucketOwnershipControlsOutput {
        ownership_controls: Some(controls),
    })
}

pub(crate) async fn delete_bucket_ownership_controls(
    s3: &S3Service,
    _ctx: &RequestContext,
    input: DeleteBucketOwnershipControlsRequest,
) -> Result<Unit, DeleteBucketOwnershipControlsError> {
    s3.change_config(input.bucket, config::OWNERSHIP, Change::Clear, |_, _| Ok(()))
        .await?;
    Ok(Unit {})
}

pub(crate) async fn put_public_access_block(
    s3: &S3Service,
    _ctx: &RequestContext,
    input: PutPublicAccessBlockRequest,
) -> Result<Unit, PutPublicAccessBlockError> {
    let given = input.public_access_block_configuration;
    // Settings left out are off.
    let block = PublicAccessBlockConfiguration {
        block_public_acls: Some(given.block_public_acls.unwrap_or(false)),
        ignore_public_acls: Some(given.ignore_public_acls.unwrap_or(false)),
        block_public_policy: Some(given.block_public_policy.unwrap_or(false)),
        restrict_public_buckets: Some(given.restrict_public_buckets.unwrap_or(false)),
    };
    let doc = config::encode(&schema::PUBLIC_ACCESS_BLOCK_CONFIGURATION, block);
    s3.change_config(input.bucket, config::PUBLIC_ACCESS_BLOCK, Change::Set(doc), |_, _| {
        Ok(())
    })
    .await?;
    Ok(Unit {})
}

pub(crate) async fn get_public_access_block(
    s3: &S3Service,
    _ctx: &RequestContext,
    input: GetPublicAccessBlockRequest,
) -> Result<GetPublicAccessBlockOutput, GetPublicAccessBlockError> {
    let block = match s3.load_config(&input.bucket, config::PUBLIC_ACCESS_BLOCK)? {
        None => config::ownership::default_public_access_block(),
        Some(bytes) if bytes.is_empty() => {
            return Err(config::not_found(
                &input.bucket,
                "NoSuchPublicAccessBlockConfiguration",
                "The public access block configuration was not found",
            )
            .into());
        }
        Some(bytes) => config::decode(&schema::PUBLIC_ACCESS_BLOCK_CONFIGURATION, &bytes)?,
    };
    Ok(GetPublicAccessBlockOutput {
        public_access_block_configuration: Some(block),
    })
}

pub(crate) async fn delete_public_access_block(
    s3: &S3Service,
    _ctx: &RequestContext,
    input: DeletePublicAccessBlockRequest,
) -> Result<Unit, DeletePublicAccessBlockError> {
    s3.change_config(input.bucket, config::PUBLIC_ACCESS_BLOCK, Change::Clear, |_, _| Ok(()))
        .await?;
    Ok(Unit {})
}

pub(crate) async fn put_bucket_website(
    s3: &S3Service,
    _ctx: &RequestContext,
    input: PutBucketWebsiteRequest,
) -> Result<Unit, PutBucketWebsiteError> {
    let site = input.website_configuration;
    config::website::check_website(&site)?;
    let doc = config::encode(
        &schema::GET_BUCKET_WEBSITE_OUTPUT,
        GetBucketWebsiteOutput {
            redirect_all_requests_to: site.redirect_all_requests_to,
            index_document: site.index_document,
            error_document: site.error_document,
            routing_rules: site.routing_rules,
        },
    );
    s3.change_config(input.bucket, config::WEBSITE, Change::Set(doc), |_, _| Ok(()))
        .await?;
    Ok(Unit {})
}

pub(crate) async fn get_bucket_website(
    s3: &S3Service,
    _ctx: &RequestContext,
    input: GetBucketWebsiteRequest,
) -> Result<GetBucketWebsiteOutput, GetBucketWebsiteError> {
    match s3.load_config(&input.bucket, config::WEBSITE)? {
        Some(bytes) if !bytes.is_empty() => Ok(config::website::website(&bytes)?),
        _ => Err(config::not_found(
            &input.bucket,
            "NoSuchWebsiteConfiguration",
            "The specified bucket does not have a website configuration",
        )
        .into()),
    }
}

pub(crate) async fn delete_bucket_website(
    s3: &S3Service,
    _ctx: &RequestContext,
    input: DeleteBucketWebsiteRequest,
) -> Result<Unit, DeleteBucketWebsiteError> {
    s3.change_config(input.bucket, config::WEBSITE, Change::Remove, |_, _| Ok(()))
        .await?;
    Ok(Unit {})
}

pub(crate) async fn put_bucket_lifecycle_configuration(
    s3: &S3Service,
    _ctx: &RequestContext,
    input: PutBucketLifecycleConfigurationRequest,
) -> Result<PutBucketLifecycleConfigurationOutput, PutBucketLifecycleConfigurationError> {
    let rules = input
        .lifecycle_configuration
        .map(|c| c.rules)
        .ok_or_else(S3Error::malformed_xml)?;
    if let Some(TransitionDefaultMinimumObjectSize::Unknown(size)) = &input.transition_default_minimum_object_size {
        return Err(
            S3Error::invalid_request(format!("Invalid TransitionDefaultMinimumObjectSize found: {size}")).into(),
        );
    }
    config::lifecycle_rules::check_lifecycle(&rules)?;
    let sweep = lifecycle::has_expiration(&rules);
    let size = input
        .transition_default_minimum_object_size
        .map_or_else(|| "all_storage_classes_128K".to_owned(), |s| s.as_str().to_owned());
    let doc = config::encode(&schema::LIFECYCLE_RULES, rules);
    let bucket = input.bucket;
    s3.change_config(bucket.clone(), config::LIFECYCLE, Change::Set(doc), |_, _| Ok(()))
        .await?;
    s3.change_config(
        bucket,
        config::LIFECYCLE_SIZE,
        Change::Set(size.clone().into_bytes()),
        |_, _| Ok(()),
    )
    .await?;
    if sweep {
        s3.lifecycle.watch(s3);
    }
    Ok(PutBucketLifecycleConfigurationOutput {
        transition_default_minimum_object_size: Some(TransitionDefaultMinimumObjectSize::from_wire(&size)),
    })
}

pub(crate) async fn get_bucket_lifecycle_configuration(
    s3: &S3Service,
    _ctx: &RequestContext,
    input: GetBucketLifecycleConfigurationRequest,
) -> Result<GetBucketLifecycleConfigurationOutput, GetBucketLifecycleConfigurationError> {
    let rules: Vec<LifecycleRule> = s3
        .typed_config(&input.bucket, config::LIFECYCLE, &schema::LIFECYCLE_RULES)?
        .ok_or_else(|| {
            config::not_found(
                &input.bucket,
                "NoSuchLifecycleConfiguration",
                "The lifecycle configuration does not exist",
            )
        })?;
    let size = s3
        .load_config(&input.bucket, config::LIFECYCLE_SIZE)?
        .and_then(|b| String::from_utf8(b).ok())
        .unwrap_or_else(|| "all_storage_classes_128K".into());
    Ok(GetBucketLifecycleConfigurationOutput {
        rules: Some(rules),
        transition_default_minimum_object_size: Some(TransitionDefaultMinimumObjectSize::from_wire(&size)),
    })
}

pub(crate) async fn delete_bucket_lifecycle(
    s3: &S3Service,
    _ctx: &RequestContext,
    input: DeleteBucketLifecycleRequest,
) -> Result<Unit, DeleteBucketLifecycleError> {
    s3.change_config(input.bucket.clone(), config::LIFECYCLE, Change::Remove, |_, _| Ok(()))
        .await?;
    s3.change_config(input.bucket, config::LIFECYCLE_SIZE, Change::Remove, |_, _| Ok(()))
        .await?;
    Ok(Unit {})
}

pub(crate) async fn put_bucket_accelerate_configuration(
    s3: &S3Service,
    _ctx: &RequestContext,
    input: PutBucketAccelerateConfigurationRequest,
) -> Result<Unit, PutBucketAccelerateConfigurationError> {
    if input.bucket.contains('.') {
        return Err(S3Error::invalid_request(
            "S3 Transfer Acceleration is not supported for buckets with periods (.) in their names",
        )
        .into());
    }
    let status = match input.accelerate_configuration.status {
        Some(BucketAccelerateStatus::Enabled) => "Enabled",
        Some(BucketAccelerateStatus::Suspended) => "Suspended",
        _ => return Err(S3Error::malformed_xml().into()),
    };
    s3.change_config(input.bucket, config::ACCELERATE, Change::Set(status.into()), |_, _| {
        Ok(())
    })
    .await?;
    Ok(Unit {})
}

pub(crate) async fn get_bucket_accelerate_configuration(
    s3: &S3Service,
    _ctx: &RequestContext,
    input: GetBucketAccelerateConfigurationRequest,
) -> Result<GetBucketAccelerateConfigurationOutput, GetBucketAccelerateConfigurationError> {
    // A bucket never configured answers an empty configuration.
    let status = s3.load_text_config(&input.bucket, config::ACCELERATE)?;
    Ok(GetBucketAccelerateConfigurationOutput {
        status: status.as_deref().map(BucketAccelerateStatus::from_wire),
        ..GetBucketAccelerateConfigurationOutput::default()
    })
}

pub(crate) async fn put_bucket_request_payment(
    s3: &S3Service,
    _ctx: &RequestContext,
    input: PutBucketRequestPaymentRequest,
) -> Result<Unit, PutBucketRequestPaymentError> {
    let payer = match input.request_payment_configuration.payer {
        Payer::Unknown(_) => return Err(S3Error::malformed_xml().into()),
        p => p.as_str().to_owned(),
    };
    s3.change_config(
        input.bucket,
        config::REQUEST_PAYMENT,
        Change::Set(payer.into_bytes()),
        |_, _| Ok(()),
    )
    .await?;
    Ok(Unit {})
}

pub(crate) async fn get_bucket_request_payment(
    s3: &S3Service,
    _ctx: &RequestContext,
    input: GetBucketRequestPaymentRequest,
) -> Result<GetBucketRequestPaymentOutput, GetBucketRequestPaymentError> {
    let payer = s3
        .load_text_config(&input.bucket, config::REQUEST_PAYMENT)?
        .unwrap_or_else(|| "BucketOwner".into());
    Ok(GetBucketRequestPaymentOutput {
        payer: Some(Payer::from_wire(&payer)),
    })
}

pub(crate) async fn put_bucket_logging(
    s3: &S3Service,
    _ctx: &RequestContext,
    input: PutBucketLoggingRequest,
) -> Result<Unit, PutBucketLoggingError> {
    let Some(logging) = input.bucket_logging_status.logging_enabled else {
        // An empty BucketLoggingStatus turns logging off.
        s3.change_config(input.bucket, config::LOGGING, Change::Remove, |_, _| Ok(()))
            .await?;
        return Ok(Unit {});
    };
    let target = logging.target_bucket.clone();
    let doc = config::encode(&schema::LOGGING_ENABLED, logging);
    s3.change_config(input.bucket, config::LOGGING, Change::Set(doc), move |tx, bucket| {
        let invalid = |m: &str| AwsError::new("InvalidTargetBucketForLogging", m, 400);
        let target = store::bucket(tx, &target).map_err(|_| {
            invalid("The target bucket for logging does not exist").with_detail("TargetBucket", target.clone())
        })?;
        if target.region != bucket.region {
            // AWS names the source's region too, unless it is us-east-1.
            let refusal = AwsError::new(
                "CrossLocationLoggingProhibitted",
                "Cross S3 location logging not allowed. ",
                403,
            );
            let refusal = match bucket.region.as_str() {
                "us-east-1" => refusal,
                source => refusal.with_detail("SourceBucketLocation", source),
            };
            return Err(refusal.with_detail("TargetBucketLocation", target.region));
        }
        if target.owner != bucket.owner {
            return Err(invalid(
                "The owner for the bucket to be logged and the target bucket must be the same.",
            ));
        }
        Ok(())
    })
    .await?;
    Ok(Unit {})
}

pub(crate) async fn get_bucket_logging(
    s3: &S3Service,
    _ctx: &RequestContext,
    input: GetBucketLoggingRequest,
) -> Result<GetBucketLoggingOutput, GetBucketLoggingError> {
    Ok(GetBucketLoggingOutput {
        logging_enabled: s3.typed_config(&input.bucket, config::LOGGING, &schema::LOGGING_ENABLED)?,
    })
}

pub(crate) async fn put_bucket_notification_configuration(
    s3: &S3Service,
    ctx: &RequestContext,
    input: PutBucketNotificationConfigurationRequest,
) -> Result<Unit, PutBucketNotificationConfigurationError> {
    let mut notification = input.notification_configuration;
    let events = (notification
        .queue_configurations
        .iter()
        .flatten()
        .flat_map(|c| &c.events))
    .chain(
        notification
            .topic_configurations
            .iter()
            .flatten()
            .flat_map(|c| &c.events),
    )
    .chain(
        notification
            .lambda_function_configurations
            .iter()
            .flatten()
            .flat_map(|c| &c.events),
    );
    if events.into_iter().any(|e| matches!(e, Event::Unknown(_))) {
        return Err(S3Error::invalid_argument("The event is not supported for notifications").into());
    }
    notify::check_arns(&notification)?;
    if !input.skip_destination_validation.unwrap_or(false) {
        s3.check_destinations(ctx, &input.bucket, &notification).await?;
    }
    // AWS names each configuration that arrives without an id.
    let fresh = || Some(id::uuid());
    for c in notification.queue_configurations.iter_mut().flatten() {
        c.id = c.id.take().or_else(fresh);
        notify::normalize_rule_names(&mut c.filter);
    }
    for c in notification.topic_configurations.iter_mut().flatten() {
        c.id = c.id.take().or_else(fresh);
        notify::normalize_rule_names(&mut c.filter);
    }
    for c in notification.lambda_function_configurations.iter_mut().flatten() {
        c.id = c.id.take().or_else(fresh);
        notify::normalize_rule_names(&mut c.filter);
    }
    let doc = config::encode(&schema::NOTIFICATION_CONFIGURATION, notification.clone());
    s3.change_config(input.bucket.clone(), config::NOTIFICATION, Change::Set(doc), |_, _| {
        Ok(())
    })
    .await?;
    s3.send_test_events(&input.bucket, &notification, ctx).await;
    Ok(Unit {})
}

pub(crate) async fn put_bucket_replication(
    s3: &S3Service,
    _ctx: &RequestContext,
    input: PutBucketReplicationRequest,
) -> Result<Unit, PutBucketReplicationError> {
    let mut replication = input.replication_configuration;
    let bucket = input.bucket;
    let destinations = config::replication::check_replication(&bucket, &mut replication);
    let doc = config::encode(&schema::REPLICATION_CONFIGURATION, replication);
    s3.change_config(bucket, config::REPLICATION, Change::Set(doc), move |tx, source| {
        if source.state() != State::Enabled {
            return Err(S3Error::invalid_request(
                "Versioning must be 'Enabled' on the bucket to apply a replication configuration",
            ));
        }
        for name in destinations? {
            // A destination that does not exist is refused as one without versioning, as AWS words it.
            let enabled = store::bucket(tx, &name).is_ok_and(|d| d.state() == State::Enabled);
            if !enabled {
                return Err(S3Error::invalid_request(
                    "Destination bucket must have versioning enabled.",
                ));
            }
        }
        Ok(())
    })
    .await?;
    Ok(Unit {})
}

pub(crate) async fn get_bucket_replication(
    s3: &S3Service,
    _ctx: &RequestContext,
    input: GetBucketReplicationRequest,
) -> Result<GetBucketReplicationOutput, GetBucketReplicationError> {
    let replication = s3
        .typed_config(&input.bucket, config::REPLICATION, &schema::REPLICATION_CONFIGURATION)?
        .ok_or_else(|| {
            config::not_found(
                &input.bucket,
                "ReplicationConfigurationNotFoundError",
                "The replication configuration was not found",
            )
        })?;
    Ok(GetBucketReplicationOutput {
        replication_configuration: Some(replication),
    })
}

pub(crate) async fn delete_bucket_replication(
    s3: &S3Service,
    _ctx: &RequestContext,
    input: DeleteBucketReplicationRequest,
) -> Result<Unit, DeleteBucketReplicationError> {
    s3.change_config(input.bucket, config::REPLICATION, Change::Remove, |_, _| Ok(()))
        .await?;
    Ok(Unit {})
}

pub(crate) async fn get_bucket_notification_configuration(
    s3: &S3Service,
    _ctx: &RequestContext,
    input: GetBucketNotificationConfigurationRequest,
) -> Result<NotificationConfiguration, GetBucketNotificationConfigurationError> {
    Ok(s3
        .typed_config(&input.bucket, config::NOTIFICATION, &schema::NOTIFICATION_CONFIGURATION)?
        .unwrap_or_default())
}

pub(crate) async fn put_bucket_abac(
    s3: &S3Service,
    _ctx: &RequestContext,
    input: PutBucketAbacRequest,
) -> Result<Unit, PutBucketAbacError> {
    let status = match input.abac_status.status {
        Some(BucketAbacStatus::Enabled) => "Enabled",
        Some(BucketAbacStatus::Disabled) => "Disabled",
        _ => return Err(S3Error::malformed_xml().into()),
    };
    s3.change_config(input.bucket, config::ABAC, Change::Set(status.into()), |_, _| Ok(()))
        .await?;
    Ok(Unit {})
}

pub(crate) async fn get_bucket_abac(
    s3: &S3Service,
    _ctx: &RequestContext,
    input: GetBucketAbacRequest,
) -> Result<GetBucketAbacOutput, GetBucketAbacError> {
    // "By default, ABAC is disabled for all Amazon S3 general purpose buckets" (S3 user guide,
    // "Using tags for ABAC").
    let status = s3
        .load_text_config(&input.bucket, config::ABAC)?
        .unwrap_or_else(|| "Disabled".into());
    Ok(GetBucketAbacOutput {
        abac_status: Some(AbacStatus {
            status: Some(BucketAbacStatus::from_wire(&status)),
        }),
    })
}
