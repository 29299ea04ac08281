//! User metadata values as S3 keeps them ("Working with object metadata" in the S3 user guide):
//! a value sent in a header as an RFC 2047 encoded word (`=?UTF-8?Q?…?=`, `=?UTF-8?B?…?=`) is
//! stored decoded, and a stored value that is not plain US-ASCII is answered encoded — as Q
//! when most of its characters are ASCII, else as B, as AWS's recordings show. Values from
//! browser POST uploads are stored as sent.

use std::borrow::Cow;
use std::collections::BTreeMap;

use base64::Engine;

/// The characters a Q-encoded word escapes besides controls and non-ASCII: RFC 2047's `=`,
/// `?` and `_` (a space is written as `_`).
const Q_SPECIALS: &[u8] = b"=?_";

/// Every value of `metadata` decoded if it is an encoded word.
pub(crate) fn decode_all(metadata: BTreeMap<String, String>) -> BTreeMap<String, String> {
    metadata
        .into_iter()
        .map(|(k, v)| match decode(&v) {
            Some(decoded) => (k, decoded),
            None => (k, v),
        })
        .collect()
}

/// Every value of `metadata` as S3 answers it.
pub(crate) fn encode_all(metadata: &BTreeMap<String, String>) -> BTreeMap<String, String> {
    metadata
        .iter()
        .map(|(k, v)| (k.clone(), encode(v).into_owned()))
        .collect()
}

/// The text of `value` if it is one encoded word in a charset S3 reads (UTF-8, or ISO-8859-1
/// and US-ASCII); bytes that are not UTF-8 become U+FFFD.
fn decode(value: &str) -> Option<String> {
    let inner = value.strip_prefix("=?")?.strip_suffix("?=")?;
    let mut fields = inner.splitn(3, '?');
    let (charset, encoding, text) = (fields.next()?, fields.next()?, fields.next()?);
    let bytes = match encoding {
        "B" | "b" => decode_b(text),
        "Q" | "q" => decode_q(text)?,
        _ => return None,
    };
    match charset.to_ascii_uppercase().as_str() {
        "UTF-8" => Some(String::from_utf8_lossy(&bytes).into_owned()),
        "ISO-8859-1" | "US-ASCII" => Some(bytes.iter().map(|&b| char::from(b)).collect()),
        _ => None,
    }
}

/// Base64, leniently as AWS reads it: a value that is not well formed is read with each
/// character outside the alphabet standing for six set bits (AWS answered `=GGG` so).
fn decode_b(text: &str) -> Vec<u8> {
    if let Ok(bytes) = base64::engine::general_purpose::STANDARD.decode(text) {
        return bytes;
    }
    let sextet = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        _ => 63, // `/`, and what is not base64
    };
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    for chunk in text.as_bytes().chunks(4) {
        let bits = chunk
            .iter()
            .enumerate()
            .fold(0u32, |acc, (i, &c)| acc | u32::from(sextet(c)) << (18 - 6 * i));
        let whole = [(bits >> 16) as u8, (bits >> 8) as u8, bits as u8];
        out.extend_from_slice(&whole[..chunk.len().saturating_sub(1)]);
    }
    out
}

/// RFC 2047's Q encoding: `_` is a space, `=XX` a byte; `None` for a malformed escape.
fn decode_q(text: &str) -> Option<Vec<u8>> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'_' => out.push(b' '),
            b'=' => {
                let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
                out.push(u8::from_str_radix(hex, 16).ok()?);
                i += 2;
            }
            b => out.push(b),
        }
        i += 1;
    }
    Some(out)
}

/// Whether `c` is plain text in a header: printable ASCII, or tab, CR or LF.
fn plain(c: char) -> bool {
    matches!(c, ' '..='~' | '\t' | '\r' | '\n')
}

/// `value` as S3 answers it: as it is when plain, else one encoded word.
fn encode(value: &str) -> Cow<'_, str> {
    let unplain = value.chars().filter(|&c| !plain(c)).map(char::len_utf16).sum::<usize>();
    if unplain == 0 {
        return Cow::Borrowed(value);
    }
    let plain_count = value.chars().filter(|&c| plain(c)).count();
    if plain_count > unplain {
        let mut word = String::from("=?UTF-8?Q?");
        for &b in value.as_bytes() {
            match b {
                b' ' => word.push('_'),
                b'!'..=b'~' if !Q_SPECIALS.contains(&b) => word.push(char::from(b)),
                _ => word.push_str(&format!("={b:02X}")),
            }
        }
        word.push_str("?=");
        return Cow::Owned(word);
    }
    let encoded = base64::engine::general_purpose::STANDARD.encode(value.as_bytes());
    Cow::Owned(format!("=?UTF-8?B?{encoded}?="))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encoded_words_are_read() {
        assert_eq!(decode("=?UTF-8?Q?actually-ascii?=").as_deref(), Some("actually-ascii"));
        assert_eq!(decode("=?UTF-8?B?YWJj?=").as_deref(), Some("abc"));
        assert_eq!(decode("=?utf-8?q?a_b=C3=A9?=").as_deref(), Some("a bé"));
        assert_eq!(decode("=?ISO-8859-1?Q?caf=E9?=").as_deref(), Some("café"));
        assert_eq!(decode("plain"), None);
        assert_eq!(decode("=?UTF-8?X?abc?="), None);
        assert_eq!(decode("=?UTF-8?Q?bad=G?="), None);
    }

    #[test]
    fn badly_padded_base64_reads_as_aws_read_it() {
        // AWS answered `=?UTF-8?B?=GGG?=` with `=?UTF-8?B?77+9Ye+/vQ==?=` ("\u{FFFD}a\u{FFFD}").
        let decoded = decode("=?UTF-8?B?=GGG?=").unwrap();
        assert_eq!(decoded, "\u{FFFD}a\u{FFFD}");
        assert_eq!(encode(&decoded), "=?UTF-8?B?77+9Ye+/vQ==?=");
    }

    #[test]
    fn values_that_are_not_ascii_are_answered_encoded() {
        assert_eq!(encode("plain text\t!"), "plain text\t!");
        assert_eq!(encode("ÄMÄZÕÑ S3"), "=?UTF-8?Q?=C3=84M=C3=84Z=C3=95=C3=91_S3?=");
        assert_eq!(
            encode("test_—_file%E2%80%94_é_2?.pdf"),
            "=?UTF-8?Q?test=5F=E2=80=94=5Ffile%E2%80%94=5F=C3=A9=5F2=3F.pdf?="
        );
        assert_eq!(encode("\u{0}\u{1}\u{2}\u{3}"), "=?UTF-8?B?AAECAw==?=");
    }

    #[test]
    fn any_value_round_trips() {
        for value in ["", "a", "é", "ÄMÄ S3", "\u{0}x", "👑 crown", "=?", "_ _", "= ?"] {
            let answered = encode(value);
            let read_back = decode(&answered).unwrap_or_else(|| answered.clone().into_owned());
            assert_eq!(read_back, value, "{value:?} answered as {answered:?}");
        }
    }

    #[test]
    fn mangled_encoded_words_never_panic() {
        use stratus_test_support::{fuzz_input, Rng};
        let seeds: &[&[u8]] = &[
            b"=?UTF-8?Q?a=C3=A9_b?=",
            b"=?UTF-8?B?YWJj?=",
            b"=?ISO-8859-1?q?caf=E9?=",
        ];
        let tokens: &[&[u8]] = &[
            b"=?",
            b"?=",
            b"?",
            b"=",
            b"=C3",
            b"_",
            b"B",
            b"Q",
            b"\xff",
            "é".as_bytes(),
        ];
        let mut rng = Rng(2047);
        for i in 0..20_000 {
            let input = fuzz_input(&mut rng, i, seeds, tokens, 12);
            let text = String::from_utf8_lossy(&input);
            if let Some(decoded) = decode(&text) {
                let answered = encode(&decoded);
                assert!(answered.chars().all(plain), "{text:?} answered as {answered:?}");
            }
        }
    }
}
