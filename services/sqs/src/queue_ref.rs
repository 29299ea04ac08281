//! The queue a request names, by URL or ARN.

use stratus_core::arn::Arn;
use stratus_core::RequestContext;
use stratus_storage::Namespace;

use crate::error::SqsError;
use crate::queue;

/// A queue named by a request: its namespace and name.
#[derive(Clone)]
pub(crate) struct QueueRef {
    pub(crate) account: String,
    pub(crate) region: String,
    pub(crate) name: String,
}

impl QueueRef {
    /// The queue a `QueueUrl` parameter names: a queue URL, or (as AWS also takes) the bare
    /// name of one of the caller's queues.
    pub(crate) fn from_url(ctx: &RequestContext, url: &str) -> Result<QueueRef, SqsError> {
        if !url.contains('/') && queue::check_name(url, url.ends_with(".fifo")).is_ok() {
            return Ok(QueueRef {
                account: ctx.account_id.clone(),
                region: ctx.region.clone(),
                name: url.to_owned(),
            });
        }
        let (account, name) = queue::parse_url(url)?;
        Ok(QueueRef {
            account: account.to_owned(),
            region: ctx.region.clone(),
            name: name.to_owned(),
        })
    }

    /// The queue named `name` in this one's account and region.
    pub(crate) fn sibling(&self, name: &str) -> QueueRef {
        QueueRef {
            account: self.account.clone(),
            region: self.region.clone(),
            name: name.to_owned(),
        }
    }

    /// The queue an ARN names, if it is an SQS queue ARN.
    pub(crate) fn from_arn(arn: &str) -> Option<QueueRef> {
        let arn = queue::parse_arn(arn)?;
        Some(QueueRef {
            account: arn.account,
            region: arn.region,
            name: arn.resource,
        })
    }

    pub(crate) fn arn(&self) -> String {
        Arn::new("sqs", &self.region, &self.account, &self.name).to_string()
    }

    /// The key of the queue's arrival signal.
    pub(crate) fn signal_key(&self) -> String {
        format!("{}/{}/{}", self.account, self.region, self.name)
    }

    pub(crate) fn namespace(&self) -> Namespace {
        Namespace::regional(&self.account, &self.region, "sqs")
    }
}
