//! What each key spec is: its material, the usages it allows, and the algorithms each usage
//! offers, as AWS's "Key spec reference" lists them.

use stratus_core::AwsError;
use stratus_gen_kms::{
    EncryptionAlgorithmSpec, KeyAgreementAlgorithmSpec, KeySpec, KeyUsageType, MacAlgorithmSpec, SigningAlgorithmSpec,
};

use crate::crypto::{Curve, Family, Hash, Scheme};
use crate::error::{validation, KmsError};

/// The material a key spec holds; `Err` for a spec Stratus does not make keys of.
pub(crate) fn family(spec: &KeySpec) -> Result<Family, KmsError> {
    Ok(match spec {
        KeySpec::SymmetricDefault => Family::Symmetric,
        KeySpec::Rsa2048 => Family::Rsa(2048),
        KeySpec::Rsa3072 => Family::Rsa(3072),
        KeySpec::Rsa4096 => Family::Rsa(4096),
        KeySpec::EccNistP256 => Family::Ecc(Curve::P256),
        KeySpec::EccNistP384 => Family::Ecc(Curve::P384),
        KeySpec::EccNistP521 => Family::Ecc(Curve::P521),
        KeySpec::EccSecgP256K1 => Family::Ecc(Curve::Secp256k1),
        KeySpec::Hmac224 => Family::Hmac(28, Hash::Sha224),
        KeySpec::Hmac256 => Family::Hmac(32, Hash::Sha256),
        KeySpec::Hmac384 => Family::Hmac(48, Hash::Sha384),
        KeySpec::Hmac512 => Family::Hmac(64, Hash::Sha512),
        // SM2 exists only in AWS's China regions; ML-DSA and Ed25519 keys are not made here.
        other => {
            return Err(KmsError(AwsError::new(
                "NotImplemented",
                format!("Stratus does not create {} keys", other.as_str()),
                501,
            )))
        }
    })
}

/// Whether `usage` is one `spec` allows.
pub(crate) fn allows(spec: &KeySpec, usage: &KeyUsageType) -> bool {
    use KeyUsageType as U;
    match family(spec) {
        Ok(Family::Symmetric) => *usage == U::EncryptDecrypt,
        Ok(Family::Rsa(_)) => matches!(usage, U::EncryptDecrypt | U::SignVerify),
        Ok(Family::Ecc(Curve::Secp256k1)) => *usage == U::SignVerify,
        Ok(Family::Ecc(_)) => matches!(usage, U::SignVerify | U::KeyAgreement),
        Ok(Family::Hmac(..)) => *usage == U::GenerateVerifyMac,
        Err(_) => false,
    }
}

/// Checks `usage` against `spec` with AWS's refusal.
pub(crate) fn check_usage(spec: &KeySpec, usage: &KeyUsageType) -> Result<(), KmsError> {
    family(spec)?;
    if allows(spec, usage) {
        Ok(())
    } else {
        Err(validation(format!(
            "KeyUsage {} is not compatible with KeySpec {}",
            usage.as_str(),
            spec.as_str()
        )))
    }
}

/// The encryption algorithms a key offers (`EncryptionAlgorithms`).
pub(crate) fn encryption_algorithms(spec: &KeySpec, usage: &KeyUsageType) -> Option<Vec<EncryptionAlgorithmSpec>> {
    match (family(spec).ok()?, usage) {
        (Family::Symmetric, _) => Some(vec![EncryptionAlgorithmSpec::SymmetricDefault]),
        (Family::Rsa(_), KeyUsageType::EncryptDecrypt) => Some(vec![
            EncryptionAlgorithmSpec::RsaesOaepSha1,
            EncryptionAlgorithmSpec::RsaesOaepSha256,
        ]),
        _ => None,
    }
}

/// The signing algorithms a key offers (`SigningAlgorithms`).
pub(crate) fn signing_algorithms(spec: &KeySpec, usage: &KeyUsageType) -> Option<Vec<SigningAlgorithmSpec>> {
    use SigningAlgorithmSpec as S;
    if *usage != KeyUsageType::SignVerify {
        return None;
    }
    match family(spec).ok()? {
        Family::Rsa(_) => Some(vec![
            S::RsassaPssSha256,
            S::RsassaPssSha384,
            S::RsassaPssSha512,
            S::RsassaPkcs1V15Sha256,
            S::RsassaPkcs1V15Sha384,
            S::RsassaPkcs1V15Sha512,
        ]),
        Family::Ecc(Curve::P256 | Curve::Secp256k1) => Some(vec![S::EcdsaSha256]),
        Family::Ecc(Curve::P384) => Some(vec![S::EcdsaSha384]),
        Family::Ecc(Curve::P521) => Some(vec![S::EcdsaSha512]),
        _ => None,
    }
}

/// The MAC algorithm of an HMAC key (`MacAlgorithms`).
pub(crate) fn mac_algorithm(spec: &KeySpec) -> Option<MacAlgorithmSpec> {
    Some(match spec {
        KeySpec::Hmac224 => MacAlgorithmSpec::HmacSha224,
        KeySpec::Hmac256 => MacAlgorithmSpec::HmacSha256,
        KeySpec::Hmac384 => MacAlgorithmSpec::HmacSha384,
        KeySpec::Hmac512 => MacAlgorithmSpec::HmacSha512,
        _ => return None,
    })
}

/// The key agreement algorithms of a key (`KeyAgreementAlgorithms`).
pub(crate) fn key_agreement_algorithms(usage: &KeyUsageType) -> Option<Vec<KeyAgreementAlgorithmSpec>> {
    (*usage == KeyUsageType::KeyAgreement).then(|| vec![KeyAgreementAlgorithmSpec::Ecdh])
}

/// The signature scheme of a signing algorithm.
pub(crate) fn scheme(algorithm: &SigningAlgorithmSpec) -> Option<Scheme> {
    use SigningAlgorithmSpec as S;
    Some(match algorithm {
        S::RsassaPssSha256 => Scheme::Pss(Hash::Sha256),
        S::RsassaPssSha384 => Scheme::Pss(Hash::Sha384),
        S::RsassaPssSha512 => Scheme::Pss(Hash::Sha512),
        S::RsassaPkcs1V15Sha256 => Scheme::Pkcs1(Hash::Sha256),
        S::RsassaPkcs1V15Sha384 => Scheme::Pkcs1(Hash::Sha384),
        S::RsassaPkcs1V15Sha512 => Scheme::Pkcs1(Hash::Sha512),
        S::EcdsaSha256 => Scheme::Ecdsa(Hash::Sha256),
        S::EcdsaSha384 => Scheme::Ecdsa(Hash::Sha384),
        S::EcdsaSha512 => Scheme::Ecdsa(Hash::Sha512),
        _ => return None,
    })
}

/// The hash of an RSA encryption algorithm; `None` for `SYMMETRIC_DEFAULT`.
pub(crate) fn oaep_hash(algorithm: &EncryptionAlgorithmSpec) -> Option<Hash> {
    match algorithm {
        EncryptionAlgorithmSpec::RsaesOaepSha1 => Some(Hash::Sha1),
        EncryptionAlgorithmSpec::RsaesOaepSha256 => Some(Hash::Sha256),
        _ => None,
    }
}

/// The hash of a MAC algorithm.
pub(crate) fn mac_hash(algorithm: &MacAlgorithmSpec) -> Option<Hash> {
    Some(match algorithm {
        MacAlgorithmSpec::HmacSha224 => Hash::Sha224,
        MacAlgorithmSpec::HmacSha256 => Hash::Sha256,
        MacAlgorithmSpec::HmacSha384 => Hash::Sha384,
        MacAlgorithmSpec::HmacSha512 => Hash::Sha512,
        MacAlgorithmSpec::Unknown(_) => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usages_follow_the_key_spec_reference() {
        assert!(allows(&KeySpec::Rsa2048, &KeyUsageType::SignVerify));
        assert!(!allows(&KeySpec::Rsa2048, &KeyUsageType::KeyAgreement));
        assert!(allows(&KeySpec::EccNistP384, &KeyUsageType::KeyAgreement));
        assert!(!allows(&KeySpec::EccSecgP256K1, &KeyUsageType::KeyAgreement));
        assert!(!allows(&KeySpec::SymmetricDefault, &KeyUsageType::SignVerify));
        let refused = check_usage(&KeySpec::Rsa2048, &KeyUsageType::KeyAgreement).unwrap_err();
        assert_eq!(
            refused.0.message,
            "KeyUsage KEY_AGREEMENT is not compatible with KeySpec RSA_2048"
        );
    }
}
