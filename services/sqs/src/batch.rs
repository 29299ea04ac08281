//! What every batch operation checks and reports alike.

use std::collections::HashSet;

use stratus_gen_sqs::BatchResultErrorEntry;

use crate::error::SqsError;

/// AWS's checks of a batch's entry ids: at least one, at most ten, well-formed, distinct.
pub(crate) fn check_batch<'a>(
    ids: impl ExactSizeIterator<Item = &'a str>,
    entry: &'static str,
) -> Result<(), SqsError> {
    match ids.len() {
        0 => return Err(SqsError::EmptyBatchRequest(entry)),
        n if n > 10 => return Err(SqsError::TooManyEntriesInBatchRequest(n)),
        _ => {}
    }
    let mut seen = HashSet::new();
    for id in ids {
        let well_formed =
            (1..=80).contains(&id.len()) && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
        if !well_formed {
            return Err(SqsError::InvalidBatchEntryId);
        }
        if !seen.insert(id) {
            return Err(SqsError::BatchEntryIdsNotDistinct(id.to_owned()));
        }
    }
    Ok(())
}

/// A batch entry's failure as AWS reports it.
pub(crate) fn failed(id: String, e: SqsError) -> BatchResultErrorEntry {
    let e = e.into_aws();
    BatchResultErrorEntry {
        id,
        sender_fault: e.http_status < 500,
        code: e.code,
        message: Some(e.message),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batch_checks() {
        assert!(matches!(
            check_batch([].into_iter(), "E"),
            Err(SqsError::EmptyBatchRequest("E"))
        ));
        assert!(matches!(
            check_batch(["a"; 11].into_iter(), "E"),
            Err(SqsError::TooManyEntriesInBatchRequest(11))
        ));
        assert!(matches!(
            check_batch(["a", "a"].into_iter(), "E"),
            Err(SqsError::BatchEntryIdsNotDistinct(_))
        ));
        assert!(matches!(
            check_batch(["a b"].into_iter(), "E"),
            Err(SqsError::InvalidBatchEntryId)
        ));
        assert!(check_batch(["a", "b-1_"].into_iter(), "E").is_ok());
    }
}
