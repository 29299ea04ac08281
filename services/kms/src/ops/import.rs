//! Imported key material: GetParametersForImport, ImportKeyMaterial and
//! DeleteImportedKeyMaterial.

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use sha2::{Digest, Sha256};
use stratus_core::value::DateTime;
use stratus_core::{hex, AwsError, RequestContext};
use stratus_gen_kms::*;

use crate::crypto::{self, Family, Hash};
use crate::error::{invalid_state, unsupported, validation, KmsError};
use crate::keys::{ImportParameters, KeyRecord, Material};
use crate::lookup::Scope;
use crate::ops::keys::update;
use crate::service::KmsService;

/// Import parameters are good for 24 hours, as AWS's are.
const PARAMETERS_VALID_MS: i64 = 24 * 3_600_000;

fn check_external(key: &KeyRecord) -> Result<(), KmsError> {
    if key.is_external() {
        Ok(())
    } else {
        Err(unsupported(format!(
            "{} origin is {} which is not valid for this operation.",
            key.arn, key.origin
        )))
    }
}

/// The OAEP hash of a wrapping algorithm Stratus unwraps, and whether AES-KWP follows it.
fn wrapping_hash(algorithm: &AlgorithmSpec) -> Result<(Hash, bool), KmsError> {
    match algorithm {
        AlgorithmSpec::RsaesOaepSha1 => Ok((Hash::Sha1, false)),
        AlgorithmSpec::RsaesOaepSha256 => Ok((Hash::Sha256, false)),
        AlgorithmSpec::RsaAesKeyWrapSha1 => Ok((Hash::Sha1, true)),
        AlgorithmSpec::RsaAesKeyWrapSha256 => Ok((Hash::Sha256, true)),
        other => Err(KmsError(AwsError::new(
            "NotImplemented",
            format!("Stratus does not unwrap key material wrapped with {}", other.as_str()),
            501,
        ))),
    }
}

pub(crate) async fn get_parameters_for_import(
    kms: &KmsService,
    ctx: &RequestContext,
    input: GetParametersForImportRequest,
) -> Result<GetParametersForImportResponse, KmsError> {
    let bits = match input.wrapping_key_spec {
        WrappingKeySpec::Rsa2048 => 2048,
        WrappingKeySpec::Rsa3072 => 3072,
        WrappingKeySpec::Rsa4096 => 4096,
        ref other => {
            return Err(validation(format!(
                "{} is not a valid wrapping key spec",
                other.as_str()
            )))
        }
    };
    wrapping_hash(&input.wrapping_algorithm)?;
    let wrapping_key = tokio::task::spawn_blocking(move || crypto::generate(Family::Rsa(bits)))
        .await
        .map_err(|e| {
            KmsError(AwsError::new(
                "KMSInternalException",
                format!("key generation: {e}"),
                500,
            ))
        })?;
    let public = crypto::public_key_der(Family::Rsa(bits), &wrapping_key)
        .map_err(|_| KmsError(AwsError::new("KMSInternalException", "wrapping key", 500)))?;
    let token = crypto::random_bytes(32);
    let expires_ms = kms.now_ms() + PARAMETERS_VALID_MS;
    let params = ImportParameters {
        wrapping_key: STANDARD.encode(&wrapping_key),
        algorithm: input.wrapping_algorithm.as_str().to_owned(),
        token: STANDARD.encode(&token),
        expires_ms,
    };
    let (key, ()) = update(kms, &Scope::of(ctx), &input.key_id, move |key| {
        check_external(key)?;
        key.check_not_pending_deletion()?;
        key.import = Some(params);
        Ok(())
    })
    .await?;
    Ok(GetParametersForImportResponse {
        key_id: Some(key.arn),
        import_token: Some(token),
        public_key: Some(public),
        parameters_valid_to: Some(DateTime::from_millis(expires_ms)),
    })
}

fn import_token_error(code: &str, message: &str) -> KmsError {
    KmsError(AwsError::new(code, message, 400))
}

pub(crate) async fn import_key_material(
    kms: &KmsService,
    ctx: &RequestContext,
    input: ImportKeyMaterialRequest,
) -> Result<ImportKeyMaterialResponse, KmsError> {
    // KEY_MATERIAL_EXPIRES is the default, as on AWS.
    let expires = input.expiration_model != Some(ExpirationModelType::KeyMaterialDoesNotExpire);
    if expires && input.valid_to.is_none() {
        return Err(validation(
            "A validTo date must be set if the ExpirationModel is KEY_MATERIAL_EXPIRES",
        ));
    }
    let valid_to_ms = if expires {
        input.valid_to.map(|t| t.to_millis().unwrap_or(i64::MAX))
    } else {
        None
    };
    let now = kms.now_ms();
    let (key, id) = update(kms, &Scope::of(ctx), &input.key_id, move |key| {
        check_external(key)?;
        key.check_not_pending_deletion()?;
        let params = key
            .import
            .clone()
            .ok_or_else(|| import_token_error("InvalidImportTokenException", "Import token is invalid"))?;
        if params.token != STANDARD.encode(&input.import_token) {
            return Err(import_token_error("InvalidImportTokenException", "Import token is invalid"));
        }
        if params.expires_ms < now {
            return Err(import_token_error("ExpiredImportTokenException", "Import token has expired"));
        }
        let (hash, key_wrap) = wrapping_hash(&AlgorithmSpec::from_wire(&params.algorithm))?;
        let wrapping_key = STANDARD.decode(&params.wrapping_key).unwrap_or_default();
        let secret = if key_wrap {
            crypto::rsa_aes_unwrap(&wrapping_key, hash, &input.encrypted_key_material)
        } else {
            crypto::rsa_decrypt(&wrapping_key, hash, &input.encrypted_key_material)
        }
        .map_err(|_| crate::error::invalid_ciphertext())?;
        if !crypto::check_material(key.family()?, &secret) {
            return Err(KmsError(AwsError::new(
                "IncorrectKeyMaterialException",
                "The key material is not valid for the key spec.",
                400,
            )));
        }
        let mut material = Material::new(&secret, None);
        // The same material imported again has the same id.
        material.id = hex::encode(&Sha256::digest([key.id.as_bytes(), &secret].concat()));
        material.description = input.key_material_description;
        material.valid_to_ms = valid_to_ms;
        let id = material.id.clone();
        if let Some(existing) = key.materials.iter_mut().find(|m| m.id == id) {
            // Material the key had (deleted, or imported again): its secret is back.
            existing.secret = material.secret;
        } else if key.materials.is_empty() {
            key.materials.push(material);
        } else if let Some(pending) = &key.pending_material {
            return Err(invalid_state(format!(
                "New key material (id: {id}) cannot be imported into KMS key {}, because another key material (id: {}) is pending rotation.",
                key.arn, pending.id
            )));
        } else {
            key.pending_material = Some(material);
        }
        if key.state == "PendingImport" {
            key.state = "Enabled".into();
        }
        key.import = None;
        Ok(id)
    })
    .await?;
    Ok(ImportKeyMaterialResponse {
        key_id: Some(key.arn),
        key_material_id: Some(id),
    })
}

pub(crate) async fn delete_imported_key_material(
    kms: &KmsService,
    ctx: &RequestContext,
    input: DeleteImportedKeyMaterialRequest,
) -> Result<DeleteImportedKeyMaterialResponse, KmsError> {
    let (key, id) = update(kms, &Scope::of(ctx), &input.key_id, |key| {
        check_external(key)?;
        key.check_not_pending_deletion()?;
        let id = key.current().map(|m| m.id.clone());
        // The secrets go; the ids stay, as AWS still reports the CurrentKeyMaterialId and
        // takes the same material back.
        for material in &mut key.materials {
            material.secret.clear();
        }
        key.pending_material = None;
        key.state = "PendingImport".into();
        Ok(id)
    })
    .await?;
    Ok(DeleteImportedKeyMaterialResponse {
        key_id: Some(key.arn),
        key_material_id: id,
    })
}
