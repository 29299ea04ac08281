//! Bucket configurations kept by id — analytics, S3 Intelligent-Tiering, inventory and
//! metrics — stored as JSON of the model's shapes under `<family>/<id>` in the `configs`
//! table (so they go with the bucket). Each family holds at most 1,000 configurations per
//! bucket (`TooManyConfigurations`); listings return them in id order, 100 a page, with an
//! opaque continuation token; a missing one is `NoSuchConfiguration`. Nothing is analysed,
//! tiered, inventoried or measured: these round-trip, as a client configuring them expects.
//! (S3 API Reference: PutBucketAnalyticsConfiguration, PutBucketInventoryConfiguration,
//! ListBucketMetricsConfigurations — "up to 1,000 configurations per bucket", "does not return
//! more than 100 configurations at a time".)

use stratus_core::paging::Token;
use stratus_core::schema::Shape;
use stratus_core::{AwsError, FromValue, IntoValue};
use stratus_gen_s3::schema;
use stratus_storage::{Direction, KeyRange};

use crate::config::{self, config_key, CONFIGS};
use crate::error::S3Error;
use crate::listing;
use crate::store::{self, object_key};
use crate::S3Service;

/// One family of configurations kept by id.
pub(crate) struct Family {
    /// The key prefix of its documents.
    name: &'static str,
    shape: &'static Shape,
    /// Its listing's continuation tokens, which continue after a configuration id.
    listing: Token,
    /// AWS's refusal of a document whose `Id` is not the request's, where one is recorded.
    id_mismatch: Option<fn() -> AwsError>,
}

pub(crate) const ANALYTICS: Family = Family {
    name: "analytics",
    shape: &schema::ANALYTICS_CONFIGURATION,
    listing: Token::for_listing("s3:ListBucketAnalyticsConfigurations"),
    id_mismatch: Some(S3Error::malformed_xml),
};
pub(crate) const INTELLIGENT_TIERING: Family = Family {
    name: "intelligent-tiering",
    shape: &schema::INTELLIGENT_TIERING_CONFIGURATION,
    listing: Token::for_listing("s3:ListBucketIntelligentTieringConfigurations"),
    id_mismatch: Some(S3Error::malformed_xml),
};
pub(crate) const INVENTORY: Family = Family {
    name: "inventory",
    shape: &schema::INVENTORY_CONFIGURATION,
    listing: Token::for_listing("s3:ListBucketInventoryConfigurations"),
    id_mismatch: Some(|| {
        AwsError::new(
            "IdMismatch",
            "Document ID does not match the specified configuration ID.",
            400,
        )
    }),
};
pub(crate) const METRICS: Family = Family {
    name: "metrics",
    shape: &schema::METRICS_CONFIGURATION,
    listing: Token::for_listing("s3:ListBucketMetricsConfigurations"),
    id_mismatch: None,
};

/// AWS's checks on a configuration's contents beyond the model's: an open enum's value it
/// does not know is `MalformedXML`, as the recordings show.
pub(crate) trait Checked {
    fn check(&self) -> Result<(), AwsError> {
        Ok(())
    }
}

impl Checked for stratus_gen_s3::AnalyticsConfiguration {}
impl Checked for stratus_gen_s3::IntelligentTieringConfiguration {}
impl Checked for stratus_gen_s3::MetricsConfiguration {}

impl Checked for stratus_gen_s3::InventoryConfiguration {
    fn check(&self) -> Result<(), AwsError> {
        use stratus_gen_s3::{
            InventoryFormat, InventoryFrequency, InventoryIncludedObjectVersions, InventoryOptionalField,
        };
        let destination = &self.destination.s3_bucket_destination;
        if !destination.bucket.starts_with("arn:aws:s3:::") {
            return Err(AwsError::new("InvalidS3DestinationBucket", "Invalid bucket ARN.", 400));
        }
        let unknown = matches!(destination.format, InventoryFormat::Unknown(_))
            || matches!(self.schedule.frequency, InventoryFrequency::Unknown(_))
            || matches!(
                self.included_object_versions,
                InventoryIncludedObjectVersions::Unknown(_)
            )
            || self
                .optional_fields
                .iter()
                .flatten()
                .any(|f| matches!(f, InventoryOptionalField::Unknown(_)));
        match unknown {
            true => Err(S3Error::malformed_xml()),
            false => Ok(()),
        }
    }
}

/// The most configurations of one family a bucket holds.
const MAX_PER_BUCKET: usize = 1000;
/// The most configurations one listing page returns.
const PAGE: usize = 100;

/// One page of a family's configurations.
pub(crate) struct Page<T> {
    pub configurations: Vec<T>,
    /// Where the next page starts, when there is one.
    pub next_token: Option<String>,
}

fn no_such_configuration() -> AwsError {
    AwsError::new(
        "NoSuchConfiguration",
        "The specified configuration does not exist.",
        404,
    )
}

impl Family {
    fn key(&self, bucket: &str, id: &str) -> Vec<u8> {
        config_key(bucket, &format!("{}/{id}", self.name))
    }

    /// The key prefix of the family's documents in `bucket`.
    fn prefix(&self, bucket: &str) -> Vec<u8> {
        object_key(bucket, &format!("{}/", self.name))
    }
}

impl S3Service {
    /// Stores `configuration` as `family`'s `id` in `bucket`, replacing one of that id.
    pub(crate) async fn put_id_config<T: IntoValue>(
        &self,
        bucket: String,
        family: &'static Family,
        id: String,
        document_id: &str,
        configuration: T,
    ) -> Result<(), AwsError> {
        if let Some(refusal) = family.id_mismatch.filter(|_| document_id != id) {
            return Err(refusal());
        }
        let doc = config::encode(family.shape, configuration);
        self.write(move |tx| {
            store::bucket(tx, &bucket)?;
            let key = family.key(&bucket, &id);
            if tx.get(CONFIGS, &key).map_err(S3Error::storage)?.is_none() {
                let held = tx
                    .scan(CONFIGS, &KeyRange::prefix(&family.prefix(&bucket)), Direction::Forward, Some(MAX_PER_BUCKET))
                    .map_err(S3Error::storage)?
                    .len();
                if held >= MAX_PER_BUCKET {
                    return Err(AwsError::new(
                        "TooManyConfigurations",
                        "You are attempting to create a new configuration but have already reached the 1,000-configuration limit.",
                        400,
                    ));
                }
            }
            tx.put(CONFIGS, key, doc);
            Ok(())
        })
        .await
    }

    /// `family`'s configuration `id` in `bucket`.
    pub(crate) fn get_id_config<T: FromValue>(&self, bucket: &str, family: &Family, id: &str) -> Result<T, AwsError> {
        let db = self.store()?;
        store::bucket(&db, bucket)?;
        let bytes = db
            .get(CONFIGS, &family.key(bucket, id))
            .map_err(S3Error::storage)?
            .ok_or_else(no_such_configuration)?;
        config::decode(family.shape, &bytes)
    }

    /// Removes `family`'s configuration `id` from `bucket`.
    pub(crate) async fn delete_id_config(
        &self,
        bucket: String,
        family: &'static Family,
        id: String,
    ) -> Result<(), AwsError> {
        self.write(move |tx| {
            store::bucket(tx, &bucket)?;
            let key = family.key(&bucket, &id);
            if tx.get(CONFIGS, &key).map_err(S3Error::storage)?.is_none() {
                return Err(no_such_configuration());
            }
            tx.delete(CONFIGS, key);
            Ok(())
        })
        .await
    }

    /// A page of `family`'s configurations in `bucket`, in id order, after `token`'s.
    pub(crate) fn list_id_configs<T: FromValue>(
        &self,
        bucket: &str,
        family: &Family,
        token: Option<&str>,
    ) -> Result<Page<T>, AwsError> {
        let db = self.store()?;
        store::bucket(&db, bucket)?;
        let prefix = family.prefix(bucket);
        let mut range = KeyRange::prefix(&prefix);
        if let Some(token) = token {
            let after = listing::decode_token(family.listing, token)?;
            let mut start = prefix.clone();
            start.extend_from_slice(after.as_bytes());
            range = KeyRange::between(std::ops::Bound::Excluded(start.as_slice()), range.end());
        }
        let mut entries = db
            .scan(CONFIGS, &range, Direction::Forward, Some(PAGE + 1))
            .map_err(S3Error::storage)?;
        let truncated = entries.len() > PAGE;
        entries.truncate(PAGE);
        let next_token = match entries.last() {
            Some((key, _)) if truncated => Some(family.listing.encode(&key[prefix.len()..])),
            _ => None,
        };
        let configurations = entries
            .iter()
            .map(|(_, bytes)| config::decode(family.shape, bytes))
            .collect::<Result<_, _>>()?;
        Ok(Page {
            configurations,
            next_token,
        })
    }
}
