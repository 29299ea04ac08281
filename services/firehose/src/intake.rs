//! Records coming in: PutRecord, PutRecordBatch and other services' puts
//! ([`DeliveryStreamSink`]) all land here, in the stream's buffer, in the transaction that
//! acknowledges them.
//!
//! A stream fed by Kinesis refuses direct puts as AWS does; one that is `CREATING` is not
//! there yet; one `DELETING`, or with a destination Stratus stores but does not deliver to,
//! takes the records and keeps none (AWS: a deleting stream "might continue to accept
//! records, but it doesn't make any guarantees with respect to delivering the data").

use stratus_core::arn::Arn;
use stratus_core::service::{BoxFuture, Caller, DeliveryStreamSink};
use stratus_core::AwsError;

use crate::buffer::{append, Buffered};
use crate::destination::Delivery;
use crate::error::{invalid_argument, stream_not_found, Result};
use crate::records::{StreamState, STREAMS};
use crate::service::FirehoseService;

impl FirehoseService {
    /// Buffers `records` for stream `name`; answers whether they are encrypted at rest.
    pub(crate) async fn accept(&self, account: &str, region: &str, name: &str, records: Vec<Vec<u8>>) -> Result<bool> {
        let now = self.now_ms();
        let (stream, owner) = (name.to_owned(), account.to_owned());
        let (encrypted, due) = self
            .transact(account, region, move |tx| {
                let record = STREAMS
                    .get(tx, stream.as_bytes())?
                    .ok_or_else(|| stream_not_found(&stream, &owner))?;
                match record.state(now) {
                    StreamState::Creating | StreamState::Gone => return Err(stream_not_found(&stream, &owner)),
                    StreamState::Deleting => return Ok((false, None)),
                    StreamState::Active => {}
                }
                if record.kinesis.is_some() {
                    return Err(invalid_argument(
                        "This operation is not permitted on KinesisStreamAsSource delivery stream type.",
                    ));
                }
                let encrypted = record.encrypted(now);
                let Some(hints) = Delivery::of(record.destination.kind, &record.destination.config).hints() else {
                    return Ok((encrypted, None));
                };
                let buffered: Vec<Buffered> = records
                    .into_iter()
                    .map(|data| Buffered {
                        arrival_ms: now,
                        kinesis: None,
                        data,
                    })
                    .collect();
                let head = append(tx, &stream, &buffered)?;
                Ok((encrypted, head.due_ms(hints)))
            })
            .await?;
        if let Some(due) = due {
            self.schedule(due);
        }
        Ok(encrypted)
    }
}

/// Other services' puts (CloudWatch Logs' subscription filters), by the stream's ARN.
impl DeliveryStreamSink for FirehoseService {
    fn put_records<'a>(
        &'a self,
        _caller: Caller<'a>,
        stream_arn: &'a str,
        records: Vec<Vec<u8>>,
    ) -> BoxFuture<'a, Result<(), AwsError>> {
        Box::pin(async move {
            let arn = Arn::parse(stream_arn).map_err(|_| {
                AwsError::new(
                    "InvalidArgumentException",
                    format!("{stream_arn} is not a delivery stream ARN."),
                    400,
                )
            })?;
            let name = arn.resource.strip_prefix("deliverystream/").unwrap_or(&arn.resource);
            self.accept(&arn.account, &arn.region, name, records).await?;
            Ok(())
        })
    }
}
