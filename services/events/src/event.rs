//! Events as EventBridge builds them from `PutEvents` entries, the checks each entry gets
//! (answered per entry, not for the request), and the check `TestEventPattern` makes of the
//! event it is given.

use serde_json::{Map, Value};
use stratus_core::calendar::format_iso8601;

/// The most a `PutEvents` request may carry, counted as AWS counts entry sizes, in bytes.
pub(crate) const MAX_REQUEST_BYTES: usize = 256 * 1024;

/// An entry's failure: its `ErrorCode` and `ErrorMessage`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct EntryError {
    pub(crate) code: &'static str,
    pub(crate) message: String,
}

fn required(member: &str) -> EntryError {
    EntryError {
        code: "InvalidArgument",
        message: format!("Parameter {member} is not valid. Reason: {member} is a required argument."),
    }
}

/// One entry's fields, as the request gave them.
pub(crate) struct Entry<'a> {
    pub(crate) source: Option<&'a str>,
    pub(crate) detail_type: Option<&'a str>,
    pub(crate) detail: Option<&'a str>,
    pub(crate) resources: &'a [String],
    /// Seconds since the epoch, when the entry gives a time.
    pub(crate) time_secs: Option<i64>,
}

/// Who the event is put for.
pub(crate) struct Origin<'a> {
    pub(crate) id: &'a str,
    pub(crate) account: &'a str,
    pub(crate) region: &'a str,
    pub(crate) now_secs: i64,
}

/// The event AWS delivers for `entry`, fields in AWS's order, or why the entry is refused.
pub(crate) fn build(entry: &Entry<'_>, origin: &Origin<'_>) -> Result<Value, EntryError> {
    let source = entry
        .source
        .filter(|s| !s.is_empty())
        .ok_or_else(|| required("Source"))?;
    let detail_type = entry
        .detail_type
        .filter(|s| !s.is_empty())
        .ok_or_else(|| required("DetailType"))?;
    let detail = entry
        .detail
        .filter(|s| !s.is_empty())
        .ok_or_else(|| required("Detail"))?;
    let detail: Value = match serde_json::from_str(detail) {
        Ok(Value::Object(object)) => Value::Object(object),
        _ => {
            return Err(EntryError {
                code: "MalformedDetail",
                message: "Detail is malformed.".to_owned(),
            })
        }
    };
    let mut event = Map::new();
    event.insert("version".into(), "0".into());
    event.insert("id".into(), origin.id.into());
    event.insert("detail-type".into(), detail_type.into());
    event.insert("source".into(), source.into());
    event.insert("account".into(), origin.account.into());
    event.insert(
        "time".into(),
        format_iso8601(entry.time_secs.unwrap_or(origin.now_secs)).into(),
    );
    event.insert("region".into(), origin.region.into());
    event.insert(
        "resources".into(),
        Value::Array(entry.resources.iter().map(|r| Value::String(r.clone())).collect()),
    );
    event.insert("detail".into(), detail);
    Ok(Value::Object(event))
}

/// An entry's size as AWS counts it towards the request's 256 KB: its time (14 bytes when
/// given), the UTF-8 lengths of Source, DetailType and Detail, and of each resource.
pub(crate) fn entry_size(entry: &Entry<'_>) -> usize {
    let mut size = if entry.time_secs.is_some() { 14 } else { 0 };
    for text in [entry.source, entry.detail_type, entry.detail].into_iter().flatten() {
        size += text.len();
    }
    size + entry.resources.iter().map(String::len).sum::<usize>()
}

/// The fields `TestEventPattern` requires of its event.
const MANDATORY: [&str; 6] = ["id", "account", "source", "time", "region", "detail-type"];

/// The event `TestEventPattern` was given, or `None` when AWS refuses it ("Parameter Event
/// is not valid."): a JSON object with every mandatory field.
pub(crate) fn test_event(text: &str) -> Option<Value> {
    let value: Value = serde_json::from_str(text).ok()?;
    let object = value.as_object()?;
    MANDATORY.iter().all(|f| object.contains_key(*f)).then_some(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn origin() -> Origin<'static> {
        Origin {
            id: "e-1",
            account: "000000000000",
            region: "us-east-1",
            now_secs: 1_700_000_000,
        }
    }

    fn entry<'a>(detail: Option<&'a str>, resources: &'a [String]) -> Entry<'a> {
        Entry {
            source: Some("my.app"),
            detail_type: Some("Thing Happened"),
            detail,
            resources,
            time_secs: None,
        }
    }

    #[test]
    fn events_are_built_in_aws_order() {
        let resources = vec!["arn:aws:s3:::b".to_owned()];
        let event = build(&entry(Some(r#"{"a": 1}"#), &resources), &origin()).unwrap();
        assert_eq!(
            event.to_string(),
            r#"{"version":"0","id":"e-1","detail-type":"Thing Happened","source":"my.app","account":"000000000000","time":"2023-11-14T22:13:20Z","region":"us-east-1","resources":["arn:aws:s3:::b"],"detail":{"a":1}}"#
        );
    }

    #[test]
    fn entries_refused_as_aws_refuses_them() {
        let none: Vec<String> = Vec::new();
        let e = build(&entry(None, &none), &origin()).unwrap_err();
        assert_eq!(
            e.message,
            "Parameter Detail is not valid. Reason: Detail is a required argument."
        );
        for bad in ["[1]", "\"s\"", "{", "1"] {
            assert_eq!(
                build(&entry(Some(bad), &none), &origin()).unwrap_err().code,
                "MalformedDetail"
            );
        }
        let mut no_source = entry(Some("{}"), &none);
        no_source.source = None;
        assert_eq!(
            build(&no_source, &origin()).unwrap_err().message,
            "Parameter Source is not valid. Reason: Source is a required argument."
        );
    }

    #[test]
    fn sizes_count_the_text() {
        let resources = vec!["abc".to_owned()];
        assert_eq!(entry_size(&entry(Some("{}"), &resources)), 6 + 14 + 2 + 3);
    }

    #[test]
    fn test_events_need_the_mandatory_fields() {
        assert!(
            test_event(r#"{"id":"1","account":"1","source":"s","time":"t","region":"r","detail-type":"d"}"#).is_some()
        );
        assert!(test_event(r#"{"testEvent":"value"}"#).is_none());
        assert!(test_event("plain").is_none());
    }
}
