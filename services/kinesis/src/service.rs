//! The service value: storage, the key service encryption goes through, and the lookups every
//! operation shares (a stream by name or ARN, a consumer by ARN).

use std::sync::Arc;

use stratus_core::arn::Arn;
use stratus_core::service::{Arrivals, Caller, KeyService};
use stratus_core::{AwsError, RequestContext};
use stratus_storage::{Durability, Namespace, Read, Storage, Store, Tx};

use crate::error::{invalid_argument, stream_not_found, Result};
use crate::store::{StreamRecord, STREAMS};

/// Kinesis Data Streams, backed by `storage`. Clones share everything.
#[derive(Clone)]
pub struct KinesisService {
    pub(crate) shared: Arc<Shared>,
}

pub(crate) struct Shared {
    pub(crate) storage: Arc<Storage>,
    /// KMS, which server-side encryption names its keys in.
    pub(crate) keys: Option<Arc<dyn KeyService>>,
    /// Puts committed per stream (account, region, name): they wake enhanced fan-out
    /// subscriptions and Lambda's pollers.
    pub(crate) arrivals: Arrivals<(String, String, String)>,
}

impl KinesisService {
    pub fn new(storage: Arc<Storage>, keys: Option<Arc<dyn KeyService>>) -> KinesisService {
        KinesisService {
            shared: Arc::new(Shared {
                storage,
                keys,
                arrivals: Arrivals::default(),
            }),
        }
    }

    /// The store of `account` and `region`: records are acknowledged data, so it is strict.
    pub(crate) fn store(&self, account: &str, region: &str) -> Result<Arc<dyn Store>> {
        Ok(self
            .shared
            .storage
            .store(&Namespace::regional(account, region, "kinesis"), Durability::Strict)?)
    }

    /// Runs `body` as one transaction of the store of `account` and `region`.
    pub(crate) async fn transact<R, F>(&self, account: &str, region: &str, body: F) -> Result<R, AwsError>
    where
        R: Send + 'static,
        F: FnOnce(&mut Tx<'_>) -> Result<R> + Send + 'static,
    {
        let store = self.store(account, region)?;
        store.transact_async(body).await.map_err(AwsError::from)
    }

    /// Runs `body` against the committed store on the blocking pool.
    pub(crate) async fn read<R, F>(&self, account: &str, region: &str, body: F) -> Result<R, AwsError>
    where
        R: Send + 'static,
        F: FnOnce(&dyn Store) -> Result<R> + Send + 'static,
    {
        let store = self.store(account, region)?;
        stratus_storage::run_blocking(move || body(&*store))
            .await
            .map_err(AwsError::from)
    }
}

/// Where a stream lives: the account and region of its ARN (the caller's for a bare name)
/// and its name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct StreamAt {
    pub account: String,
    pub region: String,
    pub name: String,
}

impl StreamAt {
    /// The stream a request names by `StreamName`, `StreamARN` or both (which must agree).
    pub(crate) fn named(ctx: &RequestContext, name: Option<&str>, arn: Option<&str>) -> Result<StreamAt> {
        let by_arn = arn.map(StreamAt::of_arn).transpose()?;
        match (name, by_arn) {
            (Some(name), Some(at)) if at.name != name => Err(invalid_argument(format!(
                "StreamARN {} does not match StreamName {name}.",
                arn.unwrap_or_default()
            ))),
            (_, Some(at)) => Ok(at),
            (Some(name), None) => Ok(StreamAt {
                account: ctx.account_id.clone(),
                region: ctx.region.clone(),
                name: name.to_owned(),
            }),
            (None, None) => Err(invalid_argument("Either StreamName or StreamARN must be provided.")),
        }
    }

    /// The stream `arn:aws:kinesis:REGION:ACCOUNT:stream/NAME` names.
    pub(crate) fn of_arn(arn: &str) -> Result<StreamAt> {
        let invalid = || invalid_argument(format!("Invalid StreamARN {arn}."));
        let parsed = Arn::parse(arn).map_err(|_| invalid())?;
        let name = parsed.resource.strip_prefix("stream/").ok_or_else(invalid)?;
        if parsed.service != "kinesis" || name.is_empty() || name.contains('/') {
            return Err(invalid());
        }
        Ok(StreamAt {
            account: parsed.account,
            region: parsed.region,
            name: name.to_owned(),
        })
    }

    pub(crate) fn arn(&self) -> String {
        stream_arn(&self.region, &self.account, &self.name)
    }

    /// The stream's record, or AWS's not-found refusal.
    pub(crate) fn load(&self, r: &(impl Read + ?Sized)) -> Result<StreamRecord> {
        STREAMS
            .get(r, self.name.as_bytes())?
            .ok_or_else(|| stream_not_found(&self.name, &self.account))
    }

    pub(crate) fn caller<'a>(&'a self, ctx: &'a RequestContext) -> Caller<'a> {
        Caller {
            account_id: &self.account,
            region: &self.region,
            principal: ctx.principal.as_ref().map_or("", |p| p.arn.as_str()),
        }
    }
}

pub(crate) fn stream_arn(region: &str, account: &str, name: &str) -> String {
    Arn::new("kinesis", region, account, &format!("stream/{name}")).to_string()
}

/// A consumer's ARN: the stream's, `/consumer/NAME:` and its creation time in epoch seconds.
pub(crate) fn consumer_arn(stream: &StreamAt, name: &str, created_ms: i64) -> String {
    format!("{}/consumer/{name}:{}", stream.arn(), created_ms.div_euclid(1000))
}

/// The stream and consumer name a consumer ARN names.
pub(crate) fn of_consumer_arn(arn: &str) -> Result<(StreamAt, String)> {
    let invalid = || invalid_argument(format!("Invalid ConsumerARN {arn}."));
    let (stream, rest) = arn.split_once("/consumer/").ok_or_else(invalid)?;
    let (name, created) = rest.rsplit_once(':').ok_or_else(invalid)?;
    if name.is_empty() || created.is_empty() || !created.bytes().all(|b| b.is_ascii_digit()) {
        return Err(invalid());
    }
    Ok((StreamAt::of_arn(stream).map_err(|_| invalid())?, name.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stream_arns_read_back() {
        let at = StreamAt::of_arn("arn:aws:kinesis:eu-west-1:111111111111:stream/orders").unwrap();
        assert_eq!(
            (at.account.as_str(), at.region.as_str(), at.name.as_str()),
            ("111111111111", "eu-west-1", "orders")
        );
        assert_eq!(at.arn(), "arn:aws:kinesis:eu-west-1:111111111111:stream/orders");
        for bad in [
            "orders",
            "arn:aws:sqs:eu-west-1:111111111111:stream/orders",
            "arn:aws:kinesis:eu-west-1:111111111111:stream/",
            "arn:aws:kinesis:eu-west-1:111111111111:stream/a/consumer/c:1",
        ] {
            assert!(StreamAt::of_arn(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn consumer_arns_read_back() {
        let at = StreamAt::of_arn("arn:aws:kinesis:us-east-1:111111111111:stream/s").unwrap();
        let arn = consumer_arn(&at, "c1", 1_700_000_000_999);
        assert_eq!(
            arn,
            "arn:aws:kinesis:us-east-1:111111111111:stream/s/consumer/c1:1700000000"
        );
        assert_eq!(of_consumer_arn(&arn).unwrap(), (at, "c1".to_owned()));
        assert!(of_consumer_arn("arn:aws:kinesis:us-east-1:111111111111:stream/s").is_err());
        assert!(of_consumer_arn("arn:aws:kinesis:us-east-1:111111111111:stream/s/consumer/c1:x").is_err());
    }
}
