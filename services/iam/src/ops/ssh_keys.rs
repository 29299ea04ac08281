//! SSH public keys of users (what CodeCommit's SSH access takes): uploaded in OpenSSH form,
//! fingerprinted as IAM does (MD5 of the key, in colon-separated hex), five per user.

use aws_smithy_types::base64;
use md5::{Digest, Md5};
use stratus_core::paging::Token;
use stratus_core::{RequestContext, Unit};
use stratus_gen_iam::*;
use stratus_storage::Read;

use crate::error::IamError;
use crate::ids::{unique_id, IdKind};
use crate::listing::page;
use crate::ops::users::caller_user;
use crate::records::{date, key, status, SshKeyRecord, UserRecord};
use crate::service::{now, IamService};
use crate::store::{all, load, SSH_KEYS};

/// Keys a user may have (IAM's quota).
const KEYS_PER_USER: usize = 5;

/// The fingerprint of an OpenSSH public key (`TYPE BASE64 [COMMENT]`), if it is one.
fn fingerprint(body: &str) -> Option<String> {
    let mut parts = body.split_whitespace();
    let (kind, blob) = (parts.next()?, parts.next()?);
    if !kind.starts_with("ssh-") && !kind.starts_with("ecdsa-") {
        return None;
    }
    let bytes = base64::decode(blob).ok()?;
    // The key blob names its own type first (a length-prefixed string).
    let length = usize::try_from(u32::from_be_bytes(bytes.get(..4)?.try_into().ok()?)).ok()?;
    if bytes.get(4..4 + length)? != kind.as_bytes() {
        return None;
    }
    let digest = Md5::digest(&bytes);
    Some(digest.iter().map(|b| format!("{b:02x}")).collect::<Vec<_>>().join(":"))
}

fn no_such_key(id: &str) -> IamError {
    IamError::NoSuchEntity(format!("The Public Key with id {id} cannot be found."))
}

fn owned(r: &(impl Read + ?Sized), user: &UserRecord, id: &str) -> Result<SshKeyRecord, IamError> {
    SSH_KEYS
        .get(r, id)?
        .filter(|k| k.user == key(&user.name))
        .ok_or_else(|| no_such_key(id))
}

fn wire(user: &UserRecord, id: &str, record: &SshKeyRecord) -> SSHPublicKey {
    SSHPublicKey {
        user_name: user.name.clone(),
        ssh_public_key_id: id.to_owned(),
        fingerprint: record.fingerprint.clone(),
        ssh_public_key_body: record.body.clone(),
        status: status(record.active),
        upload_date: Some(date(record.uploaded)),
    }
}

pub(crate) async fn upload_ssh_public_key(
    iam: &IamService,
    ctx: &RequestContext,
    input: UploadSSHPublicKeyRequest,
) -> Result<UploadSSHPublicKeyResponse, IamError> {
    let user: UserRecord = load(&iam.reader(&ctx.account_id)?, &input.user_name)?;
    let fingerprint = fingerprint(&input.ssh_public_key_body)
        .ok_or_else(|| IamError::InvalidPublicKey("The public key is not a valid SSH public key.".into()))?;
    let id = unique_id(IdKind::SshKey);
    let record = SshKeyRecord {
        user: key(&user.name),
        body: input.ssh_public_key_body,
        fingerprint,
        active: true,
        uploaded: now(ctx),
    };
    let stored = (id.clone(), record.clone());
    iam.write(&ctx.account_id, move |tx| {
        let (id, record) = stored;
        let held: Vec<_> = all(tx, SSH_KEYS)?
            .into_iter()
            .filter(|(_, k)| k.user == record.user)
            .collect();
        if held.iter().any(|(_, k)| k.fingerprint == record.fingerprint) {
            return Err(IamError::DuplicateSshPublicKey(
                "The public key is already uploaded.".into(),
            ));
        }
        if held.len() >= KEYS_PER_USER {
            return Err(IamError::LimitExceeded(format!(
                "Cannot exceed quota for PublicKeysPerUser: {KEYS_PER_USER}"
            )));
        }
        SSH_KEYS.put(tx, id.as_bytes(), &record)?;
        Ok(())
    })
    .await?;
    Ok(UploadSSHPublicKeyResponse {
        ssh_public_key: Some(wire(&user, &id, &record)),
    })
}

pub(crate) async fn get_ssh_public_key(
    iam: &IamService,
    ctx: &RequestContext,
    input: GetSSHPublicKeyRequest,
) -> Result<GetSSHPublicKeyResponse, IamError> {
    if input.encoding != EncodingType::Ssh {
        return Err(IamError::NotServed(
            "Stratus answers SSH public keys in the SSH encoding only".into(),
        ));
    }
    let store = iam.reader(&ctx.account_id)?;
    let user: UserRecord = load(&store, &input.user_name)?;
    let record = owned(&store, &user, &input.ssh_public_key_id)?;
    Ok(GetSSHPublicKeyResponse {
        ssh_public_key: Some(wire(&user, &input.ssh_public_key_id, &record)),
    })
}

pub(crate) async fn list_ssh_public_keys(
    iam: &IamService,
    ctx: &RequestContext,
    input: ListSSHPublicKeysRequest,
) -> Result<ListSSHPublicKeysResponse, IamError> {
    const LISTING: Token = Token::for_listing("iam:ListSSHPublicKeys");
    let user = caller_user(iam, ctx, input.user_name)?;
    let user_key = key(&user.name);
    let keys = all(&iam.reader(&ctx.account_id)?, SSH_KEYS)?
        .into_iter()
        .filter(|(_, k)| k.user == user_key)
        .map(|(id, k)| {
            let metadata = SSHPublicKeyMetadata {
                user_name: user.name.clone(),
                ssh_public_key_id: id.clone(),
                status: status(k.active),
                upload_date: date(k.uploaded),
            };
            (id, metadata)
        })
        .collect();
    let page = page(LISTING, keys, input.marker.as_deref(), input.max_items)?;
    Ok(ListSSHPublicKeysResponse {
        ssh_public_keys: Some(page.items),
        is_truncated: page.is_truncated,
        marker: page.marker,
    })
}

pub(crate) async fn update_ssh_public_key(
    iam: &IamService,
    ctx: &RequestContext,
    input: UpdateSSHPublicKeyRequest,
) -> Result<Unit, IamError> {
    let active = input.status == StatusType::Active;
    iam.write(&ctx.account_id, move |tx| {
        let user: UserRecord = load(tx, &input.user_name)?;
        let mut record = owned(tx, &user, &input.ssh_public_key_id)?;
        record.active = active;
        SSH_KEYS.put(tx, input.ssh_public_key_id.as_bytes(), &record)?;
        Ok(Unit {})
    })
    .await
}

pub(crate) async fn delete_ssh_public_key(
    iam: &IamService,
    ctx: &RequestContext,
    input: DeleteSSHPublicKeyRequest,
) -> Result<Unit, IamError> {
    iam.write(&ctx.account_id, move |tx| {
        let user: UserRecord = load(tx, &input.user_name)?;
        owned(tx, &user, &input.ssh_public_key_id)?;
        SSH_KEYS.delete(tx, input.ssh_public_key_id.as_bytes());
        Ok(Unit {})
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A well-formed ed25519 key blob: the type string, then a 32-byte key.
    fn ed25519() -> String {
        let mut blob = Vec::new();
        blob.extend_from_slice(&11u32.to_be_bytes());
        blob.extend_from_slice(b"ssh-ed25519");
        blob.extend_from_slice(&32u32.to_be_bytes());
        blob.extend_from_slice(&[7; 32]);
        format!("ssh-ed25519 {} me@host", base64::encode(&blob))
    }

    #[test]
    fn fingerprints_are_colon_separated_md5_of_the_blob() {
        let print = fingerprint(&ed25519()).unwrap();
        assert_eq!(print.len(), 47);
        assert_eq!(print.matches(':').count(), 15);
    }

    #[test]
    fn what_is_not_a_key_has_no_fingerprint() {
        for body in [
            "",
            "ssh-rsa",
            "ssh-rsa not-base64!",
            "hello world",
            "ssh-rsa AAAAC3NzaC1lZDI1NTE5",
        ] {
            assert_eq!(fingerprint(body), None, "{body}");
        }
    }
}
