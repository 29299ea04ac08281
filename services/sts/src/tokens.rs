//! Reading what callers hand STS: web identity tokens (JWTs), SAML assertions, policy JSON
//! and authorization messages. Nothing is verified cryptographically.

use stratus_core::json::{decode, KeyNames};
use stratus_core::prelude_shapes::DOCUMENT;
use stratus_core::{Document, Value};

/// The claims of a web identity token that STS echoes back.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Claims {
    pub subject: Option<String>,
    pub audience: Option<String>,
    pub issuer: Option<String>,
}

/// Parses `text` as JSON.
pub(crate) fn check_json(text: &str) -> Result<Document, ()> {
    match decode(&DOCUMENT, text.as_bytes(), KeyNames::Member) {
        Ok(Value::Document(doc)) => Ok(*doc),
        _ => Err(()),
    }
}

/// The claims of a JWT (`header.payload.signature`, base64url).
pub(crate) fn jwt_claims(token: &str) -> Result<Claims, &'static str> {
    const NOT_JWT: &str =
        "The ID Token provided is not a valid JWT. (You may see this error if you sent an Access Token)";
    let mut parts = token.split('.');
    let (Some(_header), Some(payload), Some(_signature), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(NOT_JWT);
    };
    let json = base64url(payload).ok_or(NOT_JWT)?;
    let Ok(Document::Map(entries)) = check_json(std::str::from_utf8(&json).map_err(|_| NOT_JWT)?) else {
        return Err(NOT_JWT);
    };
    let claim = |name: &str| {
        entries.iter().find(|(k, _)| k == name).and_then(|(_, v)| match v {
            Document::String(s) => Some(s.clone()),
            Document::List(items) => items.iter().find_map(|i| match i {
                Document::String(s) => Some(s.clone()),
                _ => None,
            }),
            _ => None,
        })
    };
    Ok(Claims {
        subject: claim("sub"),
        audience: claim("aud"),
        issuer: claim("iss").map(|i| i.trim_start_matches("https://").to_string()),
    })
}

fn base64url(text: &str) -> Option<Vec<u8>> {
    let mut standard: String = text
        .chars()
        .map(|c| match c {
            '-' => '+',
            '_' => '/',
            c => c,
        })
        .collect();
    while !standard.len().is_multiple_of(4) {
        standard.push('=');
    }
    aws_smithy_types::base64::decode(&standard).ok()
}

/// What STS echoes from a SAML assertion.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Assertion {
    pub subject: Option<String>,
    pub subject_type: Option<String>,
    pub issuer: Option<String>,
    pub audience: Option<String>,
    pub session_name: Option<String>,
}

/// Reads a base64 SAML response: issuer, subject (NameID and its format), audience and the
/// `RoleSessionName` attribute.
pub(crate) fn saml_assertion(encoded: &str) -> Result<Assertion, &'static str> {
    const INVALID: &str = "Invalid SAML response";
    let xml = aws_smithy_types::base64::decode(encoded.trim()).map_err(|_| INVALID)?;
    let xml = String::from_utf8(xml).map_err(|_| INVALID)?;
    if !xml.contains("Assertion") {
        return Err(INVALID);
    }
    let name_id = element(&xml, "NameID");
    let subject_type = name_id
        .and_then(|(attrs, _)| attribute(attrs, "Format"))
        .map(|format| format.rsplit(':').next().unwrap_or(format).to_string());
    let session_name = xml
        .find("https://aws.amazon.com/SAML/Attributes/RoleSessionName")
        .and_then(|at| element(&xml[at..], "AttributeValue"))
        .map(|(_, text)| text.to_string());
    Ok(Assertion {
        subject: name_id.map(|(_, text)| text.to_string()),
        subject_type,
        issuer: element(&xml, "Issuer").map(|(_, text)| text.to_string()),
        audience: element(&xml, "Audience").map(|(_, text)| text.to_string()),
        session_name,
    })
}

/// The attributes and text of the first element with local name `name` (any prefix).
fn element<'x>(xml: &'x str, name: &str) -> Option<(&'x str, &'x str)> {
    let mut rest = xml;
    while let Some(open) = rest.find('<') {
        rest = &rest[open + 1..];
        let end_of_name = rest.find(|c: char| c.is_whitespace() || c == '>' || c == '/')?;
        let tag = &rest[..end_of_name];
        if tag.rsplit(':').next() == Some(name) && !tag.starts_with('/') {
            let close = rest.find('>')?;
            let attrs = &rest[end_of_name..close];
            let body = &rest[close + 1..];
            let text_end = body.find('<').unwrap_or(body.len());
            return Some((attrs, body[..text_end].trim()));
        }
    }
    None
}

fn attribute<'x>(attrs: &'x str, name: &str) -> Option<&'x str> {
    let at = attrs.find(&format!("{name}=\""))? + name.len() + 2;
    let len = attrs[at..].find('"')?;
    Some(&attrs[at..at + len])
}

/// Authorization messages Stratus would encode are base64 JSON; anything else is invalid.
pub(crate) fn decode_authorization_message(encoded: &str) -> Option<String> {
    let bytes = aws_smithy_types::base64::decode(encoded.trim()).ok()?;
    let text = String::from_utf8(bytes).ok()?;
    matches!(check_json(&text), Ok(Document::Map(_))).then_some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b64(s: &str) -> String {
        aws_smithy_types::base64::encode(s)
    }

    #[test]
    fn jwt_claims_are_read() {
        let payload = b64(r#"{"sub":"user-1","aud":["client-a"],"iss":"https://accounts.example.com"}"#)
            .replace('+', "-")
            .replace('/', "_")
            .trim_end_matches('=')
            .to_string();
        let claims = jwt_claims(&format!("eyJhbGciOiJub25lIn0.{payload}.sig")).unwrap();
        assert_eq!(claims.subject.as_deref(), Some("user-1"));
        assert_eq!(claims.audience.as_deref(), Some("client-a"));
        assert_eq!(claims.issuer.as_deref(), Some("accounts.example.com"));
        assert!(jwt_claims("not-a-jwt").is_err());
        assert!(jwt_claims("a.!!!.c").is_err());
    }

    #[test]
    fn saml_assertions_are_read() {
        let xml = r#"<samlp:Response><saml:Issuer>https://idp.example.com</saml:Issuer><saml:Assertion>
            <saml:Subject><saml:NameID Format="urn:oasis:names:tc:SAML:2.0:nameid-format:persistent">alice</saml:NameID></saml:Subject>
            <saml:Audience>https://signin.aws.amazon.com/saml</saml:Audience>
            <saml:Attribute Name="https://aws.amazon.com/SAML/Attributes/RoleSessionName"><saml:AttributeValue>alice-session</saml:AttributeValue></saml:Attribute>
            </saml:Assertion></samlp:Response>"#;
        let a = saml_assertion(&b64(xml)).unwrap();
        assert_eq!(a.subject.as_deref(), Some("alice"));
        assert_eq!(a.subject_type.as_deref(), Some("persistent"));
        assert_eq!(a.issuer.as_deref(), Some("https://idp.example.com"));
        assert_eq!(a.session_name.as_deref(), Some("alice-session"));
        assert!(saml_assertion("%%%").is_err());
    }

    #[test]
    fn authorization_messages() {
        assert_eq!(
            decode_authorization_message(&b64(r#"{"allowed":false}"#)).as_deref(),
            Some(r#"{"allowed":false}"#)
        );
        assert_eq!(decode_authorization_message("bm90IGpzb24="), None);
    }
}
