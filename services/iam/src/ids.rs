//! Unique ids and secrets in AWS's formats.
//!
//! IAM's unique ids are a four-letter prefix naming the kind of entity (`AIDA` users, `AROA`
//! roles, `ANPA` managed policies, `AGPA` groups, `AIPA` instance profiles, `ACCA`
//! service-specific credentials, `APKA` SSH public keys, `ASCA` server certificates) and 17 characters of the base-32 alphabet `A–Z2–7`, 21 in
//! all; access key ids are `AKIA` and 16 more, 20 in all, as AWS issues them. Secrets (secret
//! access keys, service passwords) are base 64 drawn from the operating system's CSPRNG: they
//! are credentials, unlike ids.

use stratus_core::id::random_string;

/// The characters of AWS's ids (RFC 4648 base 32).
const BASE32: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
/// The characters of secret access keys.
const SECRET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// The kinds of entity that get a unique id, by their prefix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum IdKind {
    User,
    Role,
    Group,
    Policy,
    InstanceProfile,
    ServiceCredential,
    SshKey,
    ServerCertificate,
}

impl IdKind {
    fn prefix(self) -> &'static str {
        match self {
            IdKind::User => "AIDA",
            IdKind::Role => "AROA",
            IdKind::Group => "AGPA",
            IdKind::Policy => "ANPA",
            IdKind::InstanceProfile => "AIPA",
            IdKind::ServiceCredential => "ACCA",
            IdKind::SshKey => "APKA",
            IdKind::ServerCertificate => "ASCA",
        }
    }
}

/// A new unique id of `kind`.
pub(crate) fn unique_id(kind: IdKind) -> String {
    format!("{}{}", kind.prefix(), random_string(BASE32, 17))
}

/// A signing certificate's id: 28 characters of `A–Z2–7`, the length of the id in IAM's
/// UploadSigningCertificate example (`TA7SMP42TDN5Z26OBPJE7EXAMPLE`).
pub(crate) fn signing_certificate_id() -> String {
    random_string(BASE32, 28)
}

/// A virtual MFA device's TOTP seed: 64 base-32 characters (320 bits) from the CSPRNG.
pub(crate) fn mfa_seed() -> String {
    let mut bytes = [0u8; 64];
    getrandom::fill(&mut bytes).expect("the operating system's random source");
    // 32 divides 256: five bits of each byte keep every character equally likely.
    bytes.iter().map(|b| BASE32[usize::from(b & 31)] as char).collect()
}

/// A new access key id of a user in `account`, which the id carries as AWS's do.
pub(crate) fn access_key_id(account: &str) -> String {
    stratus_core::access_key::new_key_id("AKIA", account)
}

/// A new secret access key, from the operating system's CSPRNG.
pub(crate) fn secret_access_key() -> String {
    secret(40)
}

/// `len` characters of base 64 from the operating system's CSPRNG.
pub(crate) fn secret(len: usize) -> String {
    let mut bytes = vec![0u8; len];
    getrandom::fill(&mut bytes).expect("the operating system's random source");
    // 64 divides 256, so taking six bits of each byte keeps every character equally likely.
    bytes.iter().map(|b| SECRET[usize::from(b & 63)] as char).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn is_base32(s: &str) -> bool {
        s.bytes().all(|c| BASE32.contains(&c))
    }

    #[test]
    fn unique_ids_are_a_prefix_and_17_base32_characters() {
        for (kind, prefix) in [
            (IdKind::User, "AIDA"),
            (IdKind::Role, "AROA"),
            (IdKind::Group, "AGPA"),
            (IdKind::Policy, "ANPA"),
            (IdKind::InstanceProfile, "AIPA"),
            (IdKind::ServiceCredential, "ACCA"),
            (IdKind::SshKey, "APKA"),
            (IdKind::ServerCertificate, "ASCA"),
        ] {
            let id = unique_id(kind);
            assert_eq!(id.len(), 21, "{id}");
            assert!(id.starts_with(prefix));
            assert!(is_base32(&id[4..]), "{id}");
        }
        assert_ne!(unique_id(IdKind::User), unique_id(IdKind::User));
    }

    #[test]
    fn access_keys_are_20_characters_and_secrets_40() {
        let id = access_key_id("123456789012");
        assert_eq!(id.len(), 20);
        assert!(id.starts_with("AKIA") && is_base32(&id[4..]));
        let secret = secret_access_key();
        assert_eq!(secret.len(), 40);
        assert!(secret.bytes().all(|c| SECRET.contains(&c)));
        assert_ne!(secret, secret_access_key());
        let seed = mfa_seed();
        assert_eq!(seed.len(), 64);
        assert!(is_base32(&seed));
    }
}
