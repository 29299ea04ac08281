//! Percent-decoding of URI paths, query strings and `application/x-www-form-urlencoded`
//! bodies.

use std::borrow::Cow;

/// A decoded `name=value` pair, borrowed from the text where nothing needed decoding.
pub type Pair<'a> = (Cow<'a, str>, Cow<'a, str>);

/// Decodes `%XX` escapes (and, in query strings and forms, `+` as a space), borrowing the
/// text when it has none. A `%` not followed by two hex digits stays as it is. `None` when the
/// result is not UTF-8.
pub fn decode(text: &str, plus_is_space: bool) -> Option<Cow<'_, str>> {
    let bytes = text.as_bytes();
    if !bytes.iter().any(|&b| b == b'%' || (plus_is_space && b == b'+')) {
        return Some(Cow::Borrowed(text));
    }
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => match (bytes.get(i + 1).and_then(hex), bytes.get(i + 2).and_then(hex)) {
                (Some(hi), Some(lo)) => {
                    out.push(hi << 4 | lo);
                    i += 3;
                    continue;
                }
                _ => out.push(b'%'),
            },
            b'+' if plus_is_space => out.push(b' '),
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8(out).ok().map(Cow::Owned)
}

fn hex(b: &u8) -> Option<u8> {
    (*b as char).to_digit(16).map(|d| d as u8)
}

/// The `name=value` pairs of a query string or form body, decoded, in order. A pair without
/// `=` has an empty value; a pair that is not UTF-8 once decoded is an `Err` naming it.
pub fn pairs(text: &str) -> impl Iterator<Item = Result<Pair<'_>, String>> {
    text.split('&').filter(|pair| !pair.is_empty()).map(|pair| {
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        match (decode(name, true), decode(value, true)) {
            (Some(n), Some(v)) => Ok((n, v)),
            _ => Err(format!("the parameter {pair:?} is not UTF-8 once percent-decoded")),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_escapes_plus_and_stray_percents() {
        assert_eq!(decode("a%20b+c%2F%", true).as_deref(), Some("a b c/%"));
        assert_eq!(decode("a+b", false).as_deref(), Some("a+b"));
        assert_eq!(decode("%ff", false), None);
        assert_eq!(
            pairs("Action=AssumeRole&flag&x=%E2%82%AC")
                .collect::<Result<Vec<_>, _>>()
                .unwrap(),
            vec![
                ("Action".into(), "AssumeRole".into()),
                ("flag".into(), "".into()),
                ("x".into(), "€".into())
            ]
        );
        assert!(pairs("a=%C0").any(|pair| pair.is_err()));
    }
}
