//! A parameter's versions: GetParameterHistory, and the labels that name versions
//! (LabelParameterVersion, UnlabelParameterVersion) with AWS's rules for them.

use stratus_core::paging::Token;
use stratus_core::RequestContext;
use stratus_gen_ssm::{
    GetParameterHistoryRequest, GetParameterHistoryResult, LabelParameterVersionRequest, LabelParameterVersionResult,
    UnlabelParameterVersionRequest, UnlabelParameterVersionResult,
};
use stratus_storage::{Direction, KeyRange};

use crate::error::{invalid_token, parameter_not_found, refuse, version_not_found, SsmError};
use crate::names::key_of;
use crate::ops::parameters::plain_reference;
use crate::records::{versions_prefix, ParameterRecord, PARAMETERS, VERSIONS};
use crate::service::SsmService;

const HISTORY: Token = Token::for_listing("ssm:GetParameterHistory");
/// GetParameterHistory's page when the request names none (its most).
const HISTORY_PAGE: usize = 50;
/// The most labels one version may carry.
const MAX_LABELS: usize = 10;

pub(crate) async fn get_parameter_history(
    ssm: &SsmService,
    ctx: &RequestContext,
    input: GetParameterHistoryRequest,
) -> Result<GetParameterHistoryResult, SsmError> {
    let reference = plain_reference(&input.name)?;
    let key = key_of(&reference.name);
    let store = ssm.store_of(ctx)?;
    let record = PARAMETERS.get(&*store, &key)?.ok_or_else(parameter_not_found)?;
    let after = match &input.next_token {
        Some(token) => Some(HISTORY.decode(token).map_err(|_| invalid_token())?),
        None => None,
    };
    let prefix = KeyRange::prefix(&versions_prefix(&key));
    let range = match &after {
        Some(after) => KeyRange::between(std::ops::Bound::Excluded(after), prefix.end()),
        None => prefix,
    };
    let page = input.max_results.map_or(HISTORY_PAGE, |n| n.max(1) as usize);
    let mut rows = VERSIONS.scan(&*store, &range, Direction::Forward, Some(page + 1))?;
    let next_token = (rows.len() > page).then(|| {
        rows.truncate(page);
        HISTORY.encode(&rows[page - 1].0)
    });
    let decrypt = input.with_decryption == Some(true);
    let mut parameters = Vec::with_capacity(rows.len());
    for (_, version) in rows {
        let value = ssm.value_of(ctx, &record.name, &version, decrypt).await?;
        parameters.push(version.history(&record.name, value, record.labels_of(version.version)));
    }
    Ok(GetParameterHistoryResult {
        parameters: Some(parameters),
        next_token,
    })
}

/// Whether AWS accepts `label`: letters, digits, `.`, `-`, `_`, not beginning with a digit,
/// `aws` or `ssm` (in any case), at most 100 characters.
fn valid_label(label: &str) -> bool {
    let lower = label.to_ascii_lowercase();
    label.len() <= 100
        && label
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_'))
        && !label.starts_with(|c: char| c.is_ascii_digit())
        && !lower.starts_with("aws")
        && !lower.starts_with("ssm")
}

/// Checks that `version` is one `record` keeps.
fn check_version(record: &ParameterRecord, version: i64) -> Result<(), SsmError> {
    if version < record.oldest || version > record.current.version {
        return Err(version_not_found(&record.name, version));
    }
    Ok(())
}

pub(crate) async fn label_parameter_version(
    ssm: &SsmService,
    ctx: &RequestContext,
    input: LabelParameterVersionRequest,
) -> Result<LabelParameterVersionResult, SsmError> {
    let key = key_of(&plain_reference(&input.name)?.name);
    let labels = input.labels;
    let asked = input.parameter_version;
    ssm.transact(ctx, move |tx| {
        let mut record = PARAMETERS.get(tx, &key)?.ok_or_else(parameter_not_found)?;
        let version = asked.unwrap_or(record.current.version);
        check_version(&record, version)?;
        let (valid, invalid): (Vec<String>, Vec<String>) = labels.into_iter().partition(|l| valid_label(l));
        // A label names one version: attaching it here moves it from wherever it was.
        for label in valid {
            record.labels.insert(label, version);
        }
        if record.labels_of(version).len() > MAX_LABELS {
            return Err(refuse(
                "ParameterVersionLabelLimitExceeded",
                "A parameter version can have maximum 10 labels.Move one or more labels to another version and try \
                 again.",
            ));
        }
        PARAMETERS.put(tx, key.as_bytes().to_vec(), &record)?;
        Ok(LabelParameterVersionResult {
            invalid_labels: Some(invalid),
            parameter_version: version,
        })
    })
    .await
}

pub(crate) async fn unlabel_parameter_version(
    ssm: &SsmService,
    ctx: &RequestContext,
    input: UnlabelParameterVersionRequest,
) -> Result<UnlabelParameterVersionResult, SsmError> {
    let key = key_of(&plain_reference(&input.name)?.name);
    let labels = input.labels;
    let version = input.parameter_version;
    ssm.transact(ctx, move |tx| {
        let mut record = PARAMETERS.get(tx, &key)?.ok_or_else(parameter_not_found)?;
        check_version(&record, version)?;
        let (removed, invalid): (Vec<String>, Vec<String>) =
            labels.into_iter().partition(|l| record.labels.get(l) == Some(&version));
        for label in &removed {
            record.labels.remove(label);
        }
        PARAMETERS.put(tx, key.as_bytes().to_vec(), &record)?;
        Ok(UnlabelParameterVersionResult {
            removed_labels: Some(removed),
            invalid_labels: Some(invalid),
        })
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::valid_label;

    #[test]
    fn label_rules() {
        for good in ["prod", "Release-1.2_x", "a1"] {
            assert!(valid_label(good), "{good}");
        }
        for bad in ["1st", "aws-x", "AWSx", "SSM", "a b", "a/b", &"x".repeat(101)] {
            assert!(!valid_label(bad), "{bad}");
        }
    }
}
