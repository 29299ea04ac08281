//! Sealing and opening ciphertext blobs with a symmetric key's material.

use std::collections::BTreeMap;

use crate::blob::{self, Blob};
use crate::crypto::{self, NONCE_LEN};
use crate::error::{invalid_ciphertext, KmsError};
use crate::keys::{KeyRecord, Material};

/// A blob of `plaintext` under `key`'s `material`, bound to `context`.
pub(crate) fn seal(
    key: &KeyRecord,
    material: &Material,
    context: &BTreeMap<String, String>,
    plaintext: &[u8],
) -> Vec<u8> {
    let nonce: [u8; NONCE_LEN] = crypto::random_bytes(NONCE_LEN)
        .try_into()
        .expect("NONCE_LEN random bytes");
    let mut out = blob::header(&key.id, &material.id_bytes(), &nonce);
    let aad = blob::additional_data(&out, context);
    out.extend_from_slice(&crypto::aes_seal(&material.secret(), &nonce, &aad, plaintext));
    out
}

/// The plaintext of `blob` under `key` (which it names) and the material that opened it;
/// `InvalidCiphertextException` for material the key lacks, another context, or edited bytes.
pub(crate) fn open<'k>(
    key: &'k KeyRecord,
    blob: &Blob<'_>,
    context: &BTreeMap<String, String>,
) -> Result<(Vec<u8>, &'k Material), KmsError> {
    let material = key.material(&blob.material_id).ok_or_else(invalid_ciphertext)?;
    let aad = blob::additional_data(blob.header, context);
    let plaintext =
        crypto::aes_open(&material.secret(), &blob.nonce, &aad, blob.sealed).ok_or_else(invalid_ciphertext)?;
    Ok((plaintext, material))
}
