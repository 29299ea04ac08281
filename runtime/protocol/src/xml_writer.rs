//! An XML document writer with the interface of `aws_smithy_xml::encode` (which still decodes
//! our XML), written here because encoding sits on every Query and REST-XML answer: this one
//! escapes by scanning bytes instead of searching for each escapable character in turn, and
//! appends instead of going through `format!` machinery. Profiling STS `GetCallerIdentity`
//! put the crate's escaping and formatting at a fifth of the gateway's own cost.
//!
//! Escaping matches the crate's (and so what the AWS SDKs expect): `&<>"'` as entities;
//! carriage return, line feed, NEL (U+0085) and LINE SEPARATOR (U+2028) as character references,
//! so that XML parsers' end-of-line normalisation cannot change them.

/// Writes a document into a `String`.
pub(crate) struct XmlWriter<'a> {
    doc: &'a mut String,
    millisecond_dates: bool,
}

impl<'a> XmlWriter<'a> {
    pub(crate) fn new(doc: &'a mut String) -> XmlWriter<'a> {
        XmlWriter::dated(doc, false)
    }

    /// A writer whose date-times carry milliseconds (`2023-11-15T12:02:40.000Z`) when
    /// `millisecond_dates`, as S3 writes them.
    pub(crate) fn dated(doc: &'a mut String, millisecond_dates: bool) -> XmlWriter<'a> {
        XmlWriter { doc, millisecond_dates }
    }

    /// Starts element `tag`: attributes and namespaces may follow until `finish`.
    pub(crate) fn start_el<'b, 'c>(&'c mut self, tag: &'b str) -> ElWriter<'c, 'b> {
        ElWriter::open(self.doc, tag, self.millisecond_dates)
    }
}

/// An element's start tag, open for attributes. Dropping it closes the tag.
pub(crate) struct ElWriter<'a, 'b> {
    tag: &'b str,
    /// `None` once the start tag has been closed.
    doc: Option<&'a mut String>,
    millisecond_dates: bool,
}

impl<'a, 'b> ElWriter<'a, 'b> {
    fn open(doc: &'a mut String, tag: &'b str, millisecond_dates: bool) -> ElWriter<'a, 'b> {
        doc.push('<');
        doc.push_str(tag);
        ElWriter {
            tag,
            doc: Some(doc),
            millisecond_dates,
        }
    }

    /// Whether the document's date-times carry milliseconds.
    pub(crate) fn millisecond_dates(&self) -> bool {
        self.millisecond_dates
    }

    fn doc(&mut self) -> &mut String {
        self.doc
            .as_mut()
            .expect("the start tag is open until finish consumes the writer")
    }

    pub(crate) fn write_attribute(&mut self, key: &str, value: &str) -> &mut Self {
        let doc = self.doc();
        doc.push(' ');
        doc.push_str(key);
        doc.push_str("=\"");
        escape_into(doc, value);
        doc.push('"');
        self
    }

    pub(crate) fn write_ns(mut self, namespace: &str, prefix: Option<&str>) -> Self {
        let doc = self.doc();
        doc.push_str(" xmlns");
        if let Some(prefix) = prefix {
            doc.push(':');
            doc.push_str(prefix);
        }
        doc.push_str("=\"");
        escape_into(doc, namespace);
        doc.push('"');
        self
    }

    /// Closes the start tag; the element's content follows.
    pub(crate) fn finish(mut self) -> ScopeWriter<'a, 'b> {
        let doc = self.doc.take().expect("finish consumes the writer");
        doc.push('>');
        ScopeWriter {
            doc,
            tag: self.tag,
            millisecond_dates: self.millisecond_dates,
        }
    }
}

impl ElWriter<'_, '_> {
    /// Ends the element as an empty-element tag (`<a/>`).
    pub(crate) fn finish_empty(mut self) {
        if let Some(doc) = self.doc.take() {
            doc.push_str("/>");
        }
    }
}

impl Drop for ElWriter<'_, '_> {
    fn drop(&mut self) {
        if let Some(doc) = self.doc.take() {
            doc.push('>');
        }
    }
}

/// An element's content. Dropping it (or `finish`) writes the end tag.
pub(crate) struct ScopeWriter<'a, 'b> {
    doc: &'a mut String,
    tag: &'b str,
    millisecond_dates: bool,
}

impl ScopeWriter<'_, '_> {
    /// Character data, escaped.
    pub(crate) fn data(&mut self, data: &str) {
        escape_into(self.doc, data);
    }

    pub(crate) fn start_el<'b, 'c>(&'c mut self, tag: &'b str) -> ElWriter<'c, 'b> {
        ElWriter::open(self.doc, tag, self.millisecond_dates)
    }

    pub(crate) fn finish(self) {}
}

impl Drop for ScopeWriter<'_, '_> {
    fn drop(&mut self) {
        self.doc.push_str("</");
        self.doc.push_str(self.tag);
        self.doc.push('>');
    }
}

/// Bytes that may start something to escape: the five entity characters, CR, LF, and the lead
/// bytes of NEL (`C2 85`) and LINE SEPARATOR (`E2 80 A8`).
const MAY_ESCAPE: [bool; 256] = {
    let mut table = [false; 256];
    let mut i = 0;
    let bytes = b"&<>\"'\r\n\xC2\xE2";
    while i < bytes.len() {
        table[bytes[i] as usize] = true;
        i += 1;
    }
    table
};

/// Appends `text` to `out`, escaped for element content and attribute values alike.
fn escape_into(out: &mut String, text: &str) {
    let bytes = text.as_bytes();
    let mut clean_from = 0;
    let mut i = 0;
    while let Some(offset) = bytes[i..].iter().position(|&b| MAY_ESCAPE[usize::from(b)]) {
        i += offset;
        let (replacement, width) = match bytes[i] {
            b'&' => ("&amp;", 1),
            b'<' => ("&lt;", 1),
            b'>' => ("&gt;", 1),
            b'"' => ("&quot;", 1),
            b'\'' => ("&apos;", 1),
            b'\r' => ("&#xD;", 1),
            b'\n' => ("&#xA;", 1),
            0xC2 if bytes.get(i + 1) == Some(&0x85) => ("&#x85;", 2),
            0xE2 if bytes.get(i + 1..i + 3) == Some(&[0x80, 0xA8]) => ("&#x2028;", 3),
            _ => {
                i += 1;
                continue;
            }
        };
        // Every match starts at a character boundary (ASCII, or a lead byte), so the slices
        // cut at character boundaries.
        out.push_str(&text[clean_from..i]);
        out.push_str(replacement);
        i += width;
        clean_from = i;
    }
    out.push_str(&text[clean_from..]);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn escaped(text: &str) -> String {
        let mut out = String::new();
        escape_into(&mut out, text);
        out
    }

    #[test]
    fn escapes_markup_and_line_ends_like_the_smithy_writer() {
        assert_eq!(escaped("<helo>&\"'"), "&lt;helo&gt;&amp;&quot;&apos;");
        assert_eq!(escaped("a\r\n b\n c\r"), "a&#xD;&#xA; b&#xA; c&#xD;");
        assert_eq!(escaped("a\r\u{85} b\u{85}"), "a&#xD;&#x85; b&#x85;");
        assert_eq!(escaped("a\u{2028}b\u{2029}"), "a&#x2028;b\u{2029}");
        assert_eq!(escaped("plain ünïcödé ✓"), "plain ünïcödé ✓");
    }

    #[test]
    fn writes_nested_elements_attributes_and_namespaces() {
        let mut doc = String::new();
        let mut writer = XmlWriter::new(&mut doc);
        let mut root = writer.start_el("Root").write_ns("http://x/&", None).finish();
        let mut child = root.start_el("Child");
        child.write_attribute("a", "1<2");
        let mut scope = child.write_ns("urn:p", Some("p")).finish();
        scope.data("hi & bye");
        scope.finish();
        root.start_el("Empty").finish();
        root.finish();
        assert_eq!(
            doc,
            r#"<Root xmlns="http://x/&amp;"><Child a="1&lt;2" xmlns:p="urn:p">hi &amp; bye</Child><Empty></Empty></Root>"#
        );
    }

    /// The same bytes as the crate this replaces, for random text over the characters that
    /// matter (and their UTF-8 neighbours).
    #[test]
    fn matches_aws_smithy_xml_on_random_text() {
        const ALPHABET: &[char] = &[
            'a', ' ', '&', '<', '>', '"', '\'', '\r', '\n', '\u{85}', '\u{84}', '\u{2028}', '\u{2029}', '\u{2027}',
            'é', '✓', '😀',
        ];
        let mut rng = stratus_test_support::Rng(0x0078_6d6c);
        for _ in 0..5000 {
            let text: String = (0..rng.below(12))
                .map(|_| ALPHABET[rng.below(ALPHABET.len())])
                .collect();
            let mut ours = String::new();
            XmlWriter::new(&mut ours).start_el("e").finish().data(&text);
            let mut theirs = String::new();
            aws_smithy_xml::encode::XmlWriter::new(&mut theirs)
                .start_el("e")
                .finish()
                .data(&text);
            assert_eq!(ours, theirs, "{text:?}");
        }
    }
}
