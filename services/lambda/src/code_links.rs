//! The download links `GetFunction` (`Code.Location`) and `GetLayerVersion`
//! (`Content.Location`) answer: `/_stratus/lambda/code/ACCOUNT/REGION/NAME/VERSION` and
//! `/_stratus/lambda/layers/ACCOUNT/REGION/NAME/VERSION` on the server's own listener, serving
//! the zip. AWS's are presigned S3 URLs valid for ten minutes; these are not signed and do not
//! expire (the server listens on loopback).

use stratus_core::service::WebAnswer;
use stratus_core::urlencoded;

use crate::ops::{layers, version_named};
use crate::service::{load_function, LambdaService};

/// The path prefix of both kinds of link.
pub(crate) const PREFIX: &str = "/_stratus/lambda/";

impl LambdaService {
    /// The zip a download link's `path` names, or AWS's S3 refusal of a link to nothing.
    pub(crate) async fn download(&self, path: &str) -> WebAnswer {
        match self.zip_of(path).await {
            Some(zip) => WebAnswer::new(200, "application/zip", zip),
            None => WebAnswer::new(
                404,
                "application/xml",
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>NoSuchKey</Code><Message>The specified key does \
                 not exist.</Message></Error>",
            ),
        }
    }

    async fn zip_of(&self, path: &str) -> Option<Vec<u8>> {
        let rest = path.strip_prefix(PREFIX)?;
        let parts: Vec<String> = rest
            .split('/')
            .map(|p| urlencoded::decode(p, false).map(|p| p.into_owned()))
            .collect::<Option<_>>()?;
        let [kind, account, region, name, version] = parts.as_slice() else {
            return None;
        };
        let store = self.store(account, region).ok()?;
        let blob = match kind.as_str() {
            "code" => {
                let record = load_function(&*store, name).ok()??;
                version_named(&record, version)?.code.blob.clone()?
            }
            "layers" => {
                let version = version.parse().ok()?;
                layers::load(self, account, region, name, version).ok()??.code.blob?
            }
            _ => return None,
        };
        stratus_storage::run_blocking(move || store.get_blob(&blob))
            .await
            .ok()?
    }
}
