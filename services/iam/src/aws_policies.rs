//! The AWS managed policies Stratus knows (`arn:aws:iam::aws:policy/...`): AWS's published
//! documents, shipped as data (`data/aws-policies/`), attachable like customer policies but
//! never modified. Any other `aws` policy ARN is answered `NoSuchEntity`, as AWS answers a
//! name it does not publish.

use stratus_core::arn::partition_of;
use stratus_gen_iam::{Policy, PolicyVersion};

use crate::documents::url_encode;
use crate::records::date;

/// One AWS managed policy.
pub(crate) struct AwsPolicy {
    pub(crate) name: &'static str,
    pub(crate) path: &'static str,
    pub(crate) id: &'static str,
    pub(crate) description: &'static str,
    pub(crate) default_version: &'static str,
    /// Creation and last update, seconds since the epoch.
    pub(crate) created: u64,
    pub(crate) updated: u64,
    pub(crate) document: &'static str,
}

macro_rules! document {
    ($name:literal) => {
        include_str!(concat!("../data/aws-policies/", $name, ".json"))
    };
}

/// The policies, as the AWS Managed Policy Reference and IAM's own answers (GetPolicy,
/// GetPolicyVersion, recorded in public repositories) give them; docs/services/iam.md says
/// which source each was checked against. Where only the reference gives a time, it is to
/// the minute.
pub(crate) const AWS_POLICIES: &[AwsPolicy] = &[
    AwsPolicy {
        name: "AdministratorAccess",
        path: "/",
        id: "ANPAIWMBCKSKIEE64ZLYK",
        description: "Provides full access to AWS services and resources.",
        default_version: "v1",
        // 2015-02-06T18:39:46Z, never edited.
        created: 1_423_247_986,
        updated: 1_423_247_986,
        document: document!("AdministratorAccess"),
    },
    AwsPolicy {
        name: "PowerUserAccess",
        path: "/",
        id: "ANPAJYRXTHIB4FOVS3ZXS",
        description: "Provides full access to AWS services and resources, but does not allow management of Users and groups.",
        default_version: "v12",
        // 2015-02-06T18:39Z; 2026-02-12T17:59Z (to the minute).
        created: 1_423_247_940,
        updated: 1_770_919_140,
        document: document!("PowerUserAccess"),
    },
    AwsPolicy {
        name: "AmazonS3FullAccess",
        path: "/",
        id: "ANPAIFIR6V6BVTRAHWINE",
        description: "Provides full access to all buckets via the AWS Management Console.",
        default_version: "v2",
        // 2015-02-06T18:40:58Z; 2021-09-27T20:16:37Z.
        created: 1_423_248_058,
        updated: 1_632_773_797,
        document: document!("AmazonS3FullAccess"),
    },
    AwsPolicy {
        name: "AmazonS3ReadOnlyAccess",
        path: "/",
        id: "ANPAIZTJ4DXE7G6AGAE6M",
        description: "Provides read only access to all buckets via the AWS Management Console.",
        default_version: "v3",
        // 2015-02-06T18:40:59Z; 2023-08-10T21:31:39Z.
        created: 1_423_248_059,
        updated: 1_691_703_099,
        document: document!("AmazonS3ReadOnlyAccess"),
    },
    AwsPolicy {
        name: "AmazonSQSFullAccess",
        path: "/",
        id: "ANPAI65L554VRJ33ECQS6",
        description: "Provides full access to Amazon SQS via the AWS Management Console.",
        default_version: "v1",
        // 2015-02-06T18:41:07Z, never edited.
        created: 1_423_248_067,
        updated: 1_423_248_067,
        document: document!("AmazonSQSFullAccess"),
    },
    AwsPolicy {
        name: "AmazonSQSReadOnlyAccess",
        path: "/",
        id: "ANPAIUGSSQY362XGCM6KW",
        description: "Provides read only access to Amazon SQS via the AWS Management Console.",
        default_version: "v4",
        // 2015-02-06T18:41Z; 2024-05-24T18:16Z (to the minute).
        created: 1_423_248_060,
        updated: 1_716_574_560,
        document: document!("AmazonSQSReadOnlyAccess"),
    },
    AwsPolicy {
        name: "AmazonSNSFullAccess",
        path: "/",
        id: "ANPAJWEKLCXXUNT2SOLSG",
        description: "Provides full access to Amazon SNS via the AWS Management Console.",
        default_version: "v2",
        // 2015-02-06T18:41Z; 2024-09-24T22:32Z (to the minute).
        created: 1_423_248_060,
        updated: 1_727_217_120,
        document: document!("AmazonSNSFullAccess"),
    },
    AwsPolicy {
        name: "AmazonDynamoDBFullAccess",
        path: "/",
        id: "ANPAINUGF2JSOSUY76KYA",
        description: "Provides full access to Amazon DynamoDB via the AWS Management Console.",
        default_version: "v15",
        // 2015-02-06T18:40:11Z; 2021-01-29T17:38:30Z.
        created: 1_423_248_011,
        updated: 1_611_941_910,
        document: document!("AmazonDynamoDBFullAccess"),
    },
    AwsPolicy {
        name: "AWSLambdaExecute",
        path: "/",
        id: "ANPAJE5FX7FQZSU5XAKGO",
        description: "Provides Put, Get access to S3 and full access to CloudWatch Logs.",
        default_version: "v1",
        // 2015-02-06T18:40:46Z, never edited.
        created: 1_423_248_046,
        updated: 1_423_248_046,
        document: document!("AWSLambdaExecute"),
    },
    AwsPolicy {
        name: "AWSLambdaBasicExecutionRole",
        path: "/service-role/",
        id: "ANPAJNCQGXC42545SKXIK",
        description: "Provides write permissions to CloudWatch Logs.",
        default_version: "v1",
        // 2015-04-09T15:03:43Z, never edited.
        created: 1_428_591_823,
        updated: 1_428_591_823,
        document: document!("AWSLambdaBasicExecutionRole"),
    },
    AwsPolicy {
        name: "AWSLambdaDynamoDBExecutionRole",
        path: "/service-role/",
        id: "ANPAIP7WNAGMIPYNW4WQG",
        description: "Provides list and read access to DynamoDB streams and write permissions to CloudWatch logs.",
        default_version: "v1",
        // 2015-04-09T15:09:29Z, never edited.
        created: 1_428_592_169,
        updated: 1_428_592_169,
        document: document!("AWSLambdaDynamoDBExecutionRole"),
    },
    AwsPolicy {
        name: "AWSLambdaKinesisExecutionRole",
        path: "/service-role/",
        id: "ANPAJHOLKJPXV4GBRMJUQ",
        description: "Provides list and read access to Kinesis streams and write permissions to CloudWatch logs.",
        default_version: "v2",
        // 2015-04-09T15:14:16Z; 2018-11-19T20:09Z (to the minute).
        created: 1_428_592_456,
        updated: 1_542_658_140,
        document: document!("AWSLambdaKinesisExecutionRole"),
    },
    AwsPolicy {
        name: "AWSLambdaVPCAccessExecutionRole",
        path: "/service-role/",
        id: "ANPAJVTME3YLVNL72YR2K",
        description: "Provides minimum permissions for a Lambda function to execute while accessing a resource within a VPC - create, describe, delete network interfaces and write permissions to CloudWatch Logs.",
        default_version: "v3",
        // 2016-02-11T23:15Z; 2024-01-05T22:38Z (to the minute).
        created: 1_455_232_500,
        updated: 1_704_494_280,
        document: document!("AWSLambdaVPCAccessExecutionRole"),
    },
    AwsPolicy {
        name: "AWSLambdaRole",
        path: "/service-role/",
        id: "ANPAJX4DPCRGTC4NFDUXI",
        description: "Default policy for AWS Lambda service role.",
        default_version: "v1",
        // 2015-02-06T18:41:28Z, never edited.
        created: 1_423_248_088,
        updated: 1_423_248_088,
        document: document!("AWSLambdaRole"),
    },
];

impl AwsPolicy {
    /// Its ARN in `region`'s partition.
    pub(crate) fn arn(&self, region: &str) -> String {
        format!("arn:{}:iam::aws:policy{}{}", partition_of(region), self.path, self.name)
    }

    pub(crate) fn wire(&self, region: &str, attachment_count: i32) -> Policy {
        Policy {
            policy_name: Some(self.name.into()),
            policy_id: Some(self.id.into()),
            arn: Some(self.arn(region)),
            path: Some(self.path.into()),
            default_version_id: Some(self.default_version.into()),
            attachment_count: Some(attachment_count),
            permissions_boundary_usage_count: Some(0),
            is_attachable: true,
            description: Some(self.description.into()),
            create_date: Some(date(self.created)),
            update_date: Some(date(self.updated)),
            tags: None,
        }
    }

    /// The default version, the only one Stratus has of an AWS policy.
    pub(crate) fn version(&self, version_id: &str) -> Option<PolicyVersion> {
        (version_id == self.default_version).then(|| PolicyVersion {
            document: Some(url_encode(self.document)),
            version_id: Some(self.default_version.into()),
            is_default_version: true,
            create_date: Some(date(self.updated)),
        })
    }
}

/// The AWS managed policy `arn` names, if Stratus has it.
pub(crate) fn find(arn: &str) -> Option<&'static AwsPolicy> {
    let resource = arn.strip_prefix("arn:")?.split_once(":iam::aws:policy")?.1;
    AWS_POLICIES
        .iter()
        .find(|p| resource.strip_prefix(p.path).is_some_and(|rest| rest == p.name))
}

#[cfg(test)]
mod tests {
    use stratus_policy::{Policy, PolicyKind};

    use super::*;

    #[test]
    fn every_shipped_document_is_a_valid_identity_policy() {
        for policy in AWS_POLICIES {
            Policy::parse(policy.document, PolicyKind::Identity).unwrap_or_else(|e| panic!("{}: {e}", policy.name));
            assert_eq!(policy.id.len(), 21);
        }
    }

    #[test]
    fn every_policy_has_a_document_and_a_unique_name_and_id() {
        let mut names: Vec<&str> = AWS_POLICIES.iter().map(|p| p.name).collect();
        let mut ids: Vec<&str> = AWS_POLICIES.iter().map(|p| p.id).collect();
        names.sort_unstable();
        names.dedup();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!((names.len(), ids.len()), (AWS_POLICIES.len(), AWS_POLICIES.len()));
        for policy in AWS_POLICIES {
            assert!(policy.id.starts_with("ANPA"), "{}", policy.name);
            assert!(policy.created <= policy.updated, "{}", policy.name);
            assert!(policy.default_version.starts_with('v'), "{}", policy.name);
        }
    }

    #[test]
    fn arns_name_path_and_name() {
        let lambda = find("arn:aws:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole").unwrap();
        assert_eq!(
            lambda.arn("us-east-1"),
            "arn:aws:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole"
        );
        assert!(find("arn:aws:iam::aws:policy/AWSLambdaBasicExecutionRole").is_none());
        assert!(find("arn:aws:iam::aws:policy/NoSuchPolicy").is_none());
        assert!(find("arn:aws:iam::123456789012:policy/AdministratorAccess").is_none());
    }
}
