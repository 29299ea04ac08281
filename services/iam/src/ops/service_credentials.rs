//! Service-specific credentials: a user name and password for CodeCommit (Git over HTTPS)
//! or Amazon Keyspaces, tied to an IAM user.

use stratus_core::paging::Token;
use stratus_core::{RequestContext, Unit};
use stratus_gen_iam::*;
use stratus_storage::Read;

use crate::error::IamError;
use crate::ids::{secret, unique_id, IdKind};
use crate::listing::page;
use crate::ops::users::caller_user;
use crate::records::{date, key, status, Scope, ServiceCredentialRecord, UserRecord};
use crate::service::{now, scope, IamService};
use crate::store::{all, load, SERVICE_CREDENTIALS};

/// The services that take these credentials (API reference, CreateServiceSpecificCredential).
const SERVICES: &[&str] = &["codecommit.amazonaws.com", "cassandra.amazonaws.com"];
/// Credentials per user and service (IAM's quota).
const PER_SERVICE: usize = 2;
/// The length of a service password.
const PASSWORD_CHARS: usize = 44;

/// Recorded from AWS for an unknown or unsupported service.
fn check_service(service: &str) -> Result<(), IamError> {
    if SERVICES.contains(&service) {
        Ok(())
    } else {
        Err(IamError::NoSuchEntity(format!(
            "No such service {service} is supported for Service Specific Credentials"
        )))
    }
}

/// The name the service knows the user by: `USER-at-ACCOUNT` (as recorded from AWS).
fn service_user_name(scope: &Scope, user: &UserRecord) -> String {
    format!("{}-at-{}", user.name, scope.account)
}

fn wire(scope: &Scope, user: &UserRecord, id: &str, record: &ServiceCredentialRecord) -> ServiceSpecificCredential {
    ServiceSpecificCredential {
        create_date: date(record.created),
        expiration_date: None,
        service_name: record.service.clone(),
        service_user_name: service_user_name(scope, user),
        service_password: record.password.clone(),
        service_credential_alias: None,
        service_credential_secret: None,
        service_specific_credential_id: id.to_owned(),
        user_name: user.name.clone(),
        status: status(record.active),
    }
}

/// Credential `id` of `user`, or AWS's refusal (recorded).
fn owned(r: &(impl Read + ?Sized), user: &UserRecord, id: &str) -> Result<ServiceCredentialRecord, IamError> {
    SERVICE_CREDENTIALS
        .get(r, id)?
        .filter(|c| c.user == key(&user.name))
        .ok_or_else(|| IamError::NoSuchEntity(format!("No such credential {id} exists")))
}

pub(crate) async fn create_service_specific_credential(
    iam: &IamService,
    ctx: &RequestContext,
    input: CreateServiceSpecificCredentialRequest,
) -> Result<CreateServiceSpecificCredentialResponse, IamError> {
    let user: UserRecord = load(&iam.reader(&ctx.account_id)?, &input.user_name)?;
    check_service(&input.service_name)?;
    let id = unique_id(IdKind::ServiceCredential);
    let record = ServiceCredentialRecord {
        user: key(&user.name),
        service: input.service_name,
        password: secret(PASSWORD_CHARS),
        active: true,
        created: now(ctx),
    };
    let stored = (id.clone(), record.clone());
    iam.write(&ctx.account_id, move |tx| {
        let (id, record) = stored;
        let held = all(tx, SERVICE_CREDENTIALS)?
            .into_iter()
            .filter(|(_, c)| c.user == record.user && c.service == record.service)
            .count();
        if held >= PER_SERVICE {
            return Err(IamError::LimitExceeded(format!(
                "Cannot exceed quota for ServiceSpecificCredentialsPerUserPerService: {PER_SERVICE}"
            )));
        }
        SERVICE_CREDENTIALS.put(tx, id.as_bytes(), &record)?;
        Ok(())
    })
    .await?;
    Ok(CreateServiceSpecificCredentialResponse {
        service_specific_credential: Some(wire(&scope(ctx), &user, &id, &record)),
    })
}

pub(crate) async fn list_service_specific_credentials(
    iam: &IamService,
    ctx: &RequestContext,
    input: ListServiceSpecificCredentialsRequest,
) -> Result<ListServiceSpecificCredentialsResponse, IamError> {
    const LISTING: Token = Token::for_listing("iam:ListServiceSpecificCredentials");
    let scope = scope(ctx);
    let user = caller_user(iam, ctx, input.user_name)?;
    if let Some(service) = &input.service_name {
        check_service(service)?;
    }
    let user_key = key(&user.name);
    let credentials = all(&iam.reader(&ctx.account_id)?, SERVICE_CREDENTIALS)?
        .into_iter()
        .filter(|(_, c)| c.user == user_key && input.service_name.as_ref().is_none_or(|s| *s == c.service))
        .map(|(id, c)| {
            let metadata = ServiceSpecificCredentialMetadata {
                user_name: user.name.clone(),
                status: status(c.active),
                service_user_name: service_user_name(&scope, &user),
                service_credential_alias: None,
                create_date: date(c.created),
                expiration_date: None,
                service_specific_credential_id: id.clone(),
                service_name: c.service,
            };
            (id, metadata)
        })
        .collect();
    let page = page(LISTING, credentials, input.marker.as_deref(), input.max_items)?;
    Ok(ListServiceSpecificCredentialsResponse {
        service_specific_credentials: Some(page.items),
        marker: page.marker,
        is_truncated: page.is_truncated,
    })
}

/// Applies `change` to credential `id` of the user named (or the caller) and returns it.
async fn update<F>(
    iam: &IamService,
    ctx: &RequestContext,
    user_name: Option<String>,
    id: String,
    change: F,
) -> Result<(UserRecord, String, ServiceCredentialRecord), IamError>
where
    F: FnOnce(&mut ServiceCredentialRecord) + Send + 'static,
{
    let user = caller_user(iam, ctx, user_name)?;
    iam.write(&ctx.account_id, move |tx| {
        let mut record = owned(tx, &user, &id)?;
        change(&mut record);
        SERVICE_CREDENTIALS.put(tx, id.as_bytes(), &record)?;
        Ok((user, id, record))
    })
    .await
}

pub(crate) async fn update_service_specific_credential(
    iam: &IamService,
    ctx: &RequestContext,
    input: UpdateServiceSpecificCredentialRequest,
) -> Result<Unit, IamError> {
    let active = match input.status {
        StatusType::Active => true,
        StatusType::Inactive => false,
        // Recorded from AWS (the value is not quoted).
        _ => {
            return Err(IamError::Validation(
                "1 validation error detected: Value at 'status' failed to satisfy constraint: Member must satisfy enum value set".into(),
            ))
        }
    };
    update(
        iam,
        ctx,
        input.user_name,
        input.service_specific_credential_id,
        move |c| {
            c.active = active;
        },
    )
    .await?;
    Ok(Unit {})
}

pub(crate) async fn reset_service_specific_credential(
    iam: &IamService,
    ctx: &RequestContext,
    input: ResetServiceSpecificCredentialRequest,
) -> Result<ResetServiceSpecificCredentialResponse, IamError> {
    let password = secret(PASSWORD_CHARS);
    let (user, id, record) = update(
        iam,
        ctx,
        input.user_name,
        input.service_specific_credential_id,
        move |c| {
            c.password = password;
        },
    )
    .await?;
    Ok(ResetServiceSpecificCredentialResponse {
        service_specific_credential: Some(wire(&scope(ctx), &user, &id, &record)),
    })
}

pub(crate) async fn delete_service_specific_credential(
    iam: &IamService,
    ctx: &RequestContext,
    input: DeleteServiceSpecificCredentialRequest,
) -> Result<Unit, IamError> {
    let user = caller_user(iam, ctx, input.user_name)?;
    iam.write(&ctx.account_id, move |tx| {
        owned(tx, &user, &input.service_specific_credential_id)?;
        SERVICE_CREDENTIALS.delete(tx, input.service_specific_credential_id.as_bytes());
        Ok(Unit {})
    })
    .await
}
