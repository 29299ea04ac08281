//! The cryptographic operations: encryption, data keys, random bytes, signatures, MACs,
//! key agreement and public keys.

use std::collections::BTreeMap;

use stratus_core::{AwsError, RequestContext};
use stratus_gen_kms::*;

use crate::blob;
use crate::cipher::{open, seal};
use crate::crypto::{self, Family};
use crate::error::{dry_run, incorrect_key, invalid_ciphertext, invalid_key_usage, validation, KmsError};
use crate::grants::check_grant_tokens;
use crate::keys::KeyRecord;
use crate::lookup::Scope;
use crate::ops::keys::resolve;
use crate::service::KmsService;
use crate::spec;
use crate::store::KEYS;

const ENCRYPT_DECRYPT: &str = "ENCRYPT_DECRYPT";

/// Refuses with `DryRunOperationException` once every check has passed, when asked to.
fn finish_dry_run(asked: Option<bool>) -> Result<(), KmsError> {
    if asked == Some(true) {
        Err(dry_run())
    } else {
        Ok(())
    }
}

fn incompatible(algorithm: &str, key: &KeyRecord) -> KmsError {
    invalid_key_usage(format!(
        "Algorithm {algorithm} is incompatible with key spec {}.",
        key.spec
    ))
}

/// What the key a ciphertext is for: a symmetric key's blob, or an RSA key's OAEP ciphertext.
pub(crate) fn encrypt_with(
    key: &KeyRecord,
    algorithm: &EncryptionAlgorithmSpec,
    context: &BTreeMap<String, String>,
    plaintext: &[u8],
) -> Result<Vec<u8>, KmsError> {
    let material = key.check_usable()?;
    key.check_usage(ENCRYPT_DECRYPT, "Encrypt")?;
    match (key.family()?, spec::oaep_hash(algorithm)) {
        (Family::Symmetric, None) => Ok(seal(key, material, context, plaintext)),
        (Family::Rsa(bits), Some(hash)) => {
            let max = crypto::oaep_max_plaintext(bits, hash);
            if plaintext.len() > max {
                return Err(validation(format!(
                    "Algorithm {} and key spec {} cannot encrypt data larger than {max} bytes.",
                    algorithm.as_str(),
                    key.spec
                )));
            }
            crypto::rsa_encrypt(&material.secret(), hash, plaintext)
                .map_err(|_| KmsError(AwsError::new("KMSInternalException", "RSA encryption failed", 500)))
        }
        _ => Err(incompatible(algorithm.as_str(), key)),
    }
}

pub(crate) async fn encrypt(
    kms: &KmsService,
    ctx: &RequestContext,
    input: EncryptRequest,
) -> Result<EncryptResponse, KmsError> {
    let scope = Scope::of(ctx);
    check_grant_tokens(input.grant_tokens.as_deref())?;
    let key = resolve(kms, &scope, &input.key_id).await?;
    let algorithm = input
        .encryption_algorithm
        .unwrap_or(EncryptionAlgorithmSpec::SymmetricDefault);
    let context = input.encryption_context.unwrap_or_default();
    let ciphertext = encrypt_with(&key, &algorithm, &context, &input.plaintext)?;
    finish_dry_run(input.dry_run)?;
    Ok(EncryptResponse {
        ciphertext_blob: Some(ciphertext),
        key_id: Some(key.arn),
        encryption_algorithm: Some(algorithm),
    })
}

/// What a decryption found: the key, the plaintext, the material that opened it.
pub(crate) struct Opened {
    pub(crate) key: KeyRecord,
    pub(crate) plaintext: Vec<u8>,
    material_id: Option<String>,
    algorithm: EncryptionAlgorithmSpec,
}

/// Decrypts `ciphertext`: a symmetric blob names its key (which `key_id`, when given, must
/// be); an RSA ciphertext needs `key_id` and the algorithm.
pub(crate) async fn decrypt_with(
    kms: &KmsService,
    scope: &Scope,
    ciphertext: &[u8],
    key_id: Option<&str>,
    algorithm: Option<EncryptionAlgorithmSpec>,
    context: &BTreeMap<String, String>,
) -> Result<Opened, KmsError> {
    let given = match key_id {
        Some(id) => Some(resolve(kms, scope, id).await?),
        None => None,
    };
    if let Some(key) = &given {
        if let Family::Rsa(_) = key.family()? {
            key.check_enabled()?;
            key.check_usage(ENCRYPT_DECRYPT, "Decrypt")?;
            let algorithm = algorithm.unwrap_or(EncryptionAlgorithmSpec::SymmetricDefault);
            let hash = spec::oaep_hash(&algorithm).ok_or_else(|| incompatible(algorithm.as_str(), key))?;
            let material = key.current().ok_or_else(|| key.state_error())?;
            // AWS's recorded answers decrypt an OAEP SHA-256 ciphertext asked for as
            // RSAES_OAEP_SHA_1: the other OAEP hash is tried too.
            let other = if hash == crypto::Hash::Sha1 {
                crypto::Hash::Sha256
            } else {
                crypto::Hash::Sha1
            };
            let secret = material.secret();
            let plaintext = crypto::rsa_decrypt(&secret, hash, ciphertext)
                .or_else(|_| crypto::rsa_decrypt(&secret, other, ciphertext))
                .map_err(|_| invalid_ciphertext())?;
            return Ok(Opened {
                key: key.clone(),
                plaintext,
                material_id: None,
                algorithm,
            });
        }
    }
    let blob = blob::decode(ciphertext).ok_or_else(invalid_ciphertext)?;
    let key = match given {
        Some(key) if key.id == blob.key_id => key,
        Some(_) => return Err(incorrect_key()),
        None => {
            let store = kms.store(&scope.account, &scope.region)?;
            KEYS.get(&*store, blob.key_id)?.ok_or_else(invalid_ciphertext)?
        }
    };
    key.check_enabled()?;
    key.check_usage(ENCRYPT_DECRYPT, "Decrypt")?;
    if algorithm.is_some_and(|a| a != EncryptionAlgorithmSpec::SymmetricDefault) {
        return Err(incorrect_key());
    }
    let (plaintext, material) = open(&key, &blob, context)?;
    let material_id = Some(material.id.clone());
    Ok(Opened {
        key,
        plaintext,
        material_id,
        algorithm: EncryptionAlgorithmSpec::SymmetricDefault,
    })
}

pub(crate) async fn decrypt(
    kms: &KmsService,
    ctx: &RequestContext,
    input: DecryptRequest,
) -> Result<DecryptResponse, KmsError> {
    let scope = Scope::of(ctx);
    check_grant_tokens(input.grant_tokens.as_deref())?;
    if input.recipient.is_some() {
        return Err(recipient_refused());
    }
    let ciphertext = input
        .ciphertext_blob
        .ok_or_else(|| validation("CiphertextBlob is required."))?;
    let context = input.encryption_context.unwrap_or_default();
    let opened = decrypt_with(
        kms,
        &scope,
        &ciphertext,
        input.key_id.as_deref(),
        input.encryption_algorithm,
        &context,
    )
    .await?;
    finish_dry_run(input.dry_run)?;
    Ok(DecryptResponse {
        key_id: Some(opened.key.arn),
        plaintext: Some(opened.plaintext),
        encryption_algorithm: Some(opened.algorithm),
        ciphertext_for_recipient: None,
        key_material_id: opened.material_id,
    })
}

/// Nitro Enclaves attestation (`Recipient`) needs an enclave, which Stratus has not.
fn recipient_refused() -> KmsError {
    KmsError(AwsError::new(
        "NotImplemented",
        "Stratus does not verify Nitro Enclaves attestation documents (Recipient)",
        501,
    ))
}

pub(crate) async fn re_encrypt(
    kms: &KmsService,
    ctx: &RequestContext,
    input: ReEncryptRequest,
) -> Result<ReEncryptResponse, KmsError> {
    let scope = Scope::of(ctx);
    check_grant_tokens(input.grant_tokens.as_deref())?;
    let ciphertext = input
        .ciphertext_blob
        .ok_or_else(|| validation("CiphertextBlob is required."))?;
    let opened = decrypt_with(
        kms,
        &scope,
        &ciphertext,
        input.source_key_id.as_deref(),
        input.source_encryption_algorithm,
        &input.source_encryption_context.unwrap_or_default(),
    )
    .await?;
    let destination = resolve(kms, &scope, &input.destination_key_id).await?;
    let algorithm = input
        .destination_encryption_algorithm
        .unwrap_or(EncryptionAlgorithmSpec::SymmetricDefault);
    let context = input.destination_encryption_context.unwrap_or_default();
    let blob = encrypt_with(&destination, &algorithm, &context, &opened.plaintext)?;
    finish_dry_run(input.dry_run)?;
    Ok(ReEncryptResponse {
        ciphertext_blob: Some(blob),
        source_key_id: Some(opened.key.arn),
        key_id: Some(destination.arn),
        source_encryption_algorithm: Some(opened.algorithm),
        destination_encryption_algorithm: Some(algorithm),
        source_key_material_id: None,
        destination_key_material_id: None,
    })
}

/// The symmetric key a data key is encrypted under, checked for GenerateDataKey*.
pub(crate) async fn data_key_owner(
    kms: &KmsService,
    scope: &Scope,
    key_id: &str,
    operation: &str,
) -> Result<KeyRecord, KmsError> {
    let key = resolve(kms, scope, key_id).await?;
    key.check_usable()?;
    key.check_usage(ENCRYPT_DECRYPT, operation)?;
    if key.family()? != Family::Symmetric {
        return Err(invalid_key_usage(format!(
            "{} key spec is {} which is not valid for {operation}.",
            key.arn, key.spec
        )));
    }
    Ok(key)
}

/// The length of a data key: `NumberOfBytes` or `KeySpec`, exactly one of them.
fn data_key_length(bytes: Option<i32>, key_spec: Option<&DataKeySpec>) -> Result<usize, KmsError> {
    match (bytes, key_spec) {
        (Some(n), None) => Ok(n.clamp(1, 1024) as usize),
        (None, Some(DataKeySpec::Aes256)) => Ok(32),
        (None, Some(DataKeySpec::Aes128)) => Ok(16),
        _ => Err(validation("Please specify either number of bytes or key spec.")),
    }
}

/// A fresh data key of `len` bytes under `key`: its plaintext and its blob.
pub(crate) fn data_key(
    key: &KeyRecord,
    len: usize,
    context: &BTreeMap<String, String>,
) -> Result<(Vec<u8>, Vec<u8>), KmsError> {
    let material = key.check_usable()?;
    let plaintext = crypto::random_bytes(len);
    let blob = seal(key, material, context, &plaintext);
    Ok((plaintext, blob))
}

pub(crate) async fn generate_data_key(
    kms: &KmsService,
    ctx: &RequestContext,
    input: GenerateDataKeyRequest,
) -> Result<GenerateDataKeyResponse, KmsError> {
    if input.recipient.is_some() {
        return Err(recipient_refused());
    }
    check_grant_tokens(input.grant_tokens.as_deref())?;
    let key = data_key_owner(kms, &Scope::of(ctx), &input.key_id, "GenerateDataKey").await?;
    let len = data_key_length(input.number_of_bytes, input.key_spec.as_ref())?;
    let (plaintext, blob) = data_key(&key, len, &input.encryption_context.unwrap_or_default())?;
    finish_dry_run(input.dry_run)?;
    Ok(GenerateDataKeyResponse {
        ciphertext_blob: Some(blob),
        plaintext: Some(plaintext),
        key_id: Some(key.arn),
        ciphertext_for_recipient: None,
        key_material_id: None,
    })
}

pub(crate) async fn generate_data_key_without_plaintext(
    kms: &KmsService,
    ctx: &RequestContext,
    input: GenerateDataKeyWithoutPlaintextRequest,
) -> Result<GenerateDataKeyWithoutPlaintextResponse, KmsError> {
    check_grant_tokens(input.grant_tokens.as_deref())?;
    let key = data_key_owner(kms, &Scope::of(ctx), &input.key_id, "GenerateDataKeyWithoutPlaintext").await?;
    let len = data_key_length(input.number_of_bytes, input.key_spec.as_ref())?;
    let (_, blob) = data_key(&key, len, &input.encryption_context.unwrap_or_default())?;
    finish_dry_run(input.dry_run)?;
    Ok(GenerateDataKeyWithoutPlaintextResponse {
        ciphertext_blob: Some(blob),
        key_id: Some(key.arn),
        key_material_id: None,
    })
}

/// A fresh key pair of `pair_spec`: PKCS #8 private key and DER public key.
async fn key_pair(pair_spec: &DataKeyPairSpec) -> Result<(Vec<u8>, Vec<u8>), KmsError> {
    let family = spec::family(&KeySpec::from_wire(pair_spec.as_str()))?;
    if !matches!(family, Family::Rsa(_) | Family::Ecc(_)) {
        return Err(validation(format!(
            "{} is not a valid key pair spec",
            pair_spec.as_str()
        )));
    }
    tokio::task::spawn_blocking(move || {
        let private = crypto::generate(family);
        let public = crypto::public_key_der(family, &private).expect("a key just made");
        (private, public)
    })
    .await
    .map_err(|e| {
        KmsError(AwsError::new(
            "KMSInternalException",
            format!("key generation: {e}"),
            500,
        ))
    })
}

pub(crate) async fn generate_data_key_pair(
    kms: &KmsService,
    ctx: &RequestContext,
    input: GenerateDataKeyPairRequest,
) -> Result<GenerateDataKeyPairResponse, KmsError> {
    if input.recipient.is_some() {
        return Err(recipient_refused());
    }
    check_grant_tokens(input.grant_tokens.as_deref())?;
    let key = data_key_owner(kms, &Scope::of(ctx), &input.key_id, "GenerateDataKeyPair").await?;
    if input.dry_run == Some(true) {
        spec::family(&KeySpec::from_wire(input.key_pair_spec.as_str()))?;
        return Err(dry_run());
    }
    let (private, public) = key_pair(&input.key_pair_spec).await?;
    let material = key.check_usable()?;
    let blob = seal(&key, material, &input.encryption_context.unwrap_or_default(), &private);
    Ok(GenerateDataKeyPairResponse {
        private_key_ciphertext_blob: Some(blob),
        private_key_plaintext: Some(private),
        public_key: Some(public),
        key_id: Some(key.arn.clone()),
        key_pair_spec: Some(input.key_pair_spec),
        ciphertext_for_recipient: None,
        key_material_id: None,
    })
}

pub(crate) async fn generate_data_key_pair_without_plaintext(
    kms: &KmsService,
    ctx: &RequestContext,
    input: GenerateDataKeyPairWithoutPlaintextRequest,
) -> Result<GenerateDataKeyPairWithoutPlaintextResponse, KmsError> {
    check_grant_tokens(input.grant_tokens.as_deref())?;
    let key = data_key_owner(
        kms,
        &Scope::of(ctx),
        &input.key_id,
        "GenerateDataKeyPairWithoutPlaintext",
    )
    .await?;
    if input.dry_run == Some(true) {
        spec::family(&KeySpec::from_wire(input.key_pair_spec.as_str()))?;
        return Err(dry_run());
    }
    let (private, public) = key_pair(&input.key_pair_spec).await?;
    let material = key.check_usable()?;
    let blob = seal(&key, material, &input.encryption_context.unwrap_or_default(), &private);
    Ok(GenerateDataKeyPairWithoutPlaintextResponse {
        private_key_ciphertext_blob: Some(blob),
        public_key: Some(public),
        key_id: Some(key.arn.clone()),
        key_pair_spec: Some(input.key_pair_spec),
        key_material_id: None,
    })
}

pub(crate) async fn generate_random(
    _kms: &KmsService,
    _ctx: &RequestContext,
    input: GenerateRandomRequest,
) -> Result<GenerateRandomResponse, KmsError> {
    if input.recipient.is_some() {
        return Err(recipient_refused());
    }
    if input.custom_key_store_id.is_some() {
        return Err(KmsError(AwsError::new("CustomKeyStoreNotFoundException", "", 400)));
    }
    let n = input
        .number_of_bytes
        .ok_or_else(|| validation("NumberOfBytes is required."))?;
    Ok(GenerateRandomResponse {
        plaintext: Some(crypto::random_bytes(n.clamp(1, 1024) as usize)),
        ciphertext_for_recipient: None,
    })
}

/// The digest a signature is over: the message hashed, or the message itself when it is
/// one (`MessageType` `DIGEST`), which must then have the hash's length.
fn digest_of(
    message: &[u8],
    message_type: Option<&MessageType>,
    algorithm: &SigningAlgorithmSpec,
    scheme: crypto::Scheme,
) -> Result<Vec<u8>, KmsError> {
    let hash = scheme.hash();
    match message_type {
        None | Some(MessageType::Raw) => Ok(hash.digest(message)),
        Some(MessageType::Digest) if message.len() == hash.len() => Ok(message.to_vec()),
        Some(MessageType::Digest) => Err(validation(format!(
            "Digest is invalid length for algorithm {}.",
            algorithm.as_str()
        ))),
        Some(other) => Err(validation(format!(
            "MessageType {} is not valid for algorithm {}.",
            other.as_str(),
            algorithm.as_str()
        ))),
    }
}

/// The signing key and scheme for Sign and Verify, checked.
async fn signer(
    kms: &KmsService,
    scope: &Scope,
    key_id: &str,
    algorithm: &SigningAlgorithmSpec,
    operation: &str,
) -> Result<(KeyRecord, crypto::Scheme), KmsError> {
    let key = resolve(kms, scope, key_id).await?;
    key.check_usable()?;
    key.check_usage("SIGN_VERIFY", operation)?;
    let offered = spec::signing_algorithms(&key.key_spec(), &key.key_usage()).unwrap_or_default();
    let scheme = spec::scheme(algorithm)
        .filter(|_| offered.contains(algorithm))
        .ok_or_else(|| incompatible(algorithm.as_str(), &key))?;
    Ok((key, scheme))
}

pub(crate) async fn sign(kms: &KmsService, ctx: &RequestContext, input: SignRequest) -> Result<SignResponse, KmsError> {
    check_grant_tokens(input.grant_tokens.as_deref())?;
    let (key, scheme) = signer(kms, &Scope::of(ctx), &input.key_id, &input.signing_algorithm, "Sign").await?;
    let digest = digest_of(
        &input.message,
        input.message_type.as_ref(),
        &input.signing_algorithm,
        scheme,
    )?;
    finish_dry_run(input.dry_run)?;
    let material = key.check_usable()?;
    let signature = crypto::sign(key.family()?, &material.secret(), scheme, &digest)
        .map_err(|_| KmsError(AwsError::new("KMSInternalException", "signing failed", 500)))?;
    Ok(SignResponse {
        key_id: Some(key.arn),
        signature: Some(signature),
        signing_algorithm: Some(input.signing_algorithm),
    })
}

pub(crate) async fn verify(
    kms: &KmsService,
    ctx: &RequestContext,
    input: VerifyRequest,
) -> Result<VerifyResponse, KmsError> {
    check_grant_tokens(input.grant_tokens.as_deref())?;
    let (key, scheme) = signer(kms, &Scope::of(ctx), &input.key_id, &input.signing_algorithm, "Verify").await?;
    let digest = digest_of(
        &input.message,
        input.message_type.as_ref(),
        &input.signing_algorithm,
        scheme,
    )?;
    finish_dry_run(input.dry_run)?;
    let material = key.check_usable()?;
    if !crypto::verify(key.family()?, &material.secret(), scheme, &digest, &input.signature) {
        return Err(KmsError(AwsError::new("KMSInvalidSignatureException", "", 400)));
    }
    Ok(VerifyResponse {
        key_id: Some(key.arn),
        signature_valid: true,
        signing_algorithm: Some(input.signing_algorithm),
    })
}

/// The HMAC key and hash for GenerateMac and VerifyMac, checked.
async fn mac_key(
    kms: &KmsService,
    scope: &Scope,
    key_id: &str,
    algorithm: &MacAlgorithmSpec,
    operation: &str,
) -> Result<(KeyRecord, crypto::Hash), KmsError> {
    let key = resolve(kms, scope, key_id).await?;
    key.check_usable()?;
    key.check_usage("GENERATE_VERIFY_MAC", operation)?;
    let hash = spec::mac_hash(algorithm)
        .filter(|_| spec::mac_algorithm(&key.key_spec()).as_ref() == Some(algorithm))
        .ok_or_else(|| incompatible(algorithm.as_str(), &key))?;
    Ok((key, hash))
}

pub(crate) async fn generate_mac(
    kms: &KmsService,
    ctx: &RequestContext,
    input: GenerateMacRequest,
) -> Result<GenerateMacResponse, KmsError> {
    check_grant_tokens(input.grant_tokens.as_deref())?;
    let (key, hash) = mac_key(kms, &Scope::of(ctx), &input.key_id, &input.mac_algorithm, "GenerateMac").await?;
    finish_dry_run(input.dry_run)?;
    let material = key.check_usable()?;
    Ok(GenerateMacResponse {
        mac: Some(crypto::hmac(hash, &material.secret(), &input.message)),
        mac_algorithm: Some(input.mac_algorithm),
        key_id: Some(key.arn.clone()),
    })
}

pub(crate) async fn verify_mac(
    kms: &KmsService,
    ctx: &RequestContext,
    input: VerifyMacRequest,
) -> Result<VerifyMacResponse, KmsError> {
    check_grant_tokens(input.grant_tokens.as_deref())?;
    let (key, hash) = mac_key(kms, &Scope::of(ctx), &input.key_id, &input.mac_algorithm, "VerifyMac").await?;
    finish_dry_run(input.dry_run)?;
    let material = key.check_usable()?;
    let expected = crypto::hmac(hash, &material.secret(), &input.message);
    if !crypto::constant_time_eq(&expected, &input.mac) {
        return Err(KmsError(AwsError::new("KMSInvalidMacException", "", 400)));
    }
    Ok(VerifyMacResponse {
        key_id: Some(key.arn.clone()),
        mac_valid: true,
        mac_algorithm: Some(input.mac_algorithm),
    })
}

pub(crate) async fn derive_shared_secret(
    kms: &KmsService,
    ctx: &RequestContext,
    input: DeriveSharedSecretRequest,
) -> Result<DeriveSharedSecretResponse, KmsError> {
    if input.recipient.is_some() {
        return Err(recipient_refused());
    }
    check_grant_tokens(input.grant_tokens.as_deref())?;
    let key = resolve(kms, &Scope::of(ctx), &input.key_id).await?;
    let material = key.check_usable()?;
    key.check_usage("KEY_AGREEMENT", "DeriveSharedSecret")?;
    let Family::Ecc(curve) = key.family()? else {
        return Err(incompatible("ECDH", &key));
    };
    let secret = crypto::ecdh(curve, &material.secret(), &input.public_key).map_err(|_| validation(""))?;
    finish_dry_run(input.dry_run)?;
    Ok(DeriveSharedSecretResponse {
        key_id: Some(key.arn.clone()),
        shared_secret: Some(secret),
        ciphertext_for_recipient: None,
        key_agreement_algorithm: Some(input.key_agreement_algorithm),
        key_origin: Some(OriginType::from_wire(&key.origin)),
    })
}

pub(crate) async fn get_public_key(
    kms: &KmsService,
    ctx: &RequestContext,
    input: GetPublicKeyRequest,
) -> Result<GetPublicKeyResponse, KmsError> {
    check_grant_tokens(input.grant_tokens.as_deref())?;
    let key = resolve(kms, &Scope::of(ctx), &input.key_id).await?;
    let material = key.check_usable()?;
    let family = key.family()?;
    let public = crypto::public_key_der(family, &material.secret()).map_err(|_| {
        crate::error::unsupported(format!(
            "{} key spec is {} which is not valid for GetPublicKey.",
            key.arn, key.spec
        ))
    })?;
    let spec = key.key_spec();
    let usage = key.key_usage();
    Ok(GetPublicKeyResponse {
        key_id: Some(key.arn.clone()),
        public_key: Some(public),
        customer_master_key_spec: Some(CustomerMasterKeySpec::from_wire(&key.spec)),
        encryption_algorithms: spec::encryption_algorithms(&spec, &usage),
        signing_algorithms: spec::signing_algorithms(&spec, &usage),
        key_agreement_algorithms: spec::key_agreement_algorithms(&usage),
        key_spec: Some(spec),
        key_usage: Some(usage),
    })
}
