//! Who signed a request and for which service: the parts of AWS Signature Version 4 (and the
//! access key of Version 2) that routing and caller identity need. Signatures are not
//! verified — Stratus accepts any credentials, as the brief asks of a local AWS.
//!
//! ```
//! use stratus_server::sigv4::Signer;
//! let auth = "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/iam/aws4_request, \
//!             SignedHeaders=host;x-amz-date, Signature=5d67";
//! let signer = Signer::from_authorization(auth).unwrap();
//! assert_eq!((signer.access_key_id.as_str(), signer.service.as_deref()), ("AKIDEXAMPLE", Some("iam")));
//! ```

/// The signer of a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signer {
    pub access_key_id: String,
    /// The credential scope's region (SigV4 only).
    pub region: Option<String>,
    /// The credential scope's signing name, e.g. `sts` (SigV4 only).
    pub service: Option<String>,
}

impl Signer {
    /// Reads an `Authorization` header: `AWS4-HMAC-SHA256 Credential=KEY/DATE/REGION/SERVICE/aws4_request, …`
    /// or SigV2's `AWS KEY:SIGNATURE`.
    pub fn from_authorization(header: &str) -> Option<Signer> {
        if let Some(rest) = header.strip_prefix("AWS4-HMAC-SHA256") {
            let credential = rest
                .split(',')
                .map(str::trim)
                .find_map(|part| part.strip_prefix("Credential="))?;
            return Signer::from_credential(credential);
        }
        let key = header.strip_prefix("AWS ")?.split(':').next()?.trim();
        (!key.is_empty()).then(|| Signer {
            access_key_id: key.to_string(),
            region: None,
            service: None,
        })
    }

    /// Reads a credential scope `KEY/DATE/REGION/SERVICE/aws4_request` (also the presigned
    /// `X-Amz-Credential` query parameter, once percent-decoded).
    pub fn from_credential(credential: &str) -> Option<Signer> {
        let mut parts = credential.split('/');
        let key = parts.next().filter(|k| !k.is_empty())?;
        let _date = parts.next()?;
        let region = parts.next()?;
        let service = parts.next()?;
        Some(Signer {
            access_key_id: key.to_string(),
            region: Some(region.to_string()),
            service: Some(service.to_string()),
        })
    }

    /// Reads the signer from query parameters: presigned SigV4 (`X-Amz-Credential`) or SigV2
    /// (`AWSAccessKeyId`).
    pub fn from_query<'a>(params: impl IntoIterator<Item = (&'a str, &'a str)>) -> Option<Signer> {
        let mut v2 = None;
        for (k, v) in params {
            match k {
                "X-Amz-Credential" => return Signer::from_credential(v),
                "AWSAccessKeyId" if !v.is_empty() => {
                    v2 = Some(Signer {
                        access_key_id: v.to_string(),
                        region: None,
                        service: None,
                    })
                }
                _ => {}
            }
        }
        v2
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sigv4_header() {
        let s = Signer::from_authorization(
            "AWS4-HMAC-SHA256 Credential=ASIAXYZ/20240101/eu-west-1/dynamodb/aws4_request,SignedHeaders=host,Signature=ab",
        )
        .unwrap();
        assert_eq!(s.access_key_id, "ASIAXYZ");
        assert_eq!(s.region.as_deref(), Some("eu-west-1"));
        assert_eq!(s.service.as_deref(), Some("dynamodb"));
    }

    #[test]
    fn sigv2_header_and_query() {
        let s = Signer::from_authorization("AWS AKIAEXAMPLE:frJIUN8DYpKDtOLCwo//yllqDzg=").unwrap();
        assert_eq!((s.access_key_id.as_str(), s.service), ("AKIAEXAMPLE", None));
        let q = Signer::from_query([("Action", "ListUsers"), ("AWSAccessKeyId", "AKIA2")]).unwrap();
        assert_eq!(q.access_key_id, "AKIA2");
        let p = Signer::from_query([("X-Amz-Credential", "AKIA3/20240101/us-east-1/s3/aws4_request")]).unwrap();
        assert_eq!(p.service.as_deref(), Some("s3"));
    }

    #[test]
    fn garbage_is_none() {
        for h in [
            "",
            "Bearer x",
            "AWS4-HMAC-SHA256",
            "AWS4-HMAC-SHA256 Credential=",
            "AWS4-HMAC-SHA256 Credential=K/D",
            "AWS :",
        ] {
            assert_eq!(Signer::from_authorization(h), None, "{h}");
        }
    }
}
