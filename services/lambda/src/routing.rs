//! An alias's routing configuration: checked as Lambda checks it, and honoured on invoke by
//! a weighted random choice of version.

use std::collections::BTreeMap;

use stratus_core::AwsError;

use crate::error::invalid_parameter;
use crate::names::LATEST;

/// Checks `weights` for an alias pointing at `primary`; `exists` says whether a published
/// version exists (its absence answers `Function not found` for `arn:VERSION`).
pub(crate) fn check(
    primary: &str,
    weights: &BTreeMap<String, f64>,
    exists: impl Fn(&str) -> bool,
    function_arn: &str,
) -> Result<(), AwsError> {
    if weights.is_empty() {
        return Ok(());
    }
    if weights.len() > 1 {
        return Err(invalid_parameter(
            "Number of items in AdditionalVersionWeights cannot be greater than 1",
        ));
    }
    if primary == LATEST {
        return Err(invalid_parameter(
            "$LATEST is not supported for an alias pointing to more than 1 version",
        ));
    }
    for version in weights.keys() {
        if version == primary {
            return Err(invalid_parameter(format!(
                "Invalid function version {version}. Function version {version} is already included in routing \
                 configuration."
            )));
        }
        if !exists(version) {
            return Err(crate::error::function_not_found(&format!("{function_arn}:{version}")));
        }
    }
    Ok(())
}

/// The version an invocation of an alias runs: an additional version with its weight's
/// probability, else the primary. `draw` is uniform in `[0, 1)`.
pub(crate) fn choose<'a>(primary: &'a str, weights: &'a BTreeMap<String, f64>, draw: f64) -> &'a str {
    let mut edge = 0.0;
    for (version, weight) in weights {
        edge += weight;
        if draw < edge {
            return version;
        }
    }
    primary
}

/// A uniform draw in `[0, 1)`.
pub(crate) fn draw() -> f64 {
    (stratus_core::id::random_u64() >> 11) as f64 / (1u64 << 53) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    const ARN: &str = "arn:aws:lambda:us-east-1:000000000000:function:f";

    #[test]
    fn routing_configurations_are_checked_as_lambda_checks_them() {
        let one = BTreeMap::from([("2".to_string(), 0.5)]);
        assert!(check("1", &one, |_| true, ARN).is_ok());
        assert!(check("1", &BTreeMap::new(), |_| false, ARN).is_ok());
        let e = check("2", &one, |_| true, ARN).unwrap_err();
        assert!(e.message.starts_with("Invalid function version 2."));
        let e = check("$LATEST", &one, |_| true, ARN).unwrap_err();
        assert_eq!(
            e.message,
            "$LATEST is not supported for an alias pointing to more than 1 version"
        );
        let e = check("1", &one, |_| false, ARN).unwrap_err();
        assert_eq!(e.message, format!("Function not found: {ARN}:2"));
        let two = BTreeMap::from([("2".to_string(), 0.1), ("3".to_string(), 0.1)]);
        assert!(check("1", &two, |_| true, ARN)
            .unwrap_err()
            .message
            .contains("cannot be greater than 1"));
    }

    #[test]
    fn the_weighted_choice_follows_the_draw() {
        let w = BTreeMap::from([("2".to_string(), 0.25)]);
        assert_eq!(choose("1", &w, 0.1), "2");
        assert_eq!(choose("1", &w, 0.3), "1");
        assert_eq!(choose("1", &BTreeMap::new(), 0.0), "1");
        for _ in 0..100 {
            let d = draw();
            assert!((0.0..1.0).contains(&d));
        }
    }
}
