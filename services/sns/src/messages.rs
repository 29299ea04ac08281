//! Published messages: the checks Publish and PublishBatch make (size, subject, attributes,
//! `MessageStructure=json`), and the message as it is kept until it is delivered.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use stratus_gen_sns::MessageAttributeValue;

use crate::error::{invalid_parameter, parameter_value_invalid, SnsError};

/// The most a message and its attributes may hold together, in bytes.
pub(crate) const MAX_SIZE: usize = 256 * 1024;

/// A message attribute as kept: its data type and its text or bytes.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Attribute {
    pub(crate) data_type: String,
    pub(crate) string: Option<String>,
    pub(crate) binary: Option<Vec<u8>>,
}

/// What one message says, once checked.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Message {
    pub(crate) message: String,
    pub(crate) subject: Option<String>,
    /// With `MessageStructure=json`: the text for each protocol, `default` among them.
    pub(crate) per_protocol: Option<BTreeMap<String, String>>,
    pub(crate) attributes: BTreeMap<String, Attribute>,
}

impl Message {
    /// The text a subscription of `protocol` receives.
    pub(crate) fn text_for(&self, protocol: &str) -> &str {
        match &self.per_protocol {
            Some(texts) => texts
                .get(protocol)
                .or_else(|| texts.get("default"))
                .map_or(self.message.as_str(), String::as_str),
            None => &self.message,
        }
    }
}

/// Checks a message as Publish does and keeps what it says.
pub(crate) fn check(
    message: String,
    subject: Option<String>,
    structure: Option<&str>,
    attributes: Option<BTreeMap<String, MessageAttributeValue>>,
) -> Result<Message, SnsError> {
    if message.is_empty() {
        return Err(invalid_parameter("Empty message"));
    }
    if let Some(subject) = &subject {
        check_subject(subject)?;
    }
    let attributes = check_attributes(attributes.unwrap_or_default())?;
    if size(&message, &attributes) > MAX_SIZE {
        return Err(invalid_parameter("Message too long"));
    }
    let per_protocol = match structure {
        Some("json") => Some(per_protocol(&message)?),
        Some(other) => {
            return Err(invalid_parameter(format!(
                "MessageStructure Reason: Invalid value [{other}]: must be json"
            )))
        }
        None => None,
    };
    Ok(Message {
        message,
        subject,
        per_protocol,
        attributes,
    })
}

/// Subjects are 1 to 100 printable ASCII characters, without line breaks.
fn check_subject(subject: &str) -> Result<(), SnsError> {
    let valid = !subject.is_empty()
        && subject.chars().count() <= 100
        && subject.bytes().all(|b| (0x20..0x7f).contains(&b))
        && !subject.trim().is_empty();
    if valid {
        Ok(())
    } else {
        Err(invalid_parameter("Subject"))
    }
}

/// The size SNS counts: the message, and each attribute's name, type and value.
pub(crate) fn size(message: &str, attributes: &BTreeMap<String, Attribute>) -> usize {
    message.len()
        + attributes
            .iter()
            .map(|(name, a)| {
                name.len()
                    + a.data_type.len()
                    + a.string.as_ref().map_or(0, String::len)
                    + a.binary.as_ref().map_or(0, Vec::len)
            })
            .sum::<usize>()
}

/// `MessageStructure=json`: an object of strings with a `default` one.
fn per_protocol(message: &str) -> Result<BTreeMap<String, String>, SnsError> {
    let parsed: Value = serde_json::from_str(message)
        .map_err(|_| invalid_parameter("Message Structure - JSON message body failed to parse"))?;
    let Value::Object(map) = parsed else {
        return Err(invalid_parameter(
            "Message Structure - JSON message body failed to parse",
        ));
    };
    if !map.get("default").is_some_and(Value::is_string) {
        return Err(invalid_parameter(
            "Message Structure - No default entry in JSON message body",
        ));
    }
    Ok(map
        .into_iter()
        .filter_map(|(k, v)| match v {
            Value::String(s) => Some((k, s)),
            _ => None,
        })
        .collect())
}

/// Checks message attributes: names, data types and values, in AWS's words.
fn check_attributes(
    attributes: BTreeMap<String, MessageAttributeValue>,
) -> Result<BTreeMap<String, Attribute>, SnsError> {
    let mut out = BTreeMap::new();
    for (name, value) in attributes {
        check_attribute_name(&name)?;
        // `String`, `Number` or `Binary`, optionally with a non-empty custom part after a dot.
        let (base, custom) = match value.data_type.split_once('.') {
            Some((base, custom)) => (base.to_owned(), Some(custom)),
            None => (value.data_type.clone(), None),
        };
        let base = if custom == Some("") { "" } else { base.as_str() };
        match base {
            "String" | "Number" => {
                if value.binary_value.is_some() && value.string_value.is_none() {
                    return Err(parameter_value_invalid(format!(
                        "The message attribute '{name}' with type '{base}' must use field 'String'."
                    )));
                }
                if value.string_value.as_deref().is_none_or(str::is_empty) {
                    return Err(parameter_value_invalid(format!(
                        "The message attribute '{name}' must contain non-empty message attribute value for message attribute type '{base}'."
                    )));
                }
                if base == "Number" {
                    let text = value.string_value.as_deref().unwrap_or_default();
                    if text.trim().parse::<f64>().is_err() {
                        return Err(parameter_value_invalid(format!(
                            "Could not cast message attribute '{name}' value to number."
                        )));
                    }
                }
            }
            "Binary" => {
                if value.string_value.is_some() && value.binary_value.is_none() {
                    return Err(parameter_value_invalid(format!(
                        "The message attribute '{name}' with type 'Binary' must use field 'Binary'."
                    )));
                }
                if value.binary_value.as_ref().is_none_or(Vec::is_empty) {
                    return Err(parameter_value_invalid(format!(
                        "The message attribute '{name}' must contain non-empty message attribute value for message attribute type 'Binary'."
                    )));
                }
            }
            _ => {
                return Err(parameter_value_invalid(format!(
                    "The message attribute '{name}' has an invalid message attribute type, the set of supported type prefixes is Binary, Number, and String."
                )))
            }
        }
        out.insert(
            name,
            Attribute {
                data_type: value.data_type,
                string: if base == "Binary" { None } else { value.string_value },
                binary: if base == "Binary" { value.binary_value } else { None },
            },
        );
    }
    Ok(out)
}

fn check_attribute_name(name: &str) -> Result<(), SnsError> {
    if name.len() >= 256 {
        return Err(parameter_value_invalid(
            "Length of message attribute name must be less than 256 bytes.",
        ));
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
    {
        return Err(parameter_value_invalid(format!(
            "Invalid non-alphanumeric character '#x{:X}' was found in the message attribute name. Can only include alphanumeric characters, hyphens, underscores, or dots.",
            u32::from(c)
        )));
    }
    if name.starts_with('.') {
        return Err(parameter_value_invalid(
            "Invalid message attribute name starting with character '.' was found.",
        ));
    }
    if name.ends_with('.') {
        return Err(parameter_value_invalid(
            "Invalid message attribute name ending with character '.' was found.",
        ));
    }
    if name.contains("..") {
        return Err(parameter_value_invalid(
            "Message attribute name can not have successive '.' character.",
        ));
    }
    Ok(())
}

/// AWS's rule for FIFO group and deduplication ids: 1 to 128 ASCII letters, digits and
/// punctuation.
pub(crate) fn check_fifo_id(parameter: &str, id: &str) -> Result<(), SnsError> {
    if (1..=128).contains(&id.len()) && id.bytes().all(|b| b.is_ascii_graphic()) {
        Ok(())
    } else {
        Err(invalid_parameter(format!(
            "{parameter} Reason: {parameter} can only include alphanumeric and punctuation characters. 1 to 128 in length."
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attribute(data_type: &str, string: Option<&str>, binary: Option<&[u8]>) -> MessageAttributeValue {
        MessageAttributeValue {
            data_type: data_type.into(),
            string_value: string.map(str::to_owned),
            binary_value: binary.map(<[u8]>::to_vec),
        }
    }

    fn refusal(name: &str, value: MessageAttributeValue) -> String {
        check("m".into(), None, None, Some(BTreeMap::from([(name.to_owned(), value)])))
            .unwrap_err()
            .0
            .message
    }

    #[test]
    fn attributes_are_refused_in_aws_words() {
        assert_eq!(
            refusal("attr1", attribute("String", Some(""), None)),
            "The message attribute 'attr1' must contain non-empty message attribute value for message attribute type 'String'."
        );
        assert_eq!(
            refusal("attr1", attribute("Number", None, Some(b"1"))),
            "The message attribute 'attr1' with type 'Number' must use field 'String'."
        );
        assert_eq!(
            refusal("attr1", attribute("Binary", Some("x"), None)),
            "The message attribute 'attr1' with type 'Binary' must use field 'Binary'."
        );
        assert!(refusal("attr1", attribute("Float", Some("1"), None)).contains("invalid message attribute type"));
        assert!(refusal("a^b", attribute("String", Some("x"), None)).contains("'#x5E'"));
        assert!(refusal(".a", attribute("String", Some("x"), None)).contains("starting with"));
        assert!(refusal("a.", attribute("String", Some("x"), None)).contains("ending with"));
        assert!(refusal("a..b", attribute("String", Some("x"), None)).contains("successive"));
        assert!(check(
            "m".into(),
            None,
            None,
            Some(BTreeMap::from([(
                "n.ok".into(),
                attribute("String.x", Some("v"), None)
            )]))
        )
        .is_ok());
    }

    #[test]
    fn messages_and_subjects_have_their_limits() {
        assert_eq!(
            check(String::new(), None, None, None).unwrap_err().0.message,
            "Invalid parameter: Empty message"
        );
        assert_eq!(
            check("x".repeat(MAX_SIZE + 1), None, None, None).unwrap_err().0.message,
            "Invalid parameter: Message too long"
        );
        assert!(check("x".repeat(MAX_SIZE), None, None, None).is_ok());
        assert_eq!(
            check("m".into(), Some(String::new()), None, None)
                .unwrap_err()
                .0
                .message,
            "Invalid parameter: Subject"
        );
        assert!(check("m".into(), Some("a\nb".into()), None, None).is_err());
    }

    #[test]
    fn json_structures_need_a_default() {
        let m = check(r#"{"default":"d","sqs":"q"}"#.into(), None, Some("json"), None).unwrap();
        assert_eq!((m.text_for("sqs"), m.text_for("lambda")), ("q", "d"));
        let e = check(r#"{"sqs":"q"}"#.into(), None, Some("json"), None).unwrap_err();
        assert_eq!(
            e.0.message,
            "Invalid parameter: Message Structure - No default entry in JSON message body"
        );
        let e = check("nope".into(), None, Some("json"), None).unwrap_err();
        assert_eq!(
            e.0.message,
            "Invalid parameter: Message Structure - JSON message body failed to parse"
        );
    }
}
