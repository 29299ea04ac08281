//! Lower-case hexadecimal, for digests (MD5 ETags and message digests) and for opaque
//! continuation tokens and handles that carry a string.

const DIGITS: &[u8; 16] = b"0123456789abcdef";

/// `bytes` as lower-case hex.
pub fn encode(bytes: &[u8]) -> String {
    let mut out = Vec::with_capacity(bytes.len() * 2);
    append(&mut out, bytes);
    String::from_utf8(out).expect("hex digits are ASCII")
}

/// `bytes` as lower-case hex, appended to `out` (a signature's string to sign, say): two table
/// lookups a byte, where formatting byte by byte would cost more than the hash it prints.
pub fn append(out: &mut Vec<u8>, bytes: &[u8]) {
    out.reserve(bytes.len() * 2);
    for b in bytes {
        out.push(DIGITS[usize::from(b >> 4)]);
        out.push(DIGITS[usize::from(b & 0xf)]);
    }
}

/// The bytes `text` spells in hex (either case); `None` for anything else.
pub fn decode(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

/// The UTF-8 string `text` spells in hex: the inverse of `encode(s.as_bytes())`.
pub fn decode_str(text: &str) -> Option<String> {
    String::from_utf8(decode(text)?).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        assert_eq!(encode(&[0, 0xab, 0x1f]), "00ab1f");
        assert_eq!(decode("00AB1f"), Some(vec![0, 0xab, 0x1f]));
        assert_eq!(
            decode_str(&encode("jobs-1.fifo".as_bytes())).as_deref(),
            Some("jobs-1.fifo")
        );
        assert_eq!(decode("abc"), None);
        assert_eq!(decode("zz"), None);
        assert_eq!(decode("é0"), None);
    }
}
