//! The `tagging` field of a POST upload: a `<Tagging><TagSet><Tag><Key>…</Key><Value>…</Value>
//! </Tag>…</TagSet></Tagging>` document (POST Object in the S3 API reference), read by a small
//! XML reader that needs no schema. As LocalStack's AWS-validated `TestS3PresignedPost`
//! recordings of tagged uploads show, a document that is not XML is `MalformedXML`, and a
//! well-formed one with another root element gives no tags.

/// The tags the document holds, in order; `None` when it is not well-formed XML.
pub(super) fn parse(document: &str) -> Option<Vec<(String, String)>> {
    let root = element_tree(document)?;
    if root.name != "Tagging" {
        return Some(Vec::new());
    }
    let tags = root
        .children
        .iter()
        .filter(|set| set.name == "TagSet")
        .flat_map(|set| set.children.iter().filter(|tag| tag.name == "Tag"))
        .map(|tag| {
            let text = |name: &str| {
                tag.children
                    .iter()
                    .find(|c| c.name == name)
                    .map(|c| c.text.clone())
                    .unwrap_or_default()
            };
            (text("Key"), text("Value"))
        })
        .collect();
    Some(tags)
}

/// An element: its name (without a namespace prefix), children and text.
#[derive(Debug, Default)]
struct Element {
    name: String,
    children: Vec<Element>,
    text: String,
}

/// The document's root element, or `None` if the document is not well-formed (as far as
/// elements, text, character references, comments and the XML declaration go).
fn element_tree(document: &str) -> Option<Element> {
    let mut rest = document.trim_start_matches('\u{feff}').trim_start();
    if let Some(declared) = rest.strip_prefix("<?xml") {
        rest = declared.split_once("?>")?.1;
    }
    // The open elements, innermost last; the root once closed.
    let mut open: Vec<Element> = Vec::new();
    let mut root = None;
    loop {
        let (text, after) = match rest.find('<') {
            Some(at) => rest.split_at(at),
            None => (rest, ""),
        };
        match open.last_mut() {
            Some(element) => element.text.push_str(&unescape(text)?),
            None if !text.trim().is_empty() => return None,
            None => {}
        }
        if after.is_empty() {
            break;
        }
        let (tag, remainder) = after[1..].split_once('>')?;
        rest = remainder;
        if let Some(comment) = tag.strip_prefix("!--") {
            if !comment.ends_with("--") {
                let end = rest.find("-->")?;
                rest = &rest[end + 3..];
            }
        } else if let Some(name) = tag.strip_prefix('/') {
            let element = open.pop()?;
            if local_name(name.trim()) != element.name {
                return None;
            }
            match open.last_mut() {
                Some(parent) => parent.children.push(element),
                None if root.is_none() => root = Some(element),
                None => return None,
            }
        } else {
            let self_closing = tag.ends_with('/');
            let tag = tag.trim_end_matches('/');
            let name = local_name(tag.split_whitespace().next()?);
            let valid = |c: char| c.is_alphanumeric() || matches!(c, '-' | '_' | '.');
            if name.is_empty() || !name.chars().all(valid) || (open.is_empty() && root.is_some()) {
                return None;
            }
            let element = Element {
                name: name.to_owned(),
                ..Element::default()
            };
            match (self_closing, open.last_mut()) {
                (false, _) => open.push(element),
                (true, Some(parent)) => parent.children.push(element),
                (true, None) => root = Some(element),
            }
        }
    }
    if !open.is_empty() {
        return None;
    }
    root
}

fn local_name(name: &str) -> &str {
    name.rsplit_once(':').map_or(name, |(_, local)| local)
}

/// Text with its entity and character references resolved; `None` for a broken one.
fn unescape(text: &str) -> Option<String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        let (reference, after) = rest[at + 1..].split_once(';')?;
        out.push(match reference {
            "lt" => '<',
            "gt" => '>',
            "amp" => '&',
            "quot" => '"',
            "apos" => '\'',
            _ => {
                let code = match reference.strip_prefix("#x") {
                    Some(hex) => u32::from_str_radix(hex, 16).ok()?,
                    None => reference.strip_prefix('#')?.parse().ok()?,
                };
                char::from_u32(code)?
            }
        });
        rest = after;
    }
    out.push_str(rest);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use stratus_test_support::{mutate, Rng};

    #[test]
    fn reads_tag_sets() {
        let doc = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Tagging xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><TagSet><Tag><Key>a &amp; b</Key><Value>&#x263A;</Value></Tag><!-- note --><Tag><Key>k</Key><Value/></Tag></TagSet></Tagging>";
        assert_eq!(
            parse(doc).unwrap(),
            vec![
                ("a & b".to_string(), "\u{263a}".to_string()),
                ("k".to_string(), String::new())
            ]
        );
        assert_eq!(parse("<InvalidXmlTagging></InvalidXmlTagging>").unwrap(), vec![]);
    }

    #[test]
    fn refuses_what_is_not_xml() {
        for doc in [
            "not-xml",
            "",
            "<Tagging>",
            "<a></b>",
            "<a/><b/>",
            "<a>&bogus;</a>",
            "x<a/>",
            "<a><</a>",
        ] {
            assert_eq!(parse(doc), None, "{doc:?}");
        }
    }

    #[test]
    fn never_panics_on_mutated_documents() {
        let seed =
            b"<?xml version=\"1.0\"?><Tagging><TagSet><Tag><Key>k&lt;</Key><Value>v</Value></Tag></TagSet></Tagging>";
        let tokens: &[&[u8]] = &[
            b"<",
            b">",
            b"/",
            b"&",
            b";",
            b"&#x",
            b"<!--",
            b"-->",
            b"<?xml",
            b"?>",
            "\u{e9}".as_bytes(),
        ];
        let mut rng = Rng(0x7a95);
        for _ in 0..20_000 {
            let bytes = mutate(&mut rng, seed, tokens);
            if let Ok(text) = std::str::from_utf8(&bytes) {
                let _ = parse(text);
            }
        }
    }
}
