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

/// 2015-02-06T18:39:46Z and 18:40:58Z, when IAM's first managed policies were published.
const FIRST: u64 = 1_423_247_986;
const FIRST_SERVICE: u64 = 1_423_248_058;

pub(crate) const AWS_POLICIES: &[AwsPolicy] = &[
    AwsPolicy {
        name: "AdministratorAccess",
        path: "/",
        id: "ANPAIWMBCKSKIEE64ZLYK",
        description: "Provides full access to AWS services and resources.",
        default_version: "v1",
        created: FIRST,
        updated: FIRST,
        document: document!("AdministratorAccess"),
    },
    AwsPolicy {
        name: "PowerUserAccess",
        path: "/",
        id: "ANPAJYRXTHIB4FOVS3ZXS",
        description: "Provides full access to AWS services and resources, but does not allow management of Users and groups.",
        default_version: "v12",
        created: FIRST,
        // 2026-02-12T17:59:00Z, the edit the published document is of.
        updated: 1_770_919_140,
        document: document!("PowerUserAccess"),
    },
    AwsPolicy {
        name: "AmazonS3FullAccess",
        path: "/",
        id: "ANPAIFIR6V6BVTRAHWINE",
        description: "Provides full access to all buckets via the AWS Management Console.",
        default_version: "v2",
        created: FIRST_SERVICE,
        updated: FIRST_SERVICE,
        document: document!("AmazonS3FullAccess"),
    },
    AwsPolicy {
        name: "AmazonS3ReadOnlyAccess",
        path: "/",
        id: "ANPAIZTJ4DXE7G6AGAE6M",
        description: "Provides read only access to all buckets via the AWS Management Console.",
        default_version: "v3",
        created: FIRST_SERVICE,
        updated: FIRST_SERVICE,
        document: document!("AmazonS3ReadOnlyAccess"),
    },
    AwsPolicy {
        name: "AmazonSQSFullAccess",
        path: "/",
        id: "ANPAI65L554VRJ33ECQS6",
        description: "Provides full access to Amazon SQS via the AWS Management Console.",
        default_version: "v1",
        created: FIRST_SERVICE,
        updated: FIRST_SERVICE,
        document: document!("AmazonSQSFullAccess"),
    },
    AwsPolicy {
        name: "AWSLambdaExecute",
        path: "/",
        id: "ANPAJE5FX7FQZSU5XAKGO",
        description: "Provides Put, Get access to S3 and full access to CloudWatch Logs.",
        default_version: "v1",
        created: FIRST_SERVICE,
        updated: FIRST_SERVICE,
        document: document!("AWSLambdaExecute"),
    },
    AwsPolicy {
        name: "AWSLambdaBasicExecutionRole",
        path: "/service-role/",
        id: "ANPAJNCQGXC42545SKXIK",
        description: "Provides write permissions to CloudWatch Logs.",
        default_version: "v1",
        created: FIRST_SERVICE,
        updated: FIRST_SERVICE,
        document: document!("AWSLambdaBasicExecutionRole"),
    },
    AwsPolicy {
        name: "AWSLambdaSQSQueueExecutionRole",
        path: "/service-role/",
        id: "ANPAJFWJZI6JNND4TSELK",
        description: "Provides receive message, delete message, and read attribute access to SQS queues, and write permissions to CloudWatch logs.",
        default_version: "v2",
        created: FIRST_SERVICE,
        updated: FIRST_SERVICE,
        document: document!("AWSLambdaSQSQueueExecutionRole"),
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
