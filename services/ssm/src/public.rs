//! Public parameters: the read-only `/aws/service/...` names that SDKs, CDK and templates
//! read — the latest Amazon Linux, ECS, EKS, Bottlerocket, Ubuntu and Windows AMIs, and the
//! global infrastructure's regions and services. Nothing is stored: the table below is read
//! for the request's region, and each AMI id is a stable digest of (region, name), so a
//! stack synthesized twice sees the same image.

use sha2::{Digest, Sha256};

/// The root of every public parameter.
pub(crate) const ROOT: &str = "/aws/service/";

/// When every public parameter was last modified, as they report it (2025-01-01).
pub(crate) const MODIFIED_MS: i64 = 1_735_689_600_000;

const REGIONS: &[(&str, &str)] = &[
    ("af-south-1", "Africa (Cape Town)"),
    ("ap-east-1", "Asia Pacific (Hong Kong)"),
    ("ap-northeast-1", "Asia Pacific (Tokyo)"),
    ("ap-northeast-2", "Asia Pacific (Seoul)"),
    ("ap-northeast-3", "Asia Pacific (Osaka)"),
    ("ap-south-1", "Asia Pacific (Mumbai)"),
    ("ap-south-2", "Asia Pacific (Hyderabad)"),
    ("ap-southeast-1", "Asia Pacific (Singapore)"),
    ("ap-southeast-2", "Asia Pacific (Sydney)"),
    ("ap-southeast-3", "Asia Pacific (Jakarta)"),
    ("ap-southeast-4", "Asia Pacific (Melbourne)"),
    ("ca-central-1", "Canada (Central)"),
    ("ca-west-1", "Canada West (Calgary)"),
    ("eu-central-1", "Europe (Frankfurt)"),
    ("eu-central-2", "Europe (Zurich)"),
    ("eu-north-1", "Europe (Stockholm)"),
    ("eu-south-1", "Europe (Milan)"),
    ("eu-south-2", "Europe (Spain)"),
    ("eu-west-1", "Europe (Ireland)"),
    ("eu-west-2", "Europe (London)"),
    ("eu-west-3", "Europe (Paris)"),
    ("il-central-1", "Israel (Tel Aviv)"),
    ("me-central-1", "Middle East (UAE)"),
    ("me-south-1", "Middle East (Bahrain)"),
    ("sa-east-1", "South America (Sao Paulo)"),
    ("us-east-1", "US East (N. Virginia)"),
    ("us-east-2", "US East (Ohio)"),
    ("us-west-1", "US West (N. California)"),
    ("us-west-2", "US West (Oregon)"),
];

const SERVICES: &[(&str, &str)] = &[
    ("acm", "AWS Certificate Manager"),
    ("cloudformation", "AWS CloudFormation"),
    ("dynamodb", "Amazon DynamoDB"),
    ("ec2", "Amazon Elastic Compute Cloud (EC2)"),
    ("events", "Amazon EventBridge"),
    ("iam", "AWS Identity and Access Management (IAM)"),
    ("kinesis", "Amazon Kinesis Data Streams"),
    ("kms", "AWS Key Management Service"),
    ("lambda", "AWS Lambda"),
    ("logs", "Amazon CloudWatch Logs"),
    ("s3", "Amazon Simple Storage Service (S3)"),
    ("secretsmanager", "AWS Secrets Manager"),
    ("sns", "Amazon Simple Notification Service (SNS)"),
    ("sqs", "Amazon Simple Queue Service (SQS)"),
    ("ssm", "AWS Systems Manager"),
    ("states", "AWS Step Functions"),
    ("sts", "AWS Security Token Service"),
];

/// The names whose value is an AMI id, below [`ROOT`].
const IMAGES: &[&str] = &[
    "ami-amazon-linux-latest/al2023-ami-kernel-default-x86_64",
    "ami-amazon-linux-latest/al2023-ami-kernel-default-arm64",
    "ami-amazon-linux-latest/al2023-ami-kernel-6.1-x86_64",
    "ami-amazon-linux-latest/al2023-ami-kernel-6.1-arm64",
    "ami-amazon-linux-latest/al2023-ami-minimal-kernel-default-x86_64",
    "ami-amazon-linux-latest/al2023-ami-minimal-kernel-default-arm64",
    "ami-amazon-linux-latest/amzn2-ami-hvm-x86_64-gp2",
    "ami-amazon-linux-latest/amzn2-ami-hvm-arm64-gp2",
    "ami-amazon-linux-latest/amzn2-ami-hvm-x86_64-ebs",
    "ami-amazon-linux-latest/amzn2-ami-kernel-5.10-hvm-x86_64-gp2",
    "ami-amazon-linux-latest/amzn2-ami-kernel-5.10-hvm-arm64-gp2",
    "ami-amazon-linux-latest/amzn-ami-hvm-x86_64-gp2",
    "ami-windows-latest/Windows_Server-2022-English-Full-Base",
    "ami-windows-latest/Windows_Server-2019-English-Full-Base",
    "bottlerocket/aws-ecs-2/x86_64/latest/image_id",
    "bottlerocket/aws-ecs-2/arm64/latest/image_id",
    "canonical/ubuntu/server/22.04/stable/current/amd64/hvm/ebs-gp2/ami-id",
    "canonical/ubuntu/server/24.04/stable/current/amd64/hvm/ebs-gp3/ami-id",
    "canonical/ubuntu/server/24.04/stable/current/arm64/hvm/ebs-gp3/ami-id",
    "ecs/optimized-ami/amazon-linux-2/recommended/image_id",
    "ecs/optimized-ami/amazon-linux-2/arm64/recommended/image_id",
    "ecs/optimized-ami/amazon-linux-2023/recommended/image_id",
    "ecs/optimized-ami/amazon-linux-2023/arm64/recommended/image_id",
    "eks/optimized-ami/1.29/amazon-linux-2/recommended/image_id",
    "eks/optimized-ami/1.30/amazon-linux-2/recommended/image_id",
    "eks/optimized-ami/1.31/amazon-linux-2/recommended/image_id",
    "eks/optimized-ami/1.31/amazon-linux-2023/x86_64/standard/recommended/image_id",
];

/// One public parameter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Public {
    pub(crate) name: String,
    pub(crate) value: String,
}

/// A stable AMI id for `name` in `region`: `ami-` and 17 hex digits.
fn image_id(region: &str, name: &str) -> String {
    let digest = Sha256::digest(format!("{region}\0{name}").as_bytes());
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    format!("ami-0{}", &hex[..16])
}

/// Every public parameter of `region`, in name order.
pub(crate) fn all(region: &str) -> Vec<Public> {
    let mut out = Vec::new();
    let mut push = |name: String, value: String| out.push(Public { name, value });
    for name in IMAGES {
        push(format!("{ROOT}{name}"), image_id(region, name));
    }
    let infra = format!("{ROOT}global-infrastructure");
    for (code, long) in REGIONS {
        let at = format!("{infra}/regions/{code}");
        push(format!("{at}/longName"), (*long).to_owned());
        push(format!("{at}/partition"), "aws".to_owned());
        push(format!("{at}/domain"), "amazonaws.com".to_owned());
        push(at, (*code).to_owned());
    }
    for (code, long) in SERVICES {
        let at = format!("{infra}/services/{code}");
        push(format!("{at}/longName"), (*long).to_owned());
        push(at, (*code).to_owned());
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

/// The public parameter `key` (a name with its leading `/`), if there is one.
pub(crate) fn find(region: &str, key: &str) -> Option<Public> {
    key.starts_with(ROOT)
        .then(|| all(region).into_iter().find(|p| p.name == key))
        .flatten()
}

/// The ARN of a public parameter, which names no account.
pub(crate) fn arn(region: &str, name: &str) -> String {
    format!(
        "arn:{}:ssm:{region}::parameter{name}",
        stratus_core::arn::partition_of(region)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn images_are_stable_per_region() {
        let key = "/aws/service/ami-amazon-linux-latest/al2023-ami-kernel-default-x86_64";
        let a = find("us-east-1", key).unwrap().value;
        assert_eq!(a, find("us-east-1", key).unwrap().value);
        assert_ne!(a, find("eu-west-1", key).unwrap().value);
        assert_eq!(a.len(), "ami-".len() + 17);
        assert_eq!(
            find("us-east-1", "/aws/service/global-infrastructure/regions/eu-west-1")
                .unwrap()
                .value,
            "eu-west-1"
        );
        assert!(find("us-east-1", "/aws/service/none").is_none());
    }
}
