//! RestoreObject: a temporary readable copy of a version archived in GLACIER or DEEP_ARCHIVE
//! ("Restoring an archived object" in the S3 user guide). The copy is ready at once — the
//! tiers' minutes and hours are not waited — and lasts `Days` days, to the midnight UTC after,
//! as AWS rounds it. Reads, copies and HeadObject's `x-amz-restore` follow from the expiry kept
//! in the object record, so nothing runs while a copy ages.

use stratus_core::{AwsError, DateTime, RequestContext};
use stratus_gen_s3::*;

use crate::error::S3Error;
use crate::object::ObjectRecord;
use crate::storage_class::{archived, restored};
use crate::{notify, S3Service};

const DAY_MS: i64 = 86_400_000;

pub(crate) async fn restore_object(
    s3: &S3Service,
    ctx: &RequestContext,
    input: RestoreObjectRequest,
) -> Result<RestoreObjectOutput, RestoreObjectError> {
    let request = input.restore_request.unwrap_or_default();
    if request.select_parameters.is_some() || request.output_location.is_some() {
        return Err(AwsError::not_implemented("RestoreObject with SELECT (S3 Select restores)").into());
    }
    // A restore of an archived class names how long the copy stays (the S3 API reference's
    // RestoreRequest: "The Days element is required for regular restores").
    let Some(days) = request.days.filter(|d| *d >= 1) else {
        return Err(S3Error::malformed_xml().into());
    };
    let now = s3.now_ms();
    let expiry = expiry_ms(now, days);
    let bucket = input.bucket.clone();
    let current = s3.object_version(&input.bucket, &input.key, input.version_id.as_deref())?;
    let restored_before = restored(&current, now);
    let record = s3
        .update_object(input.bucket, input.key, input.version_id, move |o| {
            if archived(o).is_none() {
                return Err(AwsError::new(
                    "InvalidObjectState",
                    "Restore is not allowed for the object's current storage class",
                    403,
                ));
            }
            o.restore_expiry_ms = Some(expiry);
            Ok(())
        })
        .await?;
    // A copy already restored only has its expiry moved; a new one is announced as requested
    // and as completed.
    if !restored_before {
        s3.notify(notify::Event::restore(
            "ObjectRestore:Post",
            &bucket,
            &record,
            ctx,
            notify::Cause::of(ctx),
            now,
        ))
        .await;
        s3.notify(notify::Event::restore(
            "ObjectRestore:Completed",
            &bucket,
            &record,
            ctx,
            notify::Cause::Archive,
            now,
        ))
        .await;
    }
    Ok(RestoreObjectOutput::default())
}

/// When a copy restored at `now_ms` for `days` expires: `days` later, at the midnight UTC
/// after.
fn expiry_ms(now_ms: i64, days: i32) -> i64 {
    let end = now_ms + i64::from(days) * DAY_MS;
    (end.div_euclid(DAY_MS) + 1) * DAY_MS
}

/// HeadObject's and GetObject's `x-amz-restore` for `record` at `now_ms`, while its restored
/// copy lasts.
pub(crate) fn restore_header(record: &ObjectRecord, now_ms: i64) -> Option<String> {
    let end = record.restore_expiry_ms.filter(|_| restored(record, now_ms))?;
    let date = DateTime::from_millis(end)
        .fmt(aws_smithy_types::date_time::Format::HttpDate)
        .ok()?;
    Some(format!("ongoing-request=\"false\", expiry-date=\"{date}\""))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_last_to_the_midnight_after_their_days() {
        // 2026-12-04T19:30:00Z plus one day ends at 2026-12-06T00:00:00Z.
        let now = 1_796_412_600_000;
        assert_eq!(expiry_ms(now, 1), 1_796_515_200_000);
        assert_eq!(expiry_ms(now, 1) % DAY_MS, 0);
    }

    #[test]
    fn the_header_lasts_as_long_as_the_copy() {
        let record = ObjectRecord {
            storage_class: Some("GLACIER".into()),
            restore_expiry_ms: Some(1_796_515_200_000),
            ..ObjectRecord::default()
        };
        assert_eq!(
            restore_header(&record, 1_796_412_600_000).as_deref(),
            Some("ongoing-request=\"false\", expiry-date=\"Sun, 06 Dec 2026 00:00:00 GMT\"")
        );
        assert_eq!(restore_header(&record, 1_796_515_200_000), None);
    }
}
