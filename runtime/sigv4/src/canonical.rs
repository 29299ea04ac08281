//! The canonical forms SigV4 signs, rebuilt from the request as it arrived on the wire: the
//! URI (encoded twice and normalised for every service but S3, which is encoded once and left
//! as it is), the sorted query string, and the signed headers with their values trimmed and
//! runs of spaces folded (AWS General Reference, "Create a canonical request").

/// Appends `bytes` percent-encoded as SigV4's `UriEncode`: everything but the unreserved
/// characters `A-Z a-z 0-9 - . _ ~` as `%XY` in upper case; `/` kept when `keep_slash`.
pub(crate) fn uri_encode_into(out: &mut Vec<u8>, bytes: &[u8], keep_slash: bool) {
    const UPPER: &[u8; 16] = b"0123456789ABCDEF";
    for &b in bytes {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') || (keep_slash && b == b'/') {
            out.push(b);
        } else {
            out.extend_from_slice(&[b'%', UPPER[usize::from(b >> 4)], UPPER[usize::from(b & 0xf)]]);
        }
    }
}

/// A query string's name or value decoded as a form is: `+` is a space, then [`percent_decode`].
pub(crate) fn form_decode(text: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    if !text.contains(&b'+') {
        return percent_decode(text);
    }
    let spaced: Vec<u8> = text.iter().map(|&b| if b == b'+' { b' ' } else { b }).collect();
    std::borrow::Cow::Owned(percent_decode(&spaced).into_owned())
}

/// `text` with its `%XY` escapes decoded; a `%` not followed by two hex digits stays as it is.
pub(crate) fn percent_decode(text: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    if !text.contains(&b'%') {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = Vec::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        if text[i] == b'%' {
            let pair = text.get(i + 1..i + 3);
            if let Some(byte) = pair.and_then(|p| Some((hex_value(p[0])? << 4) | hex_value(p[1])?)) {
                out.push(byte);
                i += 3;
                continue;
            }
        }
        out.push(text[i]);
        i += 1;
    }
    std::borrow::Cow::Owned(out)
}

fn hex_value(d: u8) -> Option<u8> {
    char::from(d).to_digit(16).map(|v| v as u8)
}

/// Appends the canonical URI of `raw_path` (the path as sent, still percent-encoded).
///
/// S3 signs each segment encoded once: the segment is decoded and encoded again, so an
/// escaped `/` inside a key stays `%2F` and empty or dot segments stay. Every other service
/// signs the path normalised (RFC 3986 dot segments removed, empty segments dropped) and then
/// encoded a second time, so `%20` on the wire is `%2520` in the canonical request.
pub(crate) fn canonical_uri_into(out: &mut Vec<u8>, raw_path: &str, s3: bool) {
    let path = if raw_path.is_empty() { "/" } else { raw_path };
    if s3 {
        for (i, segment) in path.split('/').enumerate() {
            if i > 0 {
                out.push(b'/');
            }
            uri_encode_into(out, &percent_decode(segment.as_bytes()), false);
        }
        return;
    }
    let mut kept: Vec<&str> = Vec::new();
    for segment in path.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                kept.pop();
            }
            s => kept.push(s),
        }
    }
    out.push(b'/');
    for (i, segment) in kept.iter().enumerate() {
        if i > 0 {
            out.push(b'/');
        }
        uri_encode_into(out, segment.as_bytes(), false);
    }
    let ends_in_slash = path.ends_with('/') || path.ends_with("/.") || path.ends_with("/..");
    if !kept.is_empty() && ends_in_slash {
        out.push(b'/');
    }
}

/// Appends the canonical query string of `raw_query` (without the `?`): each name and value
/// decoded (as a form: `+` is a space, as the AWS SDKs read it) and encoded again with [`uri_encode_into`], sorted by name then value, and joined
/// with `&`; a parameter without `=` has an empty value. `skip` names a parameter left out
/// (the presigned `X-Amz-Signature`).
pub(crate) fn canonical_query_into(out: &mut Vec<u8>, raw_query: &str, skip: Option<&str>) {
    if raw_query.is_empty() {
        return;
    }
    let mut pairs: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
    for param in raw_query.split('&').filter(|p| !p.is_empty()) {
        let (name, value) = param.split_once('=').unwrap_or((param, ""));
        let name = form_decode(name.as_bytes());
        if skip.is_some_and(|s| s.as_bytes() == &*name) {
            continue;
        }
        let mut encoded_name = Vec::with_capacity(name.len());
        uri_encode_into(&mut encoded_name, &name, false);
        let mut encoded_value = Vec::with_capacity(value.len());
        uri_encode_into(&mut encoded_value, &form_decode(value.as_bytes()), false);
        pairs.push((encoded_name, encoded_value));
    }
    pairs.sort_unstable();
    for (i, (name, value)) in pairs.iter().enumerate() {
        if i > 0 {
            out.push(b'&');
        }
        out.extend_from_slice(name);
        out.push(b'=');
        out.extend_from_slice(value);
    }
}

/// Appends a header value as SigV4 signs it: spaces trimmed from both ends and each run of
/// spaces inside folded to one.
pub(crate) fn header_value_into(out: &mut Vec<u8>, value: &[u8]) {
    let start = value.iter().position(|&b| b != b' ').unwrap_or(value.len());
    let end = value.iter().rposition(|&b| b != b' ').map_or(start, |i| i + 1);
    let mut previous_space = false;
    for &b in &value[start..end] {
        if b == b' ' {
            if previous_space {
                continue;
            }
            previous_space = true;
        } else {
            previous_space = false;
        }
        out.push(b);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn uri(path: &str, s3: bool) -> String {
        let mut out = Vec::new();
        canonical_uri_into(&mut out, path, s3);
        String::from_utf8(out).unwrap()
    }

    fn query(q: &str) -> String {
        let mut out = Vec::new();
        canonical_query_into(&mut out, q, Some("X-Amz-Signature"));
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn uris() {
        assert_eq!(uri("", false), "/");
        assert_eq!(uri("/", false), "/");
        assert_eq!(uri("/foo/../bar/./baz/", false), "/bar/baz/");
        assert_eq!(uri("//a//b", false), "/a/b");
        assert_eq!(uri("/foo/..", false), "/");
        assert_eq!(uri("/a%20b", false), "/a%2520b");
        assert_eq!(uri("/a%20b", true), "/a%20b");
        assert_eq!(uri("/bucket/a%2Fb//./c", true), "/bucket/a%2Fb//./c");
        assert_eq!(uri("/bucket/caf%c3%a9+~!", true), "/bucket/caf%C3%A9%2B~%21");
    }

    #[test]
    fn queries() {
        assert_eq!(query(""), "");
        assert_eq!(query("b=2&a=1&a=0&c"), "a=0&a=1&b=2&c=");
        assert_eq!(query("k=a%20b&x=%7e&X-Amz-Signature=ff"), "k=a%20b&x=~");
        assert_eq!(query("sp ace=+&&p=%2B"), "p=%2B&sp%20ace=%20");
    }

    #[test]
    fn header_values() {
        let fold = |v: &str| {
            let mut out = Vec::new();
            header_value_into(&mut out, v.as_bytes());
            String::from_utf8(out).unwrap()
        };
        assert_eq!(fold("  a   b  c "), "a b c");
        assert_eq!(fold("    "), "");
        assert_eq!(fold("\tx\t"), "\tx\t");
    }
}
