//! Amazon Resource Names: building them with the partition their region belongs to, and
//! reading them back into their parts.
//!
//! An ARN is `arn:PARTITION:SERVICE:REGION:ACCOUNT:RESOURCE`; the resource may itself hold
//! colons and slashes. Global resources (IAM roles, STS sessions, S3 buckets) leave the
//! region empty, but still live in the partition of the region they were asked for in.
//!
//! ```
//! use stratus_core::arn::Arn;
//!
//! let queue = Arn::new("sqs", "cn-north-1", "123456789012", "orders");
//! assert_eq!(queue.to_string(), "arn:aws-cn:sqs:cn-north-1:123456789012:orders");
//!
//! let role = Arn::global("iam", "us-gov-west-1", "123456789012", "role/admin");
//! assert_eq!(role.to_string(), "arn:aws-us-gov:iam::123456789012:role/admin");
//!
//! let parsed = Arn::parse("arn:aws:dynamodb:us-east-1:123456789012:table/T").unwrap();
//! assert_eq!((parsed.service.as_str(), parsed.resource.as_str()), ("dynamodb", "table/T"));
//! ```

use std::fmt;

/// Whether `text` is an account id: twelve digits.
pub fn is_account_id(text: &str) -> bool {
    text.len() == 12 && text.bytes().all(|b| b.is_ascii_digit())
}

/// The partition a region belongs to: `aws-cn` for China, `aws-us-gov` for GovCloud,
/// `aws-iso`/`aws-iso-b` for the isolated regions, and `aws` for every other region.
pub fn partition_of(region: &str) -> &'static str {
    if region.starts_with("cn-") {
        "aws-cn"
    } else if region.starts_with("us-gov-") {
        "aws-us-gov"
    } else if region.starts_with("us-isob-") {
        "aws-iso-b"
    } else if region.starts_with("us-iso-") {
        "aws-iso"
    } else {
        "aws"
    }
}

/// An ARN's parts; [`Display`](fmt::Display) writes it back as the wire spells it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Arn {
    /// The partition, e.g. `aws` (see [`partition_of`] for a region's).
    pub partition: String,
    /// The service namespace, e.g. `s3` or `sqs`.
    pub service: String,
    /// Empty for global resources.
    pub region: String,
    /// Empty for resources no account owns by name (S3 buckets).
    pub account: String,
    /// Everything after the fifth colon, e.g. `my-queue` or `function:my-fn:prod`, as it
    /// is written (colons and slashes included).
    pub resource: String,
}

/// Why a string is not an ARN.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ArnError {
    #[error("an ARN starts with `arn:`")]
    /// The text does not start with `arn:`.
    MissingPrefix,
    #[error("an ARN has six colon-separated parts")]
    /// Fewer than six colon-separated parts.
    TooFewParts,
    #[error("an ARN names its partition, service and resource")]
    /// The partition, service or resource is empty.
    EmptyPart,
}

impl Arn {
    /// The ARN of a regional resource, in the partition of `region`.
    pub fn new(service: &str, region: &str, account: &str, resource: &str) -> Arn {
        Arn {
            partition: partition_of(region).to_owned(),
            service: service.to_owned(),
            region: region.to_owned(),
            account: account.to_owned(),
            resource: resource.to_owned(),
        }
    }

    /// The ARN of a global resource (no region in it), in the partition of `region`, the
    /// region the request was made in.
    pub fn global(service: &str, region: &str, account: &str, resource: &str) -> Arn {
        Arn {
            region: String::new(),
            ..Arn::new(service, region, account, resource)
        }
    }

    /// The parts of `text`, which must start with `arn:` and name a partition, service and
    /// resource; region and account may be empty.
    pub fn parse(text: &str) -> Result<Arn, ArnError> {
        let rest = text.strip_prefix("arn:").ok_or(ArnError::MissingPrefix)?;
        let mut parts = rest.splitn(5, ':');
        let mut next = || parts.next().ok_or(ArnError::TooFewParts);
        let (partition, service, region, account, resource) = (next()?, next()?, next()?, next()?, next()?);
        if partition.is_empty() || service.is_empty() || resource.is_empty() {
            return Err(ArnError::EmptyPart);
        }
        Ok(Arn {
            partition: partition.to_owned(),
            service: service.to_owned(),
            region: region.to_owned(),
            account: account.to_owned(),
            resource: resource.to_owned(),
        })
    }

    /// Whether this is a `service` ARN of `region` and `account`, in that region's partition.
    pub fn is_in(&self, service: &str, region: &str, account: &str) -> bool {
        self.service == service
            && self.region == region
            && self.account == account
            && self.partition == partition_of(region)
    }
}

impl fmt::Display for Arn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Arn {
            partition,
            service,
            region,
            account,
            resource,
        } = self;
        write!(f, "arn:{partition}:{service}:{region}:{account}:{resource}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partitions_follow_the_region() {
        for (region, partition) in [
            ("us-east-1", "aws"),
            ("eu-west-1", "aws"),
            ("cn-north-1", "aws-cn"),
            ("cn-northwest-1", "aws-cn"),
            ("us-gov-west-1", "aws-us-gov"),
            ("us-iso-east-1", "aws-iso"),
            ("us-isob-east-1", "aws-iso-b"),
            ("", "aws"),
        ] {
            assert_eq!(partition_of(region), partition, "{region}");
        }
    }

    #[test]
    fn regional_and_global_arns_are_written_in_their_partition() {
        let table = Arn::new("dynamodb", "us-gov-east-1", "1", "table/T").to_string();
        assert_eq!(table, "arn:aws-us-gov:dynamodb:us-gov-east-1:1:table/T");
        assert_eq!(
            Arn::global("s3", "cn-north-1", "", "b").to_string(),
            "arn:aws-cn:s3:::b"
        );
        assert_eq!(
            Arn::global("sts", "us-east-1", "1", "assumed-role/r/s").to_string(),
            "arn:aws:sts::1:assumed-role/r/s"
        );
    }

    #[test]
    fn parsing_reads_back_what_display_wrote() {
        for text in [
            "arn:aws:sqs:us-east-1:123456789012:q",
            "arn:aws-cn:s3:::bucket",
            "arn:aws:lambda:us-east-1:1:function:name:alias",
            "arn:aws:iam::1:role/path/to/r",
        ] {
            assert_eq!(Arn::parse(text).unwrap().to_string(), text);
        }
        let lambda = Arn::parse("arn:aws:lambda:us-east-1:1:function:name:alias").unwrap();
        assert_eq!(lambda.resource, "function:name:alias");
    }

    #[test]
    fn malformed_arns_say_why() {
        assert_eq!(Arn::parse("queue"), Err(ArnError::MissingPrefix));
        assert_eq!(Arn::parse("arn:aws:sqs:us-east-1"), Err(ArnError::TooFewParts));
        assert_eq!(Arn::parse("arn:aws:sqs:us-east-1:1:"), Err(ArnError::EmptyPart));
        assert_eq!(Arn::parse("arn::sqs:us-east-1:1:q"), Err(ArnError::EmptyPart));
    }

    #[test]
    fn scope_checks_the_partition_too() {
        let arn = Arn::parse("arn:aws:sqs:cn-north-1:1:q").unwrap();
        assert!(!arn.is_in("sqs", "cn-north-1", "1"));
        assert!(Arn::new("sqs", "cn-north-1", "1", "q").is_in("sqs", "cn-north-1", "1"));
        assert!(!arn.is_in("sns", "cn-north-1", "1"));
    }
}
