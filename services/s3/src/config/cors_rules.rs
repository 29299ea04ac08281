//! The checks of a bucket's CORS configuration (requests are evaluated by [`crate::cors`]).

use stratus_core::AwsError;
use stratus_gen_s3::*;

use crate::error::S3Error;

/// AWS's CORS rules: 1 to 100 rules, methods GET, PUT, POST, DELETE and HEAD, at most one
/// wildcard in an origin.
pub(crate) fn check_cors(rules: &[CORSRule]) -> Result<(), AwsError> {
    if rules.is_empty() || rules.len() > 100 {
        return Err(S3Error::malformed_xml());
    }
    for rule in rules {
        for method in &rule.allowed_methods {
            if !["GET", "PUT", "POST", "DELETE", "HEAD"].contains(&method.as_str()) {
                return Err(S3Error::invalid_request(format!(
                    "Found unsupported HTTP method in CORS config. Unsupported method is {method}"
                )));
            }
        }
        for origin in &rule.allowed_origins {
            if origin.matches('*').count() > 1 {
                return Err(S3Error::invalid_request(format!(
                    "AllowedOrigin \"{origin}\" can not have more than one wildcard."
                )));
            }
        }
        for header in rule.allowed_headers.iter().flatten() {
            if header.matches('*').count() > 1 {
                return Err(S3Error::invalid_request(format!(
                    "AllowedHeader \"{header}\" can not have more than one wildcard."
                )));
            }
        }
    }
    Ok(())
}
