//! The answer to a stored POST upload (POST Object in the S3 API reference): a redirect to
//! `success_action_redirect` with `bucket`, `key` and `etag` appended, else the status
//! `success_action_status` asks for — `200` or `204` empty, `201` with a `PostResponse`
//! document, anything else `204`. Each carries the object's `ETag` and `Location`, and the
//! headers PutObject answers with. The shapes follow S3's answers quoted in public issue
//! threads: the `Location` key percent-encoded, `/` included (s3rver #504, the ceph tracker's
//! 20330), and the redirect's query form-encoded after any query it had (layervault issue 8,
//! stackoverflow.com/q/18390253).

use stratus_core::service::FormAnswer;
use stratus_gen_s3::PutObjectOutput;

use super::fields::Fields;
use crate::checksum::{checksum_members, Algorithm};
use crate::listing;

/// The answer to the upload of `key` into the bucket at `bucket_url` (as the client addressed
/// it) with `fields`, which PutObject's write answered with `output`.
pub(crate) fn answer(
    fields: &Fields,
    bucket_url: &str,
    bucket: &str,
    key: &str,
    output: &PutObjectOutput,
) -> FormAnswer {
    let etag = output.e_tag.clone().unwrap_or_default();
    let location = format!(
        "{}/{}",
        bucket_url.trim_end_matches('/'),
        listing::escape(key, b"~", "%20")
    );
    let mut headers = vec![("etag", etag.clone())];
    headers.extend(stored_headers(output));
    if let Some(redirect) = fields.redirect() {
        let param = |v: &str| listing::escape(v, b"~", "+");
        let joiner = if redirect.contains('?') { '&' } else { '?' };
        let url = format!(
            "{redirect}{joiner}bucket={}&key={}&etag={}",
            param(bucket),
            param(key),
            param(&etag)
        );
        headers.push(("location", url));
        return FormAnswer {
            status: 303,
            headers,
            body: Vec::new(),
        };
    }
    headers.push(("location", location.clone()));
    match fields.get("success_action_status") {
        Some("200") => FormAnswer {
            status: 200,
            headers,
            body: Vec::new(),
        },
        Some("201") => {
            headers.push(("content-type", "application/xml".into()));
            let body = format!(
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<PostResponse><Location>{}</Location><Bucket>{}</Bucket><Key>{}</Key><ETag>{}</ETag></PostResponse>",
                xml_text(&location),
                xml_text(bucket),
                xml_text(key),
                xml_text(&etag)
            );
            FormAnswer {
                status: 201,
                headers,
                body: body.into_bytes(),
            }
        }
        _ => FormAnswer {
            status: 204,
            headers,
            body: Vec::new(),
        },
    }
}

/// The headers PutObject's answer would carry besides the ETag.
fn stored_headers(output: &PutObjectOutput) -> Vec<(&'static str, String)> {
    let checksums = Algorithm::ALL
        .into_iter()
        .zip(checksum_members!(output))
        .map(|(algorithm, value)| (algorithm.header(), value.map(str::to_owned)));
    let optional = [
        ("x-amz-version-id", output.version_id.clone()),
        ("x-amz-expiration", output.expiration.clone()),
    ]
    .into_iter()
    .chain(checksums)
    .chain([(
        "x-amz-checksum-type",
        output.checksum_type.as_ref().map(|t| t.as_str().to_owned()),
    )]);
    optional.filter_map(|(name, value)| value.map(|v| (name, v))).collect()
}

/// Text for an XML element: `&`, `<` and `>` escaped.
fn xml_text(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(pairs: &[(&str, &str)]) -> Fields {
        Fields::of_pairs(pairs, "b", None)
    }

    fn output() -> PutObjectOutput {
        PutObjectOutput {
            e_tag: Some("\"abc\"".into()),
            version_id: Some("v1".into()),
            ..PutObjectOutput::default()
        }
    }

    fn header<'a>(answer: &'a FormAnswer, name: &str) -> Option<&'a str> {
        answer.headers.iter().find(|(n, _)| *n == name).map(|(_, v)| v.as_str())
    }

    #[test]
    fn statuses() {
        let plain = answer(&fields(&[]), "http://h/b", "b", "a/é b", &output());
        assert_eq!(plain.status, 204);
        assert_eq!(header(&plain, "location"), Some("http://h/b/a%2F%C3%A9%20b"));
        assert_eq!(header(&plain, "etag"), Some("\"abc\""));
        assert_eq!(header(&plain, "x-amz-version-id"), Some("v1"));
        assert_eq!(
            answer(
                &fields(&[("success_action_status", "404")]),
                "http://h/b",
                "b",
                "k",
                &output()
            )
            .status,
            204
        );
        let ok = answer(
            &fields(&[("success_action_status", "200")]),
            "http://h/b",
            "b",
            "k",
            &output(),
        );
        assert_eq!((ok.status, ok.body.len()), (200, 0));
        let created = answer(
            &fields(&[("success_action_status", "201")]),
            "http://b.localhost/",
            "b",
            "x<y",
            &output(),
        );
        assert_eq!(created.status, 201);
        assert_eq!(
            String::from_utf8(created.body).unwrap(),
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<PostResponse><Location>http://b.localhost/x%3Cy</Location><Bucket>b</Bucket><Key>x&lt;y</Key><ETag>\"abc\"</ETag></PostResponse>"
        );
    }

    #[test]
    fn redirects_carry_bucket_key_and_etag() {
        let f = fields(&[
            ("success_action_redirect", "http://app/done?x=1"),
            ("success_action_status", "201"),
        ]);
        let redirected = answer(&f, "http://h/b", "b", "dir/a b.txt", &output());
        assert_eq!(redirected.status, 303);
        assert_eq!(
            header(&redirected, "location"),
            Some("http://app/done?x=1&bucket=b&key=dir%2Fa+b.txt&etag=%22abc%22")
        );
    }
}
