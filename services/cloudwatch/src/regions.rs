//! The long names of regions, which alarm notifications carry (`Region`) and their subjects
//! end with.

/// The name AWS gives `region` in alarm notifications, e.g. `US East (N. Virginia)`; the
/// code itself for a region not listed.
pub(crate) fn long_name(region: &str) -> &str {
    match region {
        "us-east-1" => "US East (N. Virginia)",
        "us-east-2" => "US East (Ohio)",
        "us-west-1" => "US West (N. California)",
        "us-west-2" => "US West (Oregon)",
        "af-south-1" => "Africa (Cape Town)",
        "ap-east-1" => "Asia Pacific (Hong Kong)",
        "ap-south-1" => "Asia Pacific (Mumbai)",
        "ap-south-2" => "Asia Pacific (Hyderabad)",
        "ap-northeast-1" => "Asia Pacific (Tokyo)",
        "ap-northeast-2" => "Asia Pacific (Seoul)",
        "ap-northeast-3" => "Asia Pacific (Osaka)",
        "ap-southeast-1" => "Asia Pacific (Singapore)",
        "ap-southeast-2" => "Asia Pacific (Sydney)",
        "ap-southeast-3" => "Asia Pacific (Jakarta)",
        "ap-southeast-4" => "Asia Pacific (Melbourne)",
        "ca-central-1" => "Canada (Central)",
        "ca-west-1" => "Canada West (Calgary)",
        "eu-central-1" => "EU (Frankfurt)",
        "eu-central-2" => "EU (Zurich)",
        "eu-west-1" => "EU (Ireland)",
        "eu-west-2" => "EU (London)",
        "eu-west-3" => "EU (Paris)",
        "eu-north-1" => "EU (Stockholm)",
        "eu-south-1" => "EU (Milan)",
        "eu-south-2" => "EU (Spain)",
        "il-central-1" => "Israel (Tel Aviv)",
        "me-south-1" => "Middle East (Bahrain)",
        "me-central-1" => "Middle East (UAE)",
        "sa-east-1" => "South America (Sao Paulo)",
        "us-gov-east-1" => "AWS GovCloud (US-East)",
        "us-gov-west-1" => "AWS GovCloud (US-West)",
        "cn-north-1" => "China (Beijing)",
        "cn-northwest-1" => "China (Ningxia)",
        other => other,
    }
}
