//! The cryptography behind KMS keys, as plain functions over key material: AES-256-GCM,
//! RSA (OAEP encryption, PSS and PKCS #1 v1.5 signatures), ECDSA and ECDH on the four curves
//! KMS offers, and HMAC. Private keys are kept as PKCS #8 DER, public keys handed out as DER
//! `SubjectPublicKeyInfo`, signatures as DER (ECDSA) or raw (RSA), as KMS gives them.

use aes_gcm::aead::{Aead, Payload};
use aes_gcm::{Aes256Gcm, KeyInit, Nonce};
use hmac::{Hmac, Mac};
use rsa::pkcs8::{DecodePrivateKey, EncodePrivateKey, EncodePublicKey};
use rsa::{Oaep, Pkcs1v15Sign, Pss};
use sha1::Sha1;
use sha2::{Digest, Sha224, Sha256, Sha384, Sha512};

/// The bytes of a GCM nonce.
pub(crate) const NONCE_LEN: usize = 12;
/// The bytes of a GCM tag.
pub(crate) const TAG_LEN: usize = 16;

/// A hash function, as KMS's algorithm names choose them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Hash {
    Sha1,
    Sha224,
    Sha256,
    Sha384,
    Sha512,
}

impl Hash {
    /// The bytes of a digest.
    pub(crate) fn len(self) -> usize {
        match self {
            Hash::Sha1 => 20,
            Hash::Sha224 => 28,
            Hash::Sha256 => 32,
            Hash::Sha384 => 48,
            Hash::Sha512 => 64,
        }
    }

    pub(crate) fn digest(self, message: &[u8]) -> Vec<u8> {
        match self {
            Hash::Sha1 => Sha1::digest(message).to_vec(),
            Hash::Sha224 => Sha224::digest(message).to_vec(),
            Hash::Sha256 => Sha256::digest(message).to_vec(),
            Hash::Sha384 => Sha384::digest(message).to_vec(),
            Hash::Sha512 => Sha512::digest(message).to_vec(),
        }
    }
}

/// An elliptic curve KMS offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Curve {
    P256,
    P384,
    P521,
    Secp256k1,
}

/// What kind of material a key holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Family {
    /// 32 bytes of AES-256 key.
    Symmetric,
    /// An RSA key of this many bits, as PKCS #8 DER.
    Rsa(usize),
    /// An EC key, as PKCS #8 DER.
    Ecc(Curve),
    /// An HMAC key of this many bytes, used with this hash.
    Hmac(usize, Hash),
}

/// A cryptographic operation that failed on its input (the material, a peer key, a
/// signature), never on a fault of ours.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct CryptoError;

/// `n` random bytes from the operating system.
pub(crate) fn random_bytes(n: usize) -> Vec<u8> {
    let mut bytes = vec![0; n];
    // The OS source failing is an unrecoverable fault of the machine.
    getrandom::fill(&mut bytes).expect("the operating system's random source failed");
    bytes
}

/// New key material of `family`.
pub(crate) fn generate(family: Family) -> Vec<u8> {
    match family {
        Family::Symmetric => random_bytes(32),
        Family::Hmac(bytes, _) => random_bytes(bytes),
        Family::Rsa(bits) => {
            let key = rsa::PrivateKey::new(&mut getrandom::SysRng, bits).expect("RSA key generation");
            key.to_pkcs8_der().expect("RSA key encoding").as_bytes().to_vec()
        }
        Family::Ecc(curve) => ec(curve).generate(),
    }
}

/// Whether `material` is usable as a key of `family` (imported material is checked so).
pub(crate) fn check_material(family: Family, material: &[u8]) -> bool {
    match family {
        Family::Symmetric => material.len() == 32,
        Family::Hmac(bytes, _) => material.len() == bytes,
        Family::Rsa(bits) => rsa::PrivateKey::from_pkcs8_der(material)
            .is_ok_and(|k| rsa::traits::PublicKeyParts::n_bits_precision(&k) as usize == bits),
        Family::Ecc(curve) => ec(curve).public_der(material).is_some(),
    }
}

/// AES-256-GCM encryption of `plaintext` with `aad`: ciphertext followed by the tag.
pub(crate) fn aes_seal(key: &[u8], nonce: &[u8; NONCE_LEN], aad: &[u8], plaintext: &[u8]) -> Vec<u8> {
    let cipher = Aes256Gcm::new_from_slice(key).expect("a 32-byte AES key");
    cipher
        .encrypt(&Nonce::from(*nonce), Payload { msg: plaintext, aad })
        .expect("AES-GCM takes inputs of any size KMS accepts")
}

/// AES-256-GCM decryption; `None` when the tag does not verify.
pub(crate) fn aes_open(key: &[u8], nonce: &[u8; NONCE_LEN], aad: &[u8], sealed: &[u8]) -> Option<Vec<u8>> {
    let cipher = Aes256Gcm::new_from_slice(key).ok()?;
    cipher.decrypt(&Nonce::from(*nonce), Payload { msg: sealed, aad }).ok()
}

/// The DER `SubjectPublicKeyInfo` of an asymmetric key's private material.
pub(crate) fn public_key_der(family: Family, material: &[u8]) -> Result<Vec<u8>, CryptoError> {
    match family {
        Family::Rsa(_) => {
            let key = rsa::PrivateKey::from_pkcs8_der(material).map_err(|_| CryptoError)?;
            Ok(key
                .to_public_key()
                .to_public_key_der()
                .map_err(|_| CryptoError)?
                .into_vec())
        }
        Family::Ecc(curve) => ec(curve).public_der(material).ok_or(CryptoError),
        Family::Symmetric | Family::Hmac(..) => Err(CryptoError),
    }
}

/// The largest plaintext RSAES-OAEP with `hash` takes under a key of `bits` bits.
pub(crate) fn oaep_max_plaintext(bits: usize, hash: Hash) -> usize {
    (bits / 8).saturating_sub(2 * hash.len() + 2)
}

/// RSAES-OAEP encryption (MGF1 with the same hash), with the key's private material.
pub(crate) fn rsa_encrypt(material: &[u8], hash: Hash, plaintext: &[u8]) -> Result<Vec<u8>, CryptoError> {
    let key = rsa::PrivateKey::from_pkcs8_der(material).map_err(|_| CryptoError)?;
    let public = key.to_public_key();
    let mut rng = getrandom::SysRng;
    match hash {
        Hash::Sha1 => public.encrypt(&mut rng, Oaep::<Sha1>::new(), plaintext),
        Hash::Sha256 => public.encrypt(&mut rng, Oaep::<Sha256>::new(), plaintext),
        _ => return Err(CryptoError),
    }
    .map_err(|_| CryptoError)
}

/// RSAES-OAEP decryption; an error for a ciphertext that does not decrypt.
pub(crate) fn rsa_decrypt(material: &[u8], hash: Hash, ciphertext: &[u8]) -> Result<Vec<u8>, CryptoError> {
    let key = rsa::PrivateKey::from_pkcs8_der(material).map_err(|_| CryptoError)?;
    match hash {
        Hash::Sha1 => key.decrypt(Oaep::<Sha1>::new(), ciphertext),
        Hash::Sha256 => key.decrypt(Oaep::<Sha256>::new(), ciphertext),
        _ => return Err(CryptoError),
    }
    .map_err(|_| CryptoError)
}

/// Unwraps `RSA_AES_KEY_WRAP_SHA_*` key material: an AES-256 key encrypted with RSAES-OAEP
/// under the wrapping key, then the material wrapped with that key by AES-KWP (RFC 5649).
pub(crate) fn rsa_aes_unwrap(wrapping_key: &[u8], hash: Hash, wrapped: &[u8]) -> Result<Vec<u8>, CryptoError> {
    let key = rsa::PrivateKey::from_pkcs8_der(wrapping_key).map_err(|_| CryptoError)?;
    let split = rsa::traits::PublicKeyParts::n_bits_precision(&key) as usize / 8;
    if wrapped.len() < split + 16 {
        return Err(CryptoError);
    }
    let aes_key = rsa_decrypt(wrapping_key, hash, &wrapped[..split])?;
    let kwp = aes_kw::KwpAes256::new_from_slice(&aes_key).map_err(|_| CryptoError)?;
    let mut out = vec![0; wrapped.len() - split - aes_kw::IV_LEN];
    let material = kwp.unwrap_key(&wrapped[split..], &mut out).map_err(|_| CryptoError)?;
    Ok(material.to_vec())
}

/// How a signature is made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scheme {
    Pss(Hash),
    Pkcs1(Hash),
    Ecdsa(Hash),
}

impl Scheme {
    pub(crate) fn hash(self) -> Hash {
        match self {
            Scheme::Pss(h) | Scheme::Pkcs1(h) | Scheme::Ecdsa(h) => h,
        }
    }
}

/// Signs `digest` (already hashed with the scheme's hash) with the key's private material.
pub(crate) fn sign(family: Family, material: &[u8], scheme: Scheme, digest: &[u8]) -> Result<Vec<u8>, CryptoError> {
    match (family, scheme) {
        (Family::Rsa(_), Scheme::Pss(h) | Scheme::Pkcs1(h)) => {
            let key = rsa::PrivateKey::from_pkcs8_der(material).map_err(|_| CryptoError)?;
            let mut rng = getrandom::SysRng;
            let signed = match (scheme, h) {
                (Scheme::Pss(_), Hash::Sha256) => key.sign_with_rng(&mut rng, Pss::<Sha256>::new(), digest),
                (Scheme::Pss(_), Hash::Sha384) => key.sign_with_rng(&mut rng, Pss::<Sha384>::new(), digest),
                (Scheme::Pss(_), Hash::Sha512) => key.sign_with_rng(&mut rng, Pss::<Sha512>::new(), digest),
                (_, Hash::Sha256) => key.sign(Pkcs1v15Sign::new::<Sha256>(), digest),
                (_, Hash::Sha384) => key.sign(Pkcs1v15Sign::new::<Sha384>(), digest),
                (_, Hash::Sha512) => key.sign(Pkcs1v15Sign::new::<Sha512>(), digest),
                _ => return Err(CryptoError),
            };
            signed.map_err(|_| CryptoError)
        }
        (Family::Ecc(curve), Scheme::Ecdsa(_)) => ec(curve).sign(material, digest).ok_or(CryptoError),
        _ => Err(CryptoError),
    }
}

/// Whether `signature` is the key's signature of `digest`.
pub(crate) fn verify(family: Family, material: &[u8], scheme: Scheme, digest: &[u8], signature: &[u8]) -> bool {
    match (family, scheme) {
        (Family::Rsa(_), Scheme::Pss(h) | Scheme::Pkcs1(h)) => {
            let Ok(key) = rsa::PrivateKey::from_pkcs8_der(material) else {
                return false;
            };
            let public = key.to_public_key();
            let verified = match (scheme, h) {
                (Scheme::Pss(_), Hash::Sha256) => public.verify(Pss::<Sha256>::new(), digest, signature),
                (Scheme::Pss(_), Hash::Sha384) => public.verify(Pss::<Sha384>::new(), digest, signature),
                (Scheme::Pss(_), Hash::Sha512) => public.verify(Pss::<Sha512>::new(), digest, signature),
                (_, Hash::Sha256) => public.verify(Pkcs1v15Sign::new::<Sha256>(), digest, signature),
                (_, Hash::Sha384) => public.verify(Pkcs1v15Sign::new::<Sha384>(), digest, signature),
                (_, Hash::Sha512) => public.verify(Pkcs1v15Sign::new::<Sha512>(), digest, signature),
                _ => return false,
            };
            verified.is_ok()
        }
        (Family::Ecc(curve), Scheme::Ecdsa(_)) => ec(curve).verify(material, digest, signature),
        _ => false,
    }
}

/// The HMAC of `message` under `key` with `hash`.
pub(crate) fn hmac(hash: Hash, key: &[u8], message: &[u8]) -> Vec<u8> {
    fn run<M: Mac + KeyInitMac>(key: &[u8], message: &[u8]) -> Vec<u8> {
        let mut mac = M::with_key(key);
        mac.update(message);
        mac.finalize().into_bytes().to_vec()
    }
    match hash {
        Hash::Sha1 => run::<Hmac<Sha1>>(key, message),
        Hash::Sha224 => run::<Hmac<Sha224>>(key, message),
        Hash::Sha256 => run::<Hmac<Sha256>>(key, message),
        Hash::Sha384 => run::<Hmac<Sha384>>(key, message),
        Hash::Sha512 => run::<Hmac<Sha512>>(key, message),
    }
}

/// HMAC takes keys of any length; this names that without a fallible constructor.
trait KeyInitMac {
    fn with_key(key: &[u8]) -> Self;
}

impl<M: hmac::digest::KeyInit> KeyInitMac for M {
    fn with_key(key: &[u8]) -> Self {
        <M as hmac::digest::KeyInit>::new_from_slice(key).expect("HMAC takes keys of any length")
    }
}

/// Whether two byte strings are equal, in time independent of where they differ.
pub(crate) fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The ECDH shared secret (the x coordinate) of the key's private material and a peer's DER
/// `SubjectPublicKeyInfo` on the same curve.
pub(crate) fn ecdh(curve: Curve, material: &[u8], peer_der: &[u8]) -> Result<Vec<u8>, CryptoError> {
    ec(curve).ecdh(material, peer_der).ok_or(CryptoError)
}

/// One curve's operations, over PKCS #8 private keys.
struct EcOps {
    generate: fn() -> Vec<u8>,
    public_der: fn(&[u8]) -> Option<Vec<u8>>,
    sign: fn(&[u8], &[u8]) -> Option<Vec<u8>>,
    verify: fn(&[u8], &[u8], &[u8]) -> bool,
    ecdh: fn(&[u8], &[u8]) -> Option<Vec<u8>>,
}

impl EcOps {
    fn generate(&self) -> Vec<u8> {
        (self.generate)()
    }
    fn public_der(&self, material: &[u8]) -> Option<Vec<u8>> {
        (self.public_der)(material)
    }
    fn sign(&self, material: &[u8], digest: &[u8]) -> Option<Vec<u8>> {
        (self.sign)(material, digest)
    }
    fn verify(&self, material: &[u8], digest: &[u8], signature: &[u8]) -> bool {
        (self.verify)(material, digest, signature)
    }
    fn ecdh(&self, material: &[u8], peer: &[u8]) -> Option<Vec<u8>> {
        (self.ecdh)(material, peer)
    }
}

/// The same functions for each curve crate, which share one API but no trait for all of it.
macro_rules! curve {
    ($name:ident, $krate:ident) => {
        mod $name {
            use $krate::ecdsa::signature::hazmat::{PrehashSigner, PrehashVerifier};
            use $krate::ecdsa::{Signature, SigningKey};
            use $krate::elliptic_curve::Generate;
            use $krate::pkcs8::{DecodePrivateKey, DecodePublicKey, EncodePrivateKey, EncodePublicKey};
            use $krate::{PublicKey, SecretKey};

            pub(super) const OPS: super::EcOps = super::EcOps {
                generate,
                public_der,
                sign,
                verify,
                ecdh,
            };

            fn generate() -> Vec<u8> {
                SecretKey::generate()
                    .to_pkcs8_der()
                    .expect("EC key encoding")
                    .as_bytes()
                    .to_vec()
            }

            fn public_der(material: &[u8]) -> Option<Vec<u8>> {
                let key = SecretKey::from_pkcs8_der(material).ok()?;
                Some(key.public_key().to_public_key_der().ok()?.into_vec())
            }

            fn sign(material: &[u8], digest: &[u8]) -> Option<Vec<u8>> {
                let key = SigningKey::from_pkcs8_der(material).ok()?;
                let signature: Signature = key.sign_prehash(digest).ok()?;
                Some(signature.to_der().as_bytes().to_vec())
            }

            fn verify(material: &[u8], digest: &[u8], signature: &[u8]) -> bool {
                let (Ok(key), Ok(signature)) = (
                    SigningKey::from_pkcs8_der(material),
                    Signature::from_der(signature),
                ) else {
                    return false;
                };
                key.verifying_key().verify_prehash(digest, &signature).is_ok()
            }

            fn ecdh(material: &[u8], peer: &[u8]) -> Option<Vec<u8>> {
                let key = SecretKey::from_pkcs8_der(material).ok()?;
                let peer = PublicKey::from_public_key_der(peer).ok()?;
                let shared = $krate::ecdh::diffie_hellman(key.to_nonzero_scalar(), peer.as_affine());
                Some(shared.raw_secret_bytes().to_vec())
            }
        }
    };
}

curve!(nist_p256, p256);
curve!(nist_p384, p384);
curve!(nist_p521, p521);
curve!(secg_k256, k256);

fn ec(curve: Curve) -> &'static EcOps {
    match curve {
        Curve::P256 => &nist_p256::OPS,
        Curve::P384 => &nist_p384::OPS,
        Curve::P521 => &nist_p521::OPS,
        Curve::Secp256k1 => &secg_k256::OPS,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aes_round_trip_and_tamper() {
        let key = generate(Family::Symmetric);
        let nonce = [7u8; NONCE_LEN];
        let sealed = aes_seal(&key, &nonce, b"ctx", b"hello");
        assert_eq!(aes_open(&key, &nonce, b"ctx", &sealed).as_deref(), Some(&b"hello"[..]));
        assert_eq!(aes_open(&key, &nonce, b"other", &sealed), None);
    }

    #[test]
    fn every_curve_signs_verifies_and_agrees() {
        for curve in [Curve::P256, Curve::P384, Curve::P521, Curve::Secp256k1] {
            let a = generate(Family::Ecc(curve));
            let b = generate(Family::Ecc(curve));
            let digest = Hash::Sha256.digest(b"message");
            let sig = sign(Family::Ecc(curve), &a, Scheme::Ecdsa(Hash::Sha256), &digest).unwrap();
            assert!(verify(
                Family::Ecc(curve),
                &a,
                Scheme::Ecdsa(Hash::Sha256),
                &digest,
                &sig
            ));
            assert!(!verify(
                Family::Ecc(curve),
                &b,
                Scheme::Ecdsa(Hash::Sha256),
                &digest,
                &sig
            ));
            let ab = ecdh(curve, &a, &public_key_der(Family::Ecc(curve), &b).unwrap()).unwrap();
            let ba = ecdh(curve, &b, &public_key_der(Family::Ecc(curve), &a).unwrap()).unwrap();
            assert_eq!(ab, ba);
        }
    }

    #[test]
    fn rsa_encrypts_and_signs() {
        let key = generate(Family::Rsa(2048));
        assert!(check_material(Family::Rsa(2048), &key));
        let ct = rsa_encrypt(&key, Hash::Sha256, b"secret").unwrap();
        assert_eq!(rsa_decrypt(&key, Hash::Sha256, &ct).unwrap(), b"secret");
        assert!(rsa_decrypt(&key, Hash::Sha1, &ct).is_err());
        assert_eq!(oaep_max_plaintext(2048, Hash::Sha256), 190);
        assert_eq!(oaep_max_plaintext(4096, Hash::Sha1), 470);
        for scheme in [Scheme::Pss(Hash::Sha384), Scheme::Pkcs1(Hash::Sha512)] {
            let digest = scheme.hash().digest(b"m");
            let sig = sign(Family::Rsa(2048), &key, scheme, &digest).unwrap();
            assert!(verify(Family::Rsa(2048), &key, scheme, &digest, &sig));
        }
    }

    #[test]
    fn hmac_matches_rfc_4231_case_2() {
        let mac = hmac(Hash::Sha256, b"Jefe", b"what do ya want for nothing?");
        assert_eq!(
            mac.iter().map(|b| format!("{b:02x}")).collect::<String>(),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }
}
