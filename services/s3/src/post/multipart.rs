//! A streaming `multipart/form-data` reader (RFC 7578 on RFC 2046 §5.1) for browser POST
//! uploads: the fields before the `file` part are read whole, at most [`MAX_PRE_DATA`] bytes
//! of them as S3 allows ("The form data and boundaries (excluding the contents of the file)
//! cannot exceed 20KB", POST Object in the S3 API reference), and the file part is then read
//! as it arrives, so the upload is never held in memory. What follows the file part is
//! ignored, as S3 ignores it.

use std::fmt;
use std::io::{self, Read};

/// The most bytes of fields and boundaries that may precede the file's content (S3's
/// `MaxPostPreDataLengthBytes`, 20480 in its error documents).
pub(crate) const MAX_PRE_DATA: usize = 20 * 1024;
/// How much is read from the body at a time.
const CHUNK: usize = 64 * 1024;
/// RFC 2046: a boundary is 1 to 70 characters.
const MAX_BOUNDARY: usize = 70;

/// Why a form could not be read.
#[derive(Debug)]
pub(crate) enum FormError {
    /// Not well-formed multipart/form-data.
    Malformed,
    /// More than [`MAX_PRE_DATA`] bytes before the file's content.
    TooLarge,
    /// The body could not be read.
    Read(io::Error),
}

impl fmt::Display for FormError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FormError::Malformed => f.write_str("malformed multipart/form-data"),
            FormError::TooLarge => f.write_str("the fields before the file are too large"),
            FormError::Read(e) => write!(f, "reading the form: {e}"),
        }
    }
}

impl std::error::Error for FormError {}

/// The boundary a `Content-Type` of `multipart/form-data` names: `Ok(None)` for another
/// media type, `Err` for multipart/form-data without a usable boundary.
pub(crate) fn boundary(content_type: &str) -> Result<Option<String>, FormError> {
    let params = split_params(content_type);
    let media_type = params[0].trim();
    if !media_type.eq_ignore_ascii_case("multipart/form-data") {
        return Ok(None);
    }
    let boundary = params[1..]
        .iter()
        .filter_map(|p| p.split_once('='))
        .find(|(name, _)| name.trim().eq_ignore_ascii_case("boundary"))
        .map(|(_, value)| unquote(value.trim()))
        .ok_or(FormError::Malformed)?;
    if boundary.is_empty() || boundary.len() > MAX_BOUNDARY {
        return Err(FormError::Malformed);
    }
    Ok(Some(boundary))
}

/// A form field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Field {
    /// The name as sent.
    pub name: String,
    pub value: String,
}

/// A form read up to its file part.
pub(crate) struct Form<R> {
    /// The fields before the file part, in order.
    pub fields: Vec<Field>,
    /// The file part, when the form has one.
    pub file: Option<FilePart<R>>,
}

/// Reads the fields of the form in `body` (delimited by `boundary`) up to its `file` part.
pub(crate) fn read<R: Read>(body: R, boundary: &str) -> Result<Form<R>, FormError> {
    // The delimiter is CRLF "--" boundary; a body begins with the boundary itself, so a
    // CRLF stands in front of it.
    let mut reader = Reader {
        body,
        buf: b"\r\n".to_vec(),
        start: 0,
        scratch: vec![0; CHUNK].into_boxed_slice(),
        taken: 0,
        eof: false,
        delimiter: format!("\r\n--{boundary}").into_bytes(),
    };
    let first = reader.find_delimiter()?;
    reader.skip(first + reader.delimiter.len());
    let mut fields = Vec::new();
    loop {
        let Some(part) = reader.part_headers()? else {
            return Ok(Form { fields, file: None });
        };
        if part.is_file() {
            return Ok(Form {
                fields,
                file: Some(FilePart {
                    filename: part.filename,
                    reader,
                    content: 0,
                    at_delimiter: false,
                }),
            });
        }
        let end = reader.find_delimiter()?;
        let value = reader.take(end);
        reader.skip(reader.delimiter.len());
        fields.push(Field {
            name: part.name,
            value: String::from_utf8(value).map_err(|_| FormError::Malformed)?,
        });
    }
}

/// The file part: its file name, and a reader of its content, which ends at the next
/// delimiter. A body that ends before that delimiter fails with [`FormError::Malformed`]
/// (inside an `io::Error`).
pub(crate) struct FilePart<R> {
    /// The `filename` parameter, if the part has one.
    pub filename: Option<String>,
    reader: Reader<R>,
    /// Pending bytes known to be content (no delimiter begins among them).
    content: usize,
    /// Whether the delimiter follows those bytes.
    at_delimiter: bool,
}

impl<R: Read> Read for FilePart<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        loop {
            if self.content > 0 {
                let n = self.content.min(out.len());
                out[..n].copy_from_slice(&self.reader.pending()[..n]);
                self.reader.skip(n);
                self.content -= n;
                return Ok(n);
            }
            if self.at_delimiter || out.is_empty() {
                return Ok(0);
            }
            // Content up to the delimiter, or all but a tail that could begin one: a byte is
            // searched again only while it could begin the delimiter.
            let pending = self.reader.pending();
            let delimiter = &self.reader.delimiter;
            match find(pending, delimiter) {
                Some(at) => (self.content, self.at_delimiter) = (at, true),
                None => self.content = pending.len().saturating_sub(delimiter.len() - 1),
            }
            if self.content > 0 || self.at_delimiter {
                continue;
            }
            if !self.reader.fill()? {
                return Err(io::Error::other(FormError::Malformed));
            }
        }
    }
}

/// A part's `Content-Disposition`.
struct PartHeaders {
    form_data: bool,
    name: String,
    filename: Option<String>,
}

impl PartHeaders {
    /// S3 takes only a `form-data` part named `file` as the file (a `file` disposition is a
    /// field: MaxPostPreDataLengthExceeded in the captures of stackoverflow.com/q/18541652).
    fn is_file(&self) -> bool {
        self.form_data && self.name.eq_ignore_ascii_case("file")
    }
}

/// The body, buffered: `buf[start..]` holds what has been read and not yet taken.
struct Reader<R> {
    body: R,
    buf: Vec<u8>,
    start: usize,
    /// Where the body is read into before it joins `buf`.
    scratch: Box<[u8]>,
    /// Bytes taken from the front of `buf` so far.
    taken: usize,
    eof: bool,
    delimiter: Vec<u8>,
}

impl<R: Read> Reader<R> {
    /// Reads more of the body into `buf`; false at its end.
    fn fill(&mut self) -> io::Result<bool> {
        if self.eof {
            return Ok(false);
        }
        self.buf.drain(..self.start);
        self.start = 0;
        let n = loop {
            match self.body.read(&mut self.scratch) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                other => break other?,
            }
        };
        self.buf.extend_from_slice(&self.scratch[..n]);
        self.eof = n == 0;
        Ok(n > 0)
    }

    /// What has been read and not yet taken.
    fn pending(&self) -> &[u8] {
        &self.buf[self.start..]
    }

    /// Takes the first `n` pending bytes.
    fn take(&mut self, n: usize) -> Vec<u8> {
        let taken = self.pending()[..n].to_vec();
        self.skip(n);
        taken
    }

    /// Drops the first `n` pending bytes.
    fn skip(&mut self, n: usize) {
        self.start += n;
        self.taken += n;
    }

    /// Where the next delimiter begins in `buf`, as [`Reader::find_within_limit`] finds it.
    fn find_delimiter(&mut self) -> Result<usize, FormError> {
        let delimiter = std::mem::take(&mut self.delimiter);
        let found = self.find_within_limit(&delimiter);
        self.delimiter = delimiter;
        found
    }

    /// Where `needle` begins in `buf`, reading as needed, if it ends within the pre-data limit.
    fn find_within_limit(&mut self, needle: &[u8]) -> Result<usize, FormError> {
        loop {
            if let Some(at) = find(self.pending(), needle) {
                if self.taken + at + needle.len() > MAX_PRE_DATA {
                    return Err(FormError::TooLarge);
                }
                return Ok(at);
            }
            if self.taken + self.pending().len() > MAX_PRE_DATA {
                return Err(FormError::TooLarge);
            }
            if !self.fill().map_err(FormError::Read)? {
                return Err(FormError::Malformed);
            }
        }
    }

    /// After a delimiter: the next part's headers, or `None` at the close delimiter.
    fn part_headers(&mut self) -> Result<Option<PartHeaders>, FormError> {
        while self.pending().len() < 2 && self.fill().map_err(FormError::Read)? {}
        if self.pending().starts_with(b"--") {
            return Ok(None);
        }
        // The rest of the delimiter line (transport padding), the header lines, a blank line.
        let end = self.find_within_limit(b"\r\n\r\n")?;
        let block = self.take(end + 4);
        let text = std::str::from_utf8(&block[..end]).map_err(|_| FormError::Malformed)?;
        let mut lines = text.split("\r\n");
        let padding = lines.next().unwrap_or_default();
        if !padding.bytes().all(|b| b == b' ' || b == b'\t') {
            return Err(FormError::Malformed);
        }
        let mut disposition = None;
        for line in lines {
            let (name, value) = line.split_once(':').ok_or(FormError::Malformed)?;
            if name.trim().eq_ignore_ascii_case("content-disposition") {
                disposition = Some(parse_disposition(value)?);
            }
        }
        disposition.map(Some).ok_or(FormError::Malformed)
    }
}

/// `form-data; name="key"; filename="a.txt"`.
fn parse_disposition(value: &str) -> Result<PartHeaders, FormError> {
    let params = split_params(value);
    let mut items = params.iter();
    let kind = items.next().map(|s| s.trim()).unwrap_or_default();
    let mut name = None;
    let mut filename = None;
    for param in items {
        let Some((key, value)) = param.split_once('=') else {
            continue;
        };
        let value = unquote(value.trim());
        match key.trim().to_ascii_lowercase().as_str() {
            "name" => name = Some(value),
            "filename" => filename = Some(value),
            _ => {}
        }
    }
    Ok(PartHeaders {
        form_data: kind.eq_ignore_ascii_case("form-data"),
        name: name.ok_or(FormError::Malformed)?,
        filename,
    })
}

/// `value` split at the semicolons outside quoted strings (one item at least).
fn split_params(value: &str) -> Vec<&str> {
    let mut params = Vec::new();
    let (mut start, mut quoted) = (0, false);
    for (i, c) in value.char_indices() {
        match c {
            '"' => quoted = !quoted,
            ';' if !quoted => {
                params.push(&value[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    params.push(&value[start..]);
    params
}

/// A parameter value without its quotes. Backslashes are not escapes: browsers percent-encode
/// a quote in a file name (WHATWG HTML, "multipart/form-data encoding algorithm"), and old ones
/// sent Windows paths, backslashes and all ("only the text following the last slash (/) or
/// backslash (\\) is used").
fn unquote(value: &str) -> String {
    let inner = value.strip_prefix('"').and_then(|v| v.strip_suffix('"'));
    inner.unwrap_or(value).to_owned()
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;
    use stratus_test_support::{mutate, Rng};

    const BOUNDARY: &str = "9431149156168";

    /// A form as browsers (and boto3's documented uploads) send it.
    fn body(fields: &[(&str, &str)], file: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        for (name, value) in fields {
            out.extend(
                format!("--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n").bytes(),
            );
        }
        out.extend(format!("--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"C:\\dir\\a.txt\"\r\nContent-Type: text/plain\r\n\r\n").bytes());
        out.extend(file);
        out.extend(format!("\r\n--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"submit\"\r\n\r\nUpload\r\n--{BOUNDARY}--\r\n").bytes());
        out
    }

    /// Reads the form in `body` through a reader that hands out `step` bytes at a time.
    /// A file part's name and content.
    type File = (Option<String>, Vec<u8>);

    fn read_all(body: &[u8], step: usize) -> Result<(Vec<Field>, Option<File>), FormError> {
        let form = read(Trickle(body, step), BOUNDARY)?;
        let file = match form.file {
            Some(mut file) => {
                let mut content = Vec::new();
                file.read_to_end(&mut content).map_err(FormError::Read)?;
                Some((file.filename.take(), content))
            }
            None => None,
        };
        Ok((form.fields, file))
    }

    struct Trickle<'a>(&'a [u8], usize);

    impl Read for Trickle<'_> {
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            let n = self.0.len().min(self.1).min(out.len());
            out[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    #[test]
    fn boundaries_from_content_types() {
        let ct = "multipart/form-data; boundary=9431149156168";
        assert_eq!(boundary(ct).unwrap().as_deref(), Some(BOUNDARY));
        let quoted = "Multipart/Form-Data; charset=utf-8; Boundary=\"a b;c\"";
        assert_eq!(boundary(quoted).unwrap().as_deref(), Some("a b;c"));
        assert_eq!(boundary("text/html").unwrap(), None);
        assert!(matches!(boundary("multipart/form-data"), Err(FormError::Malformed)));
        let long = format!("multipart/form-data; boundary={}", "x".repeat(71));
        assert!(matches!(boundary(&long), Err(FormError::Malformed)));
    }

    #[test]
    fn reads_fields_then_streams_the_file_and_ignores_what_follows() {
        let content: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
        let body = body(&[("key", "user/${filename}"), ("x-amz-meta-Tag", "ä")], &content);
        for step in [1, 7, 4096, usize::MAX] {
            let (fields, file) = read_all(&body, step).unwrap();
            assert_eq!(
                fields,
                vec![
                    Field {
                        name: "key".into(),
                        value: "user/${filename}".into()
                    },
                    Field {
                        name: "x-amz-meta-Tag".into(),
                        value: "ä".into()
                    },
                ]
            );
            let (filename, read) = file.unwrap();
            assert_eq!(filename.as_deref(), Some("C:\\dir\\a.txt"));
            assert!(read == content, "step {step}");
        }
    }

    #[test]
    fn content_that_resembles_a_delimiter_is_content() {
        let tricky = format!("a\r\n--{}\r\n-{BOUNDARY}", &BOUNDARY[..5]);
        let (_, file) = read_all(&body(&[], tricky.as_bytes()), 3).unwrap();
        assert_eq!(file.unwrap().1, tricky.as_bytes());
    }

    #[test]
    fn preamble_padding_and_empty_parts() {
        let body = format!(
            "preamble\r\n--{BOUNDARY}  \r\nContent-Disposition: form-data; name=key\r\n\r\n\r\n--{BOUNDARY}\r\ncontent-disposition: form-data; name=\"file\"\r\n\r\n\r\n--{BOUNDARY}--"
        );
        let (fields, file) = read_all(body.as_bytes(), 5).unwrap();
        assert_eq!(
            fields,
            vec![Field {
                name: "key".into(),
                value: String::new()
            }]
        );
        assert_eq!(file.unwrap(), (None, Vec::new()));
    }

    #[test]
    fn a_form_without_a_file_part() {
        let body =
            format!("--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"key\"\r\n\r\nk\r\n--{BOUNDARY}--\r\n");
        let (fields, file) = read_all(body.as_bytes(), 64).unwrap();
        assert_eq!(fields.len(), 1);
        assert!(file.is_none());
        // A `file` disposition is not the file.
        let other = body.replace("form-data; name=\"key\"", "file; name=\"file\"");
        assert!(read_all(other.as_bytes(), 64).unwrap().1.is_none());
    }

    #[test]
    fn refuses_malformed_forms() {
        let cases = [
            String::new(),
            "no boundary at all".into(),
            format!("--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"key\"\r\n\r\nunterminated"),
            format!("--{BOUNDARY}\r\nContent-Disposition: form-data\r\n\r\nv\r\n--{BOUNDARY}--"),
            format!("--{BOUNDARY}\r\nno colon here\r\n\r\nv\r\n--{BOUNDARY}--"),
            format!("--{BOUNDARY}junk\r\nContent-Disposition: form-data; name=\"k\"\r\n\r\nv\r\n--{BOUNDARY}--"),
            format!("--{BOUNDARY}\r\n\r\nheaderless\r\n--{BOUNDARY}--"),
        ];
        for case in cases {
            assert!(
                matches!(read_all(case.as_bytes(), 3), Err(FormError::Malformed)),
                "{case:?}"
            );
        }
        // A file whose closing delimiter never comes.
        let mut cut = body(&[("key", "k")], b"content");
        cut.truncate(cut.len() - 80);
        let error = read_all(&cut, 9).err().unwrap();
        let FormError::Read(e) = error else { panic!("{error:?}") };
        assert!(matches!(
            e.get_ref().and_then(|e| e.downcast_ref::<FormError>()),
            Some(FormError::Malformed)
        ));
    }

    #[test]
    fn limits_what_precedes_the_file() {
        let value = "v".repeat(MAX_PRE_DATA);
        assert!(matches!(
            read_all(&body(&[("x-ignore-a", &value)], b"f"), 1000),
            Err(FormError::TooLarge)
        ));
        let fits = "v".repeat(MAX_PRE_DATA - 300);
        assert!(read_all(&body(&[("x-ignore-a", &fits)], b"f"), 1000).is_ok());
        // The file's own size is not limited.
        assert!(read_all(&body(&[], &vec![b'x'; 3 * MAX_PRE_DATA]), usize::MAX).is_ok());
    }

    #[test]
    fn never_panics_on_mutated_forms() {
        let seed = body(&[("key", "a/${filename}"), ("Policy", "eyJ9")], b"some\r\n-content");
        let tokens: &[&[u8]] = &[
            b"\r\n",
            b"--",
            BOUNDARY.as_bytes(),
            b"\"",
            b";",
            b"name=",
            b"file",
            b"\r\n\r\n",
            b"\\",
        ];
        let mut rng = Rng(0x5eed_f0a1);
        for _ in 0..20_000 {
            let bytes = mutate(&mut rng, &seed, tokens);
            let step = 1 + rng.below(40);
            let _ = read_all(&bytes, step);
        }
    }
}
