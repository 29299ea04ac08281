//! Keys: creation, description, listing, states, deletion, tags, policies and replicas.

use stratus_core::paging::Token;
use stratus_core::value::DateTime;
use stratus_core::{AwsError, RequestContext, Unit};
use stratus_gen_kms::*;

use crate::aliases::{managed_service, AliasRecord};
use crate::crypto;
use crate::error::{invalid_state, key_not_found, not_found, tag_error, unsupported, validation, KmsError};
use crate::keys::{default_policy, new_key_id, KeyRecord, Material, MultiRegion};
use crate::lookup::{find_key, parse, KeyRef, Scope};
use crate::ops::page;
use crate::service::KmsService;
use crate::spec;
use crate::store::{ALIASES, KEYS};

const KEY_LISTING: Token = Token::for_listing("kms:ListKeys");
const TAG_LISTING: Token = Token::for_listing("kms:ListResourceTags");
const POLICY_LISTING: Token = Token::for_listing("kms:ListKeyPolicies");
/// KMS's limit of tags per key.
const MAX_TAGS: usize = 50;

/// The key `key_id` names; an AWS managed alias (`alias/aws/<service>`) that names no key
/// yet gets its key, as AWS creates one on a service's first use.
pub(crate) async fn resolve(kms: &KmsService, scope: &Scope, key_id: &str) -> Result<KeyRecord, KmsError> {
    let key_ref = parse(scope, key_id)?;
    let store = kms.store(&scope.account, &scope.region)?;
    match crate::lookup::find(&*store, scope, &key_ref) {
        Err(e) if e.0.code == "NotFoundException" => {
            let KeyRef::Alias { name, .. } = &key_ref else {
                return Err(e);
            };
            let Some(service) = managed_service(name) else {
                return Err(e);
            };
            create_managed(kms, scope, name.clone(), service.to_owned()).await
        }
        other => other,
    }
}

async fn create_managed(
    kms: &KmsService,
    scope: &Scope,
    alias: String,
    service: String,
) -> Result<KeyRecord, KmsError> {
    let now = kms.now_ms();
    let id = new_key_id(false);
    let mut key = new_record(
        scope,
        &id,
        now,
        &KeySpec::SymmetricDefault,
        &KeyUsageType::EncryptDecrypt,
    );
    key.manager = "AWS".into();
    // AWS names the service as its documentation does where recorded (DynamoDB's, in
    // LocalStack's AWS-validated snapshots), else by the alias.
    let named = match service.as_str() {
        "dynamodb" => "DynamoDB",
        other => other,
    };
    key.description = format!("Default key that protects my {named} data when no other key is defined");
    key.materials
        .push(Material::new(&crypto::generate(crypto::Family::Symmetric), None));
    let scope = scope.clone();
    kms.transact(&scope.account.clone(), &scope.region.clone(), move |tx| {
        // Another request may have made it meanwhile.
        if let Some(existing) = ALIASES.get(tx, &alias)? {
            if let Some(key) = KEYS.get(tx, &existing.target)? {
                return Ok(key);
            }
        }
        KEYS.put(tx, key.id.as_str(), &key)?;
        ALIASES.put(
            tx,
            alias.as_str(),
            &AliasRecord {
                target: key.id.clone(),
                created_ms: now,
                updated_ms: now,
            },
        )?;
        Ok(key)
    })
    .await
}

/// Applies `change` to the key `key_id` names, in one transaction, and answers the key as
/// changed and what `change` answered.
pub(crate) async fn update<R, F>(
    kms: &KmsService,
    scope: &Scope,
    key_id: &str,
    change: F,
) -> Result<(KeyRecord, R), KmsError>
where
    R: Send + 'static,
    F: FnOnce(&mut KeyRecord) -> Result<R, KmsError> + Send + 'static,
{
    let scope = scope.clone();
    let key_id = key_id.to_owned();
    kms.transact(&scope.account.clone(), &scope.region.clone(), move |tx| {
        let mut key = find_key(tx, &scope, &key_id)?;
        let answer = change(&mut key)?;
        KEYS.put(tx, key.id.as_str(), &key)?;
        Ok((key, answer))
    })
    .await
}

/// A key record with everything but material, tags and policy at their defaults.
pub(crate) fn new_record(scope: &Scope, id: &str, now: i64, spec: &KeySpec, usage: &KeyUsageType) -> KeyRecord {
    KeyRecord {
        id: id.to_owned(),
        arn: scope.key_arn(id),
        account: scope.account.clone(),
        created_ms: now,
        description: String::new(),
        spec: spec.as_str().to_owned(),
        usage: usage.as_str().to_owned(),
        origin: "AWS_KMS".into(),
        manager: "CUSTOMER".into(),
        state: "Enabled".into(),
        deletion_ms: None,
        pending_window_days: None,
        policy: default_policy(&scope.account, &scope.partition()),
        tags: Vec::new(),
        materials: Vec::new(),
        pending_material: None,
        rotation: None,
        on_demand_rotations: 0,
        multi_region: None,
        import: None,
    }
}

/// Tags as pairs in the order given, checked against KMS's rules.
pub(crate) fn check_tags(tags: Vec<Tag>) -> Result<Vec<(String, String)>, KmsError> {
    let mut out: Vec<(String, String)> = Vec::with_capacity(tags.len());
    for tag in tags {
        if out.iter().any(|(k, _)| *k == tag.tag_key) {
            return Err(tag_error("Duplicate tag keys"));
        }
        if tag.tag_key.to_ascii_lowercase().starts_with("aws:") {
            return Err(tag_error("Tags beginning with aws: are reserved"));
        }
        out.push((tag.tag_key, tag.tag_value));
    }
    if out.len() > MAX_TAGS {
        return Err(tag_error("Too many tags"));
    }
    Ok(out)
}

/// A policy document must be JSON of an object, as AWS's parser requires.
pub(crate) fn check_policy(policy: &str) -> Result<(), KmsError> {
    match serde_json::from_str::<serde_json::Value>(policy) {
        Ok(serde_json::Value::Object(_)) => Ok(()),
        _ => Err(KmsError(AwsError::new(
            "MalformedPolicyDocumentException",
            "The new key policy will not allow you to update the key policy in the future.",
            400,
        ))),
    }
}

pub(crate) async fn create_key(
    kms: &KmsService,
    ctx: &RequestContext,
    input: CreateKeyRequest,
) -> Result<CreateKeyResponse, KmsError> {
    let scope = Scope::of(ctx);
    if input.custom_key_store_id.is_some() || input.xks_key_id.is_some() {
        return Err(KmsError(AwsError::new("CustomKeyStoreNotFoundException", "", 400)));
    }
    let origin = input.origin.unwrap_or(OriginType::AwsKms);
    if !matches!(origin, OriginType::AwsKms | OriginType::External) {
        return Err(KmsError(AwsError::new("CustomKeyStoreNotFoundException", "", 400)));
    }
    let spec = input
        .key_spec
        .or_else(|| input.customer_master_key_spec.map(|s| KeySpec::from_wire(s.as_str())))
        .unwrap_or(KeySpec::SymmetricDefault);
    let family = spec::family(&spec)?;
    let usage = match input.key_usage {
        Some(usage) => usage,
        None if spec == KeySpec::SymmetricDefault => KeyUsageType::EncryptDecrypt,
        None => {
            return Err(validation(
                "You must specify a KeyUsage value for all KMS keys except for symmetric encryption keys.",
            ))
        }
    };
    spec::check_usage(&spec, &usage)?;
    let tags = check_tags(input.tags.unwrap_or_default())?;
    if let Some(policy) = &input.policy {
        check_policy(policy)?;
    }
    let multi_region = input.multi_region.unwrap_or(false);
    let id = new_key_id(multi_region);
    let mut key = new_record(&scope, &id, kms.now_ms(), &spec, &usage);
    key.description = input.description.unwrap_or_default();
    key.tags = tags;
    if let Some(policy) = input.policy {
        key.policy = policy;
    }
    if multi_region {
        key.multi_region = Some(MultiRegion {
            primary_region: scope.region.clone(),
            replicas: Vec::new(),
        });
    }
    if origin == OriginType::External {
        key.origin = "EXTERNAL".into();
        key.state = "PendingImport".into();
    } else {
        // RSA 4096 takes a while: off the request threads.
        let secret = tokio::task::spawn_blocking(move || crypto::generate(family))
            .await
            .map_err(|e| {
                KmsError(AwsError::new(
                    "KMSInternalException",
                    format!("key generation: {e}"),
                    500,
                ))
            })?;
        key.materials.push(Material::new(&secret, None));
    }
    let metadata = key.metadata(&scope.region, None);
    kms.transact(&scope.account, &scope.region, move |tx| {
        KEYS.put(tx, key.id.as_str(), &key)?;
        Ok(())
    })
    .await?;
    Ok(CreateKeyResponse {
        key_metadata: Some(metadata),
    })
}

/// The record of a multi-region key's primary, for a replica's metadata.
fn primary_of(kms: &KmsService, scope: &Scope, key: &KeyRecord) -> Option<KeyRecord> {
    let m = key.multi_region.as_ref()?;
    if m.primary_region == scope.region {
        return None;
    }
    let store = kms.store(&scope.account, &m.primary_region).ok()?;
    KEYS.get(&*store, &key.id).ok().flatten()
}

pub(crate) async fn describe_key(
    kms: &KmsService,
    ctx: &RequestContext,
    input: DescribeKeyRequest,
) -> Result<DescribeKeyResponse, KmsError> {
    let scope = Scope::of(ctx);
    let key = resolve(kms, &scope, &input.key_id).await?;
    let primary = primary_of(kms, &scope, &key);
    Ok(DescribeKeyResponse {
        key_metadata: Some(key.metadata(&scope.region, primary.as_ref())),
    })
}

pub(crate) async fn list_keys(
    kms: &KmsService,
    ctx: &RequestContext,
    input: ListKeysRequest,
) -> Result<ListKeysResponse, KmsError> {
    let scope = Scope::of(ctx);
    let store = kms.store(&scope.account, &scope.region)?;
    let keys = KEYS
        .scan_prefix(&*store, [])?
        .into_iter()
        .map(|(_, k)| {
            (
                k.id.clone(),
                KeyListEntry {
                    key_id: Some(k.id),
                    key_arn: Some(k.arn),
                },
            )
        })
        .collect();
    let (keys, next) = page(keys, &KEY_LISTING, input.marker.as_deref(), input.limit)?;
    Ok(ListKeysResponse {
        keys: Some(keys),
        truncated: next.is_some(),
        next_marker: next,
    })
}

pub(crate) async fn enable_key(
    kms: &KmsService,
    ctx: &RequestContext,
    input: EnableKeyRequest,
) -> Result<Unit, KmsError> {
    set_enabled(kms, ctx, &input.key_id, true).await
}

pub(crate) async fn disable_key(
    kms: &KmsService,
    ctx: &RequestContext,
    input: DisableKeyRequest,
) -> Result<Unit, KmsError> {
    set_enabled(kms, ctx, &input.key_id, false).await
}

async fn set_enabled(kms: &KmsService, ctx: &RequestContext, key_id: &str, enabled: bool) -> Result<Unit, KmsError> {
    update(kms, &Scope::of(ctx), key_id, move |key| {
        if !matches!(key.state.as_str(), "Enabled" | "Disabled") {
            return Err(key.state_error());
        }
        key.state = if enabled { "Enabled" } else { "Disabled" }.into();
        Ok(())
    })
    .await?;
    Ok(Unit {})
}

pub(crate) async fn schedule_key_deletion(
    kms: &KmsService,
    ctx: &RequestContext,
    input: ScheduleKeyDeletionRequest,
) -> Result<ScheduleKeyDeletionResponse, KmsError> {
    let days = input.pending_window_in_days.unwrap_or(30);
    if !(7..=30).contains(&days) {
        return Err(validation(format!(
            "1 validation error detected: Value '{days}' at 'pendingWindowInDays' failed to satisfy constraint: Member must have value {}",
            if days < 7 { "greater than or equal to 7" } else { "less than or equal to 30" }
        )));
    }
    let now = kms.now_ms();
    let due = now + i64::from(days) * 86_400_000;
    let (key, ()) = update(kms, &Scope::of(ctx), &input.key_id, move |key| {
        if key.manager == "AWS" {
            return Err(unsupported(format!(
                "{} is an AWS managed key, which cannot be deleted.",
                key.arn
            )));
        }
        key.check_not_pending_deletion()?;
        key.state = "PendingDeletion".into();
        key.deletion_ms = Some(due);
        key.pending_window_days = Some(days);
        key.rotation = None;
        Ok(())
    })
    .await?;
    kms.schedule_due(due);
    Ok(ScheduleKeyDeletionResponse {
        key_id: Some(key.arn),
        deletion_date: Some(DateTime::from_millis(due)),
        key_state: Some(KeyState::PendingDeletion),
        pending_window_in_days: Some(days),
    })
}

pub(crate) async fn cancel_key_deletion(
    kms: &KmsService,
    ctx: &RequestContext,
    input: CancelKeyDeletionRequest,
) -> Result<CancelKeyDeletionResponse, KmsError> {
    let (key, ()) = update(kms, &Scope::of(ctx), &input.key_id, |key| {
        if key.state != "PendingDeletion" {
            return Err(invalid_state(format!("{} is not pending deletion.", key.arn)));
        }
        // AWS leaves a key whose deletion was cancelled disabled.
        key.state = if !key.has_material() {
            "PendingImport"
        } else {
            "Disabled"
        }
        .into();
        key.deletion_ms = None;
        key.pending_window_days = None;
        Ok(())
    })
    .await?;
    Ok(CancelKeyDeletionResponse { key_id: Some(key.arn) })
}

pub(crate) async fn update_key_description(
    kms: &KmsService,
    ctx: &RequestContext,
    input: UpdateKeyDescriptionRequest,
) -> Result<Unit, KmsError> {
    update(kms, &Scope::of(ctx), &input.key_id, move |key| {
        key.check_not_pending_deletion()?;
        key.description = input.description;
        Ok(())
    })
    .await?;
    Ok(Unit {})
}

pub(crate) async fn tag_resource(
    kms: &KmsService,
    ctx: &RequestContext,
    input: TagResourceRequest,
) -> Result<Unit, KmsError> {
    let tags = check_tags(input.tags)?;
    update(kms, &Scope::of(ctx), &input.key_id, move |key| {
        key.check_not_pending_deletion()?;
        for (k, v) in tags {
            match key.tags.iter_mut().find(|(existing, _)| *existing == k) {
                Some(slot) => slot.1 = v,
                None => key.tags.push((k, v)),
            }
        }
        if key.tags.len() > MAX_TAGS {
            return Err(tag_error("Too many tags"));
        }
        Ok(())
    })
    .await?;
    Ok(Unit {})
}

pub(crate) async fn untag_resource(
    kms: &KmsService,
    ctx: &RequestContext,
    input: UntagResourceRequest,
) -> Result<Unit, KmsError> {
    update(kms, &Scope::of(ctx), &input.key_id, move |key| {
        key.check_not_pending_deletion()?;
        key.tags.retain(|(k, _)| !input.tag_keys.contains(k));
        Ok(())
    })
    .await?;
    Ok(Unit {})
}

pub(crate) async fn list_resource_tags(
    kms: &KmsService,
    ctx: &RequestContext,
    input: ListResourceTagsRequest,
) -> Result<ListResourceTagsResponse, KmsError> {
    let scope = Scope::of(ctx);
    let store = kms.store(&scope.account, &scope.region)?;
    let key = find_key(&*store, &scope, &input.key_id)?;
    let tags = key
        .tags
        .into_iter()
        .enumerate()
        .map(|(i, (k, v))| {
            (
                format!("{i:05}"),
                Tag {
                    tag_key: k,
                    tag_value: v,
                },
            )
        })
        .collect();
    let (tags, next) = page(tags, &TAG_LISTING, input.marker.as_deref(), input.limit)?;
    Ok(ListResourceTagsResponse {
        tags: Some(tags),
        truncated: next.is_some(),
        next_marker: next,
    })
}

/// A key has one policy, `default`.
fn check_policy_name(name: Option<&str>) -> Result<(), KmsError> {
    match name {
        None | Some("default") => Ok(()),
        Some(_) => Err(not_found("No such policy exists")),
    }
}

pub(crate) async fn get_key_policy(
    kms: &KmsService,
    ctx: &RequestContext,
    input: GetKeyPolicyRequest,
) -> Result<GetKeyPolicyResponse, KmsError> {
    let scope = Scope::of(ctx);
    let store = kms.store(&scope.account, &scope.region)?;
    let key = find_key(&*store, &scope, &input.key_id)?;
    check_policy_name(input.policy_name.as_deref())?;
    Ok(GetKeyPolicyResponse {
        policy: Some(key.policy),
        policy_name: Some("default".into()),
    })
}

pub(crate) async fn put_key_policy(
    kms: &KmsService,
    ctx: &RequestContext,
    input: PutKeyPolicyRequest,
) -> Result<Unit, KmsError> {
    check_policy_name(input.policy_name.as_deref())?;
    check_policy(&input.policy)?;
    update(kms, &Scope::of(ctx), &input.key_id, move |key| {
        key.check_not_pending_deletion()?;
        key.policy = input.policy;
        Ok(())
    })
    .await?;
    Ok(Unit {})
}

pub(crate) async fn list_key_policies(
    kms: &KmsService,
    ctx: &RequestContext,
    input: ListKeyPoliciesRequest,
) -> Result<ListKeyPoliciesResponse, KmsError> {
    let scope = Scope::of(ctx);
    let store = kms.store(&scope.account, &scope.region)?;
    find_key(&*store, &scope, &input.key_id)?;
    let (names, next) = page(
        vec![("default".into(), "default".to_owned())],
        &POLICY_LISTING,
        input.marker.as_deref(),
        input.limit,
    )?;
    Ok(ListKeyPoliciesResponse {
        policy_names: Some(names),
        truncated: next.is_some(),
        next_marker: next,
    })
}

pub(crate) async fn get_key_last_usage(
    kms: &KmsService,
    ctx: &RequestContext,
    input: GetKeyLastUsageRequest,
) -> Result<GetKeyLastUsageResponse, KmsError> {
    let scope = Scope::of(ctx);
    let key = resolve(kms, &scope, &input.key_id).await?;
    // Stratus does not track use: tracking starts, and stays, at the key's creation.
    Ok(GetKeyLastUsageResponse {
        key_id: Some(key.arn),
        key_last_usage: None,
        tracking_start_date: Some(DateTime::from_millis(key.created_ms)),
        key_creation_date: Some(DateTime::from_millis(key.created_ms)),
    })
}

pub(crate) async fn replicate_key(
    kms: &KmsService,
    ctx: &RequestContext,
    input: ReplicateKeyRequest,
) -> Result<ReplicateKeyResponse, KmsError> {
    let scope = Scope::of(ctx);
    let store = kms.store(&scope.account, &scope.region)?;
    let primary = find_key(&*store, &scope, &input.key_id)?;
    let Some(m) = primary.multi_region.clone() else {
        return Err(unsupported(format!("{} is not a multi-region key.", primary.arn)));
    };
    if m.primary_region != scope.region {
        return Err(unsupported(format!(
            "{} is not a multi-region primary key.",
            primary.arn
        )));
    }
    let target = input.replica_region;
    if target == scope.region || m.replicas.contains(&target) {
        return Err(crate::error::already_exists(format!(
            "{} already exists in {target}.",
            scope.in_region(&target).key_arn(&primary.id)
        )));
    }
    if !stratus_core::arn::partition_of(&target).eq(stratus_core::arn::partition_of(&scope.region)) {
        return Err(validation(format!("{target} is not a valid region")));
    }
    let tags = check_tags(input.tags.unwrap_or_default())?;
    if let Some(policy) = &input.policy {
        check_policy(policy)?;
    }
    let there = scope.in_region(&target);
    let mut replica = primary.clone();
    replica.arn = there.key_arn(&primary.id);
    replica.created_ms = kms.now_ms();
    replica.description = input.description.unwrap_or_default();
    replica.tags = tags;
    replica.policy = input
        .policy
        .unwrap_or_else(|| default_policy(&scope.account, &scope.partition()));
    replica.rotation = None;
    replica.deletion_ms = None;
    replica.pending_window_days = None;
    replica.state = if !primary.has_material() {
        "PendingImport"
    } else {
        "Enabled"
    }
    .into();
    // The replica first, so that a second ReplicateKey to the same region changes nothing.
    let stored = replica.clone();
    kms.transact(&there.account, &there.region, move |tx| {
        if KEYS.get(tx, &stored.id)?.is_some() {
            return Err(crate::error::already_exists(format!("{} already exists.", stored.arn)));
        }
        KEYS.put(tx, stored.id.as_str(), &stored)?;
        Ok(())
    })
    .await?;
    let region = target.clone();
    let (updated, ()) = update(kms, &scope, &primary.id, move |key| {
        if let Some(m) = key.multi_region.as_mut() {
            m.replicas.push(region);
        }
        Ok(())
    })
    .await?;
    let mut metadata = replica.metadata(&there.region, Some(&updated));
    // The replica is being made when ReplicateKey answers.
    metadata.key_state = Some(KeyState::Creating);
    metadata.enabled = false;
    metadata.current_key_material_id = None;
    Ok(ReplicateKeyResponse {
        replica_key_metadata: Some(metadata),
        replica_policy: Some(replica.policy),
        replica_tags: (!replica.tags.is_empty()).then(|| {
            replica
                .tags
                .into_iter()
                .map(|(k, v)| Tag {
                    tag_key: k,
                    tag_value: v,
                })
                .collect()
        }),
    })
}

pub(crate) async fn update_primary_region(
    kms: &KmsService,
    ctx: &RequestContext,
    input: UpdatePrimaryRegionRequest,
) -> Result<Unit, KmsError> {
    let scope = Scope::of(ctx);
    let store = kms.store(&scope.account, &scope.region)?;
    let key = find_key(&*store, &scope, &input.key_id)?;
    let Some(m) = key.multi_region.clone() else {
        return Err(unsupported(format!("{} is not a multi-region key.", key.arn)));
    };
    if m.primary_region != scope.region {
        return Err(unsupported(format!("{} is not a multi-region primary key.", key.arn)));
    }
    let new_primary = input.primary_region;
    if !m.replicas.contains(&new_primary) {
        return Err(key_not_found(&scope.in_region(&new_primary).key_arn(&key.id)));
    }
    // Every copy learns the new primary; the replica list moves with it.
    let mut regions: Vec<String> = m.replicas.iter().filter(|r| **r != new_primary).cloned().collect();
    regions.push(scope.region.clone());
    for region in std::iter::once(&scope.region).chain(m.replicas.iter()) {
        let there = scope.in_region(region);
        let (primary_region, replicas) = (new_primary.clone(), regions.clone());
        update(kms, &there, &key.id.clone(), move |k| {
            k.multi_region = Some(MultiRegion {
                primary_region,
                replicas,
            });
            Ok(())
        })
        .await?;
    }
    Ok(Unit {})
}
