//! The private key ExportCertificate hands out: PKCS #8 encrypted under the caller's
//! passphrase (an `ENCRYPTED PRIVATE KEY` PEM block, RFC 5958), with PBES2 (RFC 8018):
//! PBKDF2 with HMAC-SHA256 derives an AES-256-CBC key, as `openssl pkcs8 -topk8 -v2 aes256`
//! writes it, so OpenSSL and Python's `cryptography` read it with the passphrase.

use aes::cipher::{BlockCipherEncrypt, KeyInit};
use hmac::{Hmac, Mac};
use sha2::Sha256;

const ITERATIONS: u32 = 10_000;
const SALT_LEN: usize = 16;
const BLOCK: usize = 16;

/// `pkcs8_der` encrypted under `passphrase`, as PEM.
pub(crate) fn encrypted_private_key_pem(pkcs8_der: &[u8], passphrase: &[u8]) -> String {
    let mut salt = [0u8; SALT_LEN];
    let mut iv = [0u8; BLOCK];
    getrandom::fill(&mut salt).expect("the system's random source");
    getrandom::fill(&mut iv).expect("the system's random source");
    let der = encrypted_private_key_info(pkcs8_der, passphrase, &salt, &iv);
    x509_cert::der::pem::encode_string("ENCRYPTED PRIVATE KEY", x509_cert::der::pem::LineEnding::LF, &der)
        .expect("PEM encoding")
}

/// The DER EncryptedPrivateKeyInfo of `plain` with the given salt and IV.
fn encrypted_private_key_info(plain: &[u8], passphrase: &[u8], salt: &[u8], iv: &[u8; BLOCK]) -> Vec<u8> {
    let key = pbkdf2_sha256(passphrase, salt, ITERATIONS);
    let sealed = aes256_cbc(&key, iv, plain);
    let kdf = sequence(&[
        oid(&[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x05, 0x0c]), // pbkdf2
        sequence(&[
            tlv(0x04, salt),
            integer(ITERATIONS),
            sequence(&[
                oid(&[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x02, 0x09]), // hmacWithSHA256
                vec![0x05, 0x00],
            ]),
        ]),
    ]);
    let cipher = sequence(&[
        oid(&[0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x01, 0x2a]), // aes256-CBC
        tlv(0x04, iv),
    ]);
    let algorithm = sequence(&[
        oid(&[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x05, 0x0d]), // pbes2
        sequence(&[kdf, cipher]),
    ]);
    sequence(&[algorithm, tlv(0x04, &sealed)])
}

fn pbkdf2_sha256(passphrase: &[u8], salt: &[u8], iterations: u32) -> [u8; 32] {
    let prf = Hmac::<Sha256>::new_from_slice(passphrase).expect("HMAC takes any key length");
    let mut block = prf.clone();
    block.update(salt);
    block.update(&1u32.to_be_bytes());
    let mut u: [u8; 32] = block.finalize().into_bytes().into();
    let mut out = u;
    for _ in 1..iterations {
        let mut next = prf.clone();
        next.update(&u);
        u = next.finalize().into_bytes().into();
        out.iter_mut().zip(u).for_each(|(o, x)| *o ^= x);
    }
    out
}

/// AES-256-CBC with PKCS #7 padding.
fn aes256_cbc(key: &[u8; 32], iv: &[u8; BLOCK], plain: &[u8]) -> Vec<u8> {
    let cipher = aes::Aes256::new(key.into());
    let pad = BLOCK - plain.len() % BLOCK;
    let mut data = plain.to_vec();
    data.extend(std::iter::repeat_n(pad as u8, pad));
    let mut previous = *iv;
    for chunk in data.chunks_exact_mut(BLOCK) {
        chunk.iter_mut().zip(previous).for_each(|(b, p)| *b ^= p);
        let block: &mut [u8; BLOCK] = chunk.try_into().expect("a whole block");
        cipher.encrypt_block(block.into());
        previous = *block;
    }
    data
}

fn tlv(tag: u8, content: &[u8]) -> Vec<u8> {
    let mut out = vec![tag];
    let len = content.len();
    if len < 0x80 {
        out.push(len as u8);
    } else {
        let bytes: Vec<u8> = len.to_be_bytes().into_iter().skip_while(|b| *b == 0).collect();
        out.push(0x80 | bytes.len() as u8);
        out.extend(bytes);
    }
    out.extend_from_slice(content);
    out
}

fn sequence(parts: &[Vec<u8>]) -> Vec<u8> {
    tlv(0x30, &parts.concat())
}

fn oid(encoded: &[u8]) -> Vec<u8> {
    tlv(0x06, encoded)
}

fn integer(value: u32) -> Vec<u8> {
    let mut bytes: Vec<u8> = value.to_be_bytes().into_iter().skip_while(|b| *b == 0).collect();
    if bytes.first().is_none_or(|b| b & 0x80 != 0) {
        bytes.insert(0, 0);
    }
    tlv(0x02, &bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 6070's PBKDF2 vectors are for SHA-1; this is the SHA-256 one every library
    /// agrees on ("password", "salt", 1 iteration).
    #[test]
    fn pbkdf2_matches_the_published_vector() {
        let key = pbkdf2_sha256(b"password", b"salt", 1);
        assert_eq!(
            stratus_core::hex::encode(&key),
            "120fb6cffcf8b32c43e7225256c4f837a86548c92ccc35480805987cb70be17b"
        );
    }

    /// NIST SP 800-38A, F.2.5 (CBC-AES256.Encrypt), first block.
    #[test]
    fn cbc_matches_nist() {
        let key: [u8; 32] = hex("603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4");
        let iv: [u8; 16] = hex("000102030405060708090a0b0c0d0e0f");
        let plain: [u8; 16] = hex("6bc1bee22e409f96e93d7e117393172a");
        let sealed = aes256_cbc(&key, &iv, &plain);
        assert_eq!(
            stratus_core::hex::encode(&sealed[..16]),
            "f58c4c04d6e5f1ba779eabfb5f7bfbd6"
        );
        assert_eq!(sealed.len(), 32, "a whole block of padding follows a whole block");
    }

    #[test]
    fn the_pem_block_is_an_encrypted_private_key() {
        let pem = encrypted_private_key_pem(b"key", b"passphrase");
        assert!(pem.starts_with("-----BEGIN ENCRYPTED PRIVATE KEY-----"));
    }

    fn hex<const N: usize>(text: &str) -> [u8; N] {
        let bytes: Vec<u8> = (0..text.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&text[i..i + 2], 16).unwrap())
            .collect();
        bytes.try_into().unwrap()
    }
}
