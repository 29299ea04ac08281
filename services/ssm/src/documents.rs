//! SSM documents: their records, and what Stratus reads from their content — the schema
//! version, description, parameters and platforms that DescribeDocument reports. Content is
//! JSON; YAML content is refused by name (Stratus has no YAML reader yet).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};
use stratus_core::{AwsError, DateTime};
use stratus_gen_ssm::{
    DocumentDescription, DocumentFormat, DocumentHashType, DocumentIdentifier, DocumentParameter,
    DocumentParameterType, DocumentStatus, DocumentType, PlatformType, Tag,
};
use stratus_storage::tuple::TupleKey;
use stratus_storage::Table;

use crate::error::{refuse, SsmError};

/// Each document's head, by name.
pub(crate) const DOCUMENTS: Table<DocumentRecord> = Table::new("documents");
/// Every version of every document, by (name, version).
pub(crate) const DOCUMENT_VERSIONS: Table<DocumentVersion> = Table::new("document_versions");

/// The largest content AWS takes (64 KB).
const MAX_CONTENT_BYTES: usize = 64 * 1024;
/// The schema versions of Command, Automation and Policy documents.
const SCHEMA_VERSIONS: &[&str] = &["0.3", "1.0", "1.2", "2.0", "2.2"];

#[derive(Serialize, Deserialize, Clone, Debug)]
pub(crate) struct DocumentRecord {
    pub(crate) name: String,
    pub(crate) default_version: u64,
    pub(crate) latest_version: u64,
    pub(crate) tags: BTreeMap<String, String>,
    /// The accounts it is shared with (`all` for public), and the version each sees.
    pub(crate) shared: BTreeMap<String, String>,
}

#[derive(Serialize, Deserialize, Clone, Debug)]
pub(crate) struct DocumentVersion {
    pub(crate) version: u64,
    pub(crate) version_name: Option<String>,
    pub(crate) display_name: Option<String>,
    pub(crate) content: String,
    pub(crate) document_type: String,
    pub(crate) target_type: Option<String>,
    pub(crate) created_ms: i64,
    pub(crate) facts: Facts,
}

/// What the content says of itself.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Facts {
    pub(crate) schema_version: Option<String>,
    pub(crate) description: Option<String>,
    /// (name, type, description, default value), in the content's order.
    pub(crate) parameters: Vec<(String, String, Option<String>, Option<String>)>,
    pub(crate) platforms: Vec<String>,
}

pub(crate) fn version_key(name: &str, version: u64) -> Vec<u8> {
    TupleKey::new().str(name).u64(version).into_bytes()
}

pub(crate) fn versions_prefix(name: &str) -> Vec<u8> {
    TupleKey::new().str(name).into_bytes()
}

/// YAML content, which Stratus cannot read yet.
pub(crate) fn yaml_refused() -> SsmError {
    SsmError(AwsError::new(
        "NotImplemented",
        "YAML document content is not implemented by Stratus: use JSON",
        501,
    ))
}

fn invalid_content() -> SsmError {
    refuse("InvalidDocumentContent", "The content for the document is not valid.")
}

/// Reads `content` in `format`, checking what AWS checks of a document of `document_type`.
pub(crate) fn read_content(content: &str, format: &DocumentFormat, document_type: &str) -> Result<Facts, SsmError> {
    if content.len() > MAX_CONTENT_BYTES {
        return Err(refuse(
            "MaxDocumentSizeExceeded",
            "The size limit of a document is 64 KB.",
        ));
    }
    match format {
        DocumentFormat::Json => {}
        DocumentFormat::Yaml => return Err(yaml_refused()),
        other => {
            return Err(refuse(
                "ValidationException",
                format!("Invalid document format {}", other.as_str()),
            ))
        }
    }
    let Ok(Value::Object(doc)) = serde_json::from_str::<Value>(content) else {
        return Err(invalid_content());
    };
    let text = |v: &Value| match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    };
    let schema_version = doc.get("schemaVersion").and_then(text);
    if matches!(document_type, "Command" | "Automation" | "Policy" | "Session") {
        let version = schema_version.as_deref().ok_or_else(invalid_content)?;
        if !SCHEMA_VERSIONS.contains(&version) {
            return Err(refuse(
                "InvalidDocumentSchemaVersion",
                format!("The document schema version {version} is not supported."),
            ));
        }
    }
    let parameters = match doc.get("parameters") {
        Some(Value::Object(params)) => params
            .iter()
            .map(|(name, p)| {
                let kind = p.get("type").and_then(Value::as_str).unwrap_or("String").to_owned();
                let default = p.get("default").map(|d| match d {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                });
                let description = p.get("description").and_then(Value::as_str).map(str::to_owned);
                (name.clone(), kind, description, default)
            })
            .collect(),
        _ => Vec::new(),
    };
    Ok(Facts {
        schema_version,
        description: doc.get("description").and_then(Value::as_str).map(str::to_owned),
        parameters,
        platforms: platforms(content, document_type),
    })
}

/// The platforms a document runs on: what its plugins need, as AWS derives it.
fn platforms(content: &str, document_type: &str) -> Vec<String> {
    if document_type != "Command" {
        return Vec::new();
    }
    let shell = content.contains("aws:runShellScript");
    let power = content.contains("aws:runPowerShellScript");
    match (shell, power) {
        (true, false) => vec!["Linux".into(), "MacOS".into()],
        (false, true) => vec!["Windows".into()],
        _ => vec!["Windows".into(), "Linux".into(), "MacOS".into()],
    }
}

fn tags(tags: &BTreeMap<String, String>) -> Vec<Tag> {
    tags.iter()
        .map(|(key, value)| Tag {
            key: key.clone(),
            value: value.clone(),
        })
        .collect()
}

impl DocumentVersion {
    fn platform_types(&self) -> Option<Vec<PlatformType>> {
        Some(
            self.facts
                .platforms
                .iter()
                .map(|p| PlatformType::from_wire(p))
                .collect(),
        )
    }

    fn hash(&self) -> String {
        Sha256::digest(self.content.as_bytes())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }

    /// As DescribeDocument (and Create/UpdateDocument) answer it.
    pub(crate) fn description(
        &self,
        head: &DocumentRecord,
        owner: &str,
        status: DocumentStatus,
    ) -> DocumentDescription {
        DocumentDescription {
            sha1: None,
            hash: Some(self.hash()),
            hash_type: Some(DocumentHashType::Sha256),
            name: Some(head.name.clone()),
            display_name: self.display_name.clone(),
            version_name: self.version_name.clone(),
            owner: Some(owner.to_owned()),
            created_date: Some(DateTime::from_millis(self.created_ms)),
            status: Some(status),
            status_information: None,
            document_version: Some(self.version.to_string()),
            description: self.facts.description.clone(),
            parameters: Some(
                self.facts
                    .parameters
                    .iter()
                    .map(|(name, kind, description, default)| DocumentParameter {
                        name: Some(name.clone()),
                        r#type: Some(DocumentParameterType::from_wire(kind)),
                        description: description.clone(),
                        default_value: default.clone(),
                    })
                    .collect(),
            ),
            platform_types: self.platform_types(),
            document_type: Some(DocumentType::from_wire(&self.document_type)),
            schema_version: self.facts.schema_version.clone(),
            latest_version: Some(head.latest_version.to_string()),
            default_version: Some(head.default_version.to_string()),
            document_format: Some(DocumentFormat::Json),
            target_type: self.target_type.clone(),
            tags: Some(tags(&head.tags)),
            attachments_information: None,
            requires: None,
            author: None,
            review_information: None,
            approved_version: None,
            pending_review_version: None,
            review_status: None,
            category: None,
            category_enum: None,
        }
    }

    /// As ListDocuments answers it.
    pub(crate) fn identifier(&self, head: &DocumentRecord, owner: &str) -> DocumentIdentifier {
        DocumentIdentifier {
            name: Some(head.name.clone()),
            created_date: Some(DateTime::from_millis(self.created_ms)),
            display_name: self.display_name.clone(),
            owner: Some(owner.to_owned()),
            version_name: self.version_name.clone(),
            platform_types: self.platform_types(),
            document_version: Some(self.version.to_string()),
            document_type: Some(DocumentType::from_wire(&self.document_type)),
            schema_version: self.facts.schema_version.clone(),
            document_format: Some(DocumentFormat::Json),
            target_type: self.target_type.clone(),
            tags: Some(tags(&head.tags)),
            requires: None,
            review_status: None,
            author: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use stratus_test_support::{fuzz_input, Rng, JSON_TOKENS};

    use super::*;

    const SHELL: &str = r#"{"schemaVersion":"2.2","description":"Say hi","parameters":{"who":{"type":"String","default":"world","description":"whom"}},"mainSteps":[{"action":"aws:runShellScript","name":"hi","inputs":{"runCommand":["echo hi {{who}}"]}}]}"#;

    #[test]
    fn reads_what_describe_reports() {
        let facts = read_content(SHELL, &DocumentFormat::Json, "Command").unwrap();
        assert_eq!(facts.schema_version.as_deref(), Some("2.2"));
        assert_eq!(facts.description.as_deref(), Some("Say hi"));
        assert_eq!(facts.parameters[0].0, "who");
        assert_eq!(facts.parameters[0].3.as_deref(), Some("world"));
        assert_eq!(facts.platforms, ["Linux", "MacOS"]);
    }

    #[test]
    fn refuses_as_aws_does() {
        let code = |c: &str| read_content(c, &DocumentFormat::Json, "Command").unwrap_err().0.code;
        assert_eq!(code("not json"), "InvalidDocumentContent");
        assert_eq!(code("{}"), "InvalidDocumentContent");
        assert_eq!(code(r#"{"schemaVersion":"9.9"}"#), "InvalidDocumentSchemaVersion");
        assert_eq!(
            read_content("a: b", &DocumentFormat::Yaml, "Command")
                .unwrap_err()
                .0
                .code,
            "NotImplemented"
        );
    }

    #[test]
    fn never_panics() {
        let mut rng = Rng(3);
        for i in 0..5_000 {
            let input = fuzz_input(&mut rng, i, &[SHELL.as_bytes()], JSON_TOKENS, 16);
            let _ = read_content(&String::from_utf8_lossy(&input), &DocumentFormat::Json, "Command");
        }
    }
}
