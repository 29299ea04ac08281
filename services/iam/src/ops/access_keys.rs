//! Access keys of IAM users: `AKIA…` ids with CSPRNG secrets, two per user at most.

use stratus_core::paging::Token;
use stratus_core::{RequestContext, Unit};
use stratus_gen_iam::*;

use crate::error::IamError;
use crate::ids::{access_key_id, secret_access_key};
use crate::listing::page;
use crate::ops::users::caller_user;
use crate::records::{date, key, status, AccessKeyRecord, UserRecord};
use crate::service::{now, IamService};
use crate::store::{all, load, ACCESS_KEYS};

/// Access keys a user may have (IAM's quota).
const KEYS_PER_USER: usize = 2;

fn no_such_key(id: &str) -> IamError {
    IamError::NoSuchEntity(format!("The Access Key with id {id} cannot be found."))
}

pub(crate) async fn create_access_key(
    iam: &IamService,
    ctx: &RequestContext,
    input: CreateAccessKeyRequest,
) -> Result<CreateAccessKeyResponse, IamError> {
    let user = caller_user(iam, ctx, input.user_name)?;
    let record = AccessKeyRecord {
        user: key(&user.name),
        secret: secret_access_key(),
        active: true,
        created: now(ctx),
    };
    let id = access_key_id(&ctx.account_id);
    let (id, record) = iam
        .write(&ctx.account_id, move |tx| {
            let _: UserRecord = load(tx, &user.name)?;
            if all(tx, ACCESS_KEYS)?
                .iter()
                .filter(|(_, k)| k.user == record.user)
                .count()
                >= KEYS_PER_USER
            {
                return Err(IamError::LimitExceeded(format!(
                    "Cannot exceed quota for AccessKeysPerUser: {KEYS_PER_USER}"
                )));
            }
            ACCESS_KEYS.put(tx, id.as_bytes(), &record)?;
            Ok((id, record))
        })
        .await?;
    let user: UserRecord = load(&iam.reader(&ctx.account_id)?, &record.user)?;
    Ok(CreateAccessKeyResponse {
        access_key: AccessKey {
            user_name: user.name,
            access_key_id: id,
            status: StatusType::Active,
            secret_access_key: record.secret,
            create_date: Some(date(record.created)),
        },
    })
}

/// The key `id` of the user a request names (or the caller), refused when it is another's.
fn owned_key(
    r: &(impl stratus_storage::Read + ?Sized),
    user: &UserRecord,
    id: &str,
) -> Result<AccessKeyRecord, IamError> {
    ACCESS_KEYS
        .get(r, id)?
        .filter(|k| k.user == key(&user.name))
        .ok_or_else(|| no_such_key(id))
}

pub(crate) async fn update_access_key(
    iam: &IamService,
    ctx: &RequestContext,
    input: UpdateAccessKeyRequest,
) -> Result<Unit, IamError> {
    let user = caller_user(iam, ctx, input.user_name)?;
    let active = match input.status {
        StatusType::Active => true,
        StatusType::Inactive => false,
        other => {
            return Err(IamError::Validation(format!(
                "1 validation error detected: Value '{}' at 'status' failed to satisfy constraint: Member must satisfy enum value set: [Active, Inactive]",
                other.as_str()
            )))
        }
    };
    iam.write(&ctx.account_id, move |tx| {
        let mut record = owned_key(tx, &user, &input.access_key_id)?;
        record.active = active;
        ACCESS_KEYS.put(tx, input.access_key_id.as_bytes(), &record)?;
        Ok(Unit {})
    })
    .await
}

pub(crate) async fn delete_access_key(
    iam: &IamService,
    ctx: &RequestContext,
    input: DeleteAccessKeyRequest,
) -> Result<Unit, IamError> {
    let user = caller_user(iam, ctx, input.user_name)?;
    iam.write(&ctx.account_id, move |tx| {
        owned_key(tx, &user, &input.access_key_id)?;
        ACCESS_KEYS.delete(tx, input.access_key_id.as_bytes());
        Ok(Unit {})
    })
    .await
}

pub(crate) async fn list_access_keys(
    iam: &IamService,
    ctx: &RequestContext,
    input: ListAccessKeysRequest,
) -> Result<ListAccessKeysResponse, IamError> {
    const LISTING: Token = Token::for_listing("iam:ListAccessKeys");
    let user = caller_user(iam, ctx, input.user_name)?;
    let user_key = key(&user.name);
    let keys = all(&iam.reader(&ctx.account_id)?, ACCESS_KEYS)?
        .into_iter()
        .filter(|(_, k)| k.user == user_key)
        .map(|(id, k)| {
            (
                id.clone(),
                AccessKeyMetadata {
                    user_name: Some(user.name.clone()),
                    access_key_id: Some(id),
                    status: Some(status(k.active)),
                    create_date: Some(date(k.created)),
                },
            )
        })
        .collect();
    let page = page(LISTING, keys, input.marker.as_deref(), input.max_items)?;
    Ok(ListAccessKeysResponse {
        access_key_metadata: page.items,
        is_truncated: page.is_truncated,
        marker: page.marker,
    })
}

pub(crate) async fn get_access_key_last_used(
    iam: &IamService,
    ctx: &RequestContext,
    input: GetAccessKeyLastUsedRequest,
) -> Result<GetAccessKeyLastUsedResponse, IamError> {
    let store = iam.reader(&ctx.account_id)?;
    let record = ACCESS_KEYS
        .get(&store, &input.access_key_id)?
        .ok_or_else(|| no_such_key(&input.access_key_id))?;
    let user: UserRecord = load(&store, &record.user)?;
    // Stratus does not record use; AWS answers a key never used with "N/A".
    Ok(GetAccessKeyLastUsedResponse {
        user_name: Some(user.name),
        access_key_last_used: Some(AccessKeyLastUsed {
            last_used_date: None,
            service_name: "N/A".into(),
            region: "N/A".into(),
        }),
    })
}
