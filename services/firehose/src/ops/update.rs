//! UpdateDestination: the version must be the current one and the destination the stream's,
//! then the update is merged into the destination's configuration (or replaces it, for
//! another kind), checked as CreateDeliveryStream checks it, and the version goes up. What
//! the stream buffers is delivered under the new settings.

use serde_json::{Map, Value};
use stratus_core::json::KeyNames;
use stratus_core::{AwsError, RequestContext};
use stratus_gen_firehose::UpdateDestinationOutput;

use crate::checks;
use crate::destination::{self, DestinationKind};
use crate::error::{concurrent_modification, in_use, invalid_argument, Result};
use crate::records::{StreamState, DESTINATION_ID, STREAMS};
use crate::service::{load_stream, FirehoseService};

/// A configuration that replaces one of another kind must be whole: it is checked as
/// CreateDeliveryStream's member would be.
fn check_whole(kind: DestinationKind, config: &Value) -> Result<()> {
    let mut input = Map::new();
    input.insert("DeliveryStreamName".into(), Value::String("update".into()));
    input.insert(kind.configuration_member().into(), config.clone());
    let operation = stratus_gen_firehose::SERVICE
        .operations
        .iter()
        .find(|o| o.name == "CreateDeliveryStream")
        .ok_or_else(|| invalid_argument("CreateDeliveryStream is not in the model"))?;
    let text = Value::Object(input).to_string();
    let value = stratus_core::json::decode(operation.input, text.as_bytes(), KeyNames::Member)
        .map_err(|e| invalid_argument(e.message))?;
    stratus_core::validate::validate_input(&stratus_gen_firehose::SERVICE, operation, &value).map_err(|e| {
        let e: AwsError = AwsError::new(e.code(), e.message(), e.http_status());
        e.into()
    })
}

/// UpdateDestination, from its input as JSON.
pub(crate) async fn update_destination(
    firehose: &FirehoseService,
    ctx: &RequestContext,
    input: Map<String, Value>,
) -> Result<UpdateDestinationOutput, AwsError> {
    let text = |name: &str| input.get(name).and_then(Value::as_str).unwrap_or_default().to_owned();
    let (name, version, destination_id) = (
        text("DeliveryStreamName"),
        text("CurrentDeliveryStreamVersionId"),
        text("DestinationId"),
    );
    let [(update_kind, update)] = &destination::updates(&input)[..] else {
        return Err(invalid_argument("Exactly one destination update must be specified.").into());
    };
    let (update_kind, update) = (*update_kind, update.clone());
    let (now, account) = (firehose.now_ms(), ctx.account_id.clone());
    firehose
        .transact(&ctx.account_id, &ctx.region, move |tx| {
            let mut stream = load_stream(tx, &name, &account, now)?;
            if stream.state(now) != StreamState::Active {
                return Err(in_use(format!(
                    "Firehose {name} under account {account} is not ACTIVE; its destination cannot be updated."
                )));
            }
            if version != stream.version.to_string() {
                return Err(concurrent_modification(format!(
                    "Cannot update firehose: {name} since the current version id: {} and specified version id: {version} do not match",
                    stream.version
                )));
            }
            if destination_id != DESTINATION_ID {
                return Err(invalid_argument(format!("Destination Id {destination_id} not found.")));
            }
            let current = &stream.destination;
            let (kind, config) = destination::merged(current.kind, &current.config, update_kind, &update);
            let (was, is) = (
                checks::dynamic_partitioning(&current.config),
                checks::dynamic_partitioning(&config),
            );
            if was && !is {
                return Err(invalid_argument("Dynamic partitioning cannot be disabled once it is enabled."));
            }
            if is && !was {
                return Err(invalid_argument(
                    "Dynamic partitioning can only be enabled when the delivery stream is created.",
                ));
            }
            if kind != current.kind && !(kind == DestinationKind::ExtendedS3 && current.kind == DestinationKind::S3) {
                check_whole(kind, &config)?;
            }
            checks::destination(kind, &config)?;
            stream.destination.kind = kind;
            stream.destination.config = config;
            stream.version += 1;
            stream.updated_ms = Some(now);
            STREAMS.put(tx, name.as_bytes(), &stream)?;
            Ok(())
        })
        .await?;
    // New buffering hints move when what the stream buffers falls due.
    firehose.schedule(firehose.now_ms());
    Ok(UpdateDestinationOutput {})
}
