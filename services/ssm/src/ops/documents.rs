//! Documents: CreateDocument, GetDocument, DescribeDocument, ListDocuments,
//! ListDocumentVersions, UpdateDocument, UpdateDocumentDefaultVersion, DeleteDocument, and
//! sharing (ModifyDocumentPermission, DescribeDocumentPermission). Only the account's own
//! documents exist: AWS's (`AWS-RunShellScript`, …) are not served.

use std::collections::BTreeMap;

use stratus_core::paging::Token;
use stratus_core::{DateTime, RequestContext};
use stratus_gen_ssm::{
    AccountSharingInfo, CreateDocumentRequest, CreateDocumentResult, DeleteDocumentRequest, DeleteDocumentResult,
    DescribeDocumentPermissionRequest, DescribeDocumentPermissionResponse, DescribeDocumentRequest,
    DescribeDocumentResult, DocumentDefaultVersionDescription, DocumentFormat, DocumentPermissionType, DocumentStatus,
    DocumentVersionInfo, GetDocumentRequest, GetDocumentResult, ListDocumentVersionsRequest,
    ListDocumentVersionsResult, ListDocumentsRequest, ListDocumentsResult, ModifyDocumentPermissionRequest,
    ModifyDocumentPermissionResponse, UpdateDocumentDefaultVersionRequest, UpdateDocumentDefaultVersionResult,
    UpdateDocumentRequest, UpdateDocumentResult,
};
use stratus_storage::{Read, Tx};

use crate::documents::{
    read_content, version_key, versions_prefix, yaml_refused, DocumentRecord, DocumentVersion, DOCUMENTS,
    DOCUMENT_VERSIONS,
};
use crate::error::{invalid_token, refuse, validation, SsmError};
use crate::ops::tags::{check_tags, tag_map};
use crate::service::SsmService;

const LISTING: Token = Token::for_listing("ssm:ListDocuments");
const VERSION_LISTING: Token = Token::for_listing("ssm:ListDocumentVersions");
/// The most versions a document may have.
const MAX_VERSIONS: u64 = 1000;

fn no_document() -> SsmError {
    refuse("InvalidDocument", "The specified document does not exist.")
}

fn no_version() -> SsmError {
    refuse(
        "InvalidDocumentVersion",
        "The document version is not valid or does not exist.",
    )
}

fn load(r: &(impl Read + ?Sized), name: &str) -> Result<DocumentRecord, SsmError> {
    DOCUMENTS.get(r, name)?.ok_or_else(no_document)
}

/// The version a request names: a number, `$LATEST`, `$DEFAULT`, or a version name.
fn pick(
    r: &(impl Read + ?Sized),
    head: &DocumentRecord,
    version: Option<&str>,
    version_name: Option<&str>,
) -> Result<DocumentVersion, SsmError> {
    let number = match version {
        None | Some("$DEFAULT") => (version_name.is_none()).then_some(head.default_version),
        Some("$LATEST") => Some(head.latest_version),
        Some(n) => Some(n.parse::<u64>().map_err(|_| no_version())?),
    };
    match number {
        Some(n) => {
            let found = DOCUMENT_VERSIONS
                .get(r, version_key(&head.name, n))?
                .ok_or_else(no_version)?;
            if version_name.is_some_and(|vn| found.version_name.as_deref() != Some(vn)) {
                return Err(no_version());
            }
            Ok(found)
        }
        None => all_versions(r, &head.name)?
            .into_iter()
            .find(|v| v.version_name.as_deref() == version_name)
            .ok_or_else(no_version),
    }
}

fn all_versions(r: &(impl Read + ?Sized), name: &str) -> Result<Vec<DocumentVersion>, SsmError> {
    Ok(DOCUMENT_VERSIONS
        .scan_prefix(r, versions_prefix(name))?
        .into_iter()
        .map(|(_, v)| v)
        .collect())
}

/// Writes a document's head and one of its versions; answers the version's description.
fn save(
    tx: &mut Tx<'_>,
    head: &DocumentRecord,
    version: &DocumentVersion,
    owner: &str,
    status: DocumentStatus,
) -> Result<stratus_gen_ssm::DocumentDescription, SsmError> {
    DOCUMENTS.put(tx, head.name.as_bytes().to_vec(), head)?;
    DOCUMENT_VERSIONS.put(tx, version_key(&head.name, version.version), version)?;
    Ok(version.description(head, owner, status))
}

fn check_format(format: &Option<DocumentFormat>) -> Result<DocumentFormat, SsmError> {
    Ok(format.clone().unwrap_or(DocumentFormat::Json))
}

pub(crate) async fn create_document(
    ssm: &SsmService,
    ctx: &RequestContext,
    input: CreateDocumentRequest,
) -> Result<CreateDocumentResult, SsmError> {
    let lower = input.name.to_ascii_lowercase();
    if ["aws", "amazon", "amzn"].iter().any(|p| lower.starts_with(p)) {
        return Err(validation(format!(
            "Invalid document name {}: a document name can't begin with aws, amazon or amzn.",
            input.name
        )));
    }
    let document_type = input
        .document_type
        .as_ref()
        .map_or("Command", |t| t.as_str())
        .to_owned();
    let facts = read_content(&input.content, &check_format(&input.document_format)?, &document_type)?;
    let tags = tag_map(input.tags.unwrap_or_default());
    check_tags(&tags)?;
    let version = DocumentVersion {
        version: 1,
        version_name: input.version_name,
        display_name: input.display_name,
        content: input.content,
        document_type,
        target_type: input.target_type,
        created_ms: ssm.now_ms(),
        facts,
    };
    let head = DocumentRecord {
        name: input.name,
        default_version: 1,
        latest_version: 1,
        tags,
        shared: BTreeMap::new(),
    };
    let owner = ctx.account_id.clone();
    ssm.transact(ctx, move |tx| {
        if DOCUMENTS.get(tx, &head.name)?.is_some() {
            return Err(refuse(
                "DocumentAlreadyExists",
                "The specified document already exists.",
            ));
        }
        Ok(CreateDocumentResult {
            document_description: Some(save(tx, &head, &version, &owner, DocumentStatus::Creating)?),
        })
    })
    .await
}

pub(crate) async fn get_document(
    ssm: &SsmService,
    ctx: &RequestContext,
    input: GetDocumentRequest,
) -> Result<GetDocumentResult, SsmError> {
    if matches!(input.document_format, Some(DocumentFormat::Yaml)) {
        return Err(yaml_refused());
    }
    let store = ssm.store_of(ctx)?;
    let head = load(&*store, &input.name)?;
    let v = pick(
        &*store,
        &head,
        input.document_version.as_deref(),
        input.version_name.as_deref(),
    )?;
    Ok(GetDocumentResult {
        name: Some(head.name),
        created_date: Some(DateTime::from_millis(v.created_ms)),
        display_name: v.display_name,
        version_name: v.version_name,
        document_version: Some(v.version.to_string()),
        status: Some(DocumentStatus::Active),
        status_information: None,
        content: Some(v.content),
        document_type: Some(stratus_gen_ssm::DocumentType::from_wire(&v.document_type)),
        document_format: Some(DocumentFormat::Json),
        requires: None,
        attachments_content: None,
        review_status: None,
    })
}

pub(crate) async fn describe_document(
    ssm: &SsmService,
    ctx: &RequestContext,
    input: DescribeDocumentRequest,
) -> Result<DescribeDocumentResult, SsmError> {
    let store = ssm.store_of(ctx)?;
    let head = load(&*store, &input.name)?;
    let v = pick(
        &*store,
        &head,
        input.document_version.as_deref(),
        input.version_name.as_deref(),
    )?;
    Ok(DescribeDocumentResult {
        document: Some(v.description(&head, &ctx.account_id, DocumentStatus::Active)),
    })
}

/// Whether a document passes ListDocuments' `Filters` (key and values).
fn passes(filters: &[(String, Vec<String>)], head: &DocumentRecord, v: &DocumentVersion, account: &str) -> bool {
    filters.iter().all(|(key, values)| {
        let any = |what: &str| values.iter().any(|x| x == what);
        match key.as_str() {
            "Name" => any(&head.name),
            "Owner" => values
                .iter()
                .any(|x| matches!(x.as_str(), "Self" | "Private" | "All") || x == account),
            "DocumentType" => any(&v.document_type),
            "PlatformTypes" => v.facts.platforms.iter().any(|p| any(p)),
            "TargetType" => v.target_type.as_deref().is_some_and(any),
            "SearchKeyword" => values.iter().any(|x| head.name.contains(x.as_str())),
            tag => match tag.strip_prefix("tag:") {
                Some(tag) => head.tags.get(tag).is_some_and(|value| values.is_empty() || any(value)),
                None => true,
            },
        }
    })
}

pub(crate) async fn list_documents(
    ssm: &SsmService,
    ctx: &RequestContext,
    input: ListDocumentsRequest,
) -> Result<ListDocumentsResult, SsmError> {
    let mut filters: Vec<(String, Vec<String>)> = input
        .filters
        .unwrap_or_default()
        .into_iter()
        .map(|f| (f.key.unwrap_or_default(), f.values.unwrap_or_default()))
        .collect();
    for f in input.document_filter_list.unwrap_or_default() {
        let key = match f.key.as_str() {
            "name" => "Name",
            "owner" => "Owner",
            "platformTypes" => "PlatformTypes",
            "documentType" => "DocumentType",
            other => other,
        };
        filters.push((key.to_owned(), vec![f.value]));
    }
    let after = match &input.next_token {
        Some(t) => Some(LISTING.decode_str(t).map_err(|_| invalid_token())?),
        None => None,
    };
    let page = input.max_results.map_or(50, |n| n.max(1) as usize);
    let store = ssm.store_of(ctx)?;
    let mut identifiers = Vec::new();
    let mut next_token = None;
    for (_, head) in DOCUMENTS.scan_prefix(&*store, [])? {
        if after.as_ref().is_some_and(|a| head.name <= *a) {
            continue;
        }
        let v = pick(&*store, &head, None, None)?;
        if !passes(&filters, &head, &v, &ctx.account_id) {
            continue;
        }
        if identifiers.len() == page {
            next_token = Some(LISTING.encode_str(&identifiers_last(&identifiers)));
            break;
        }
        identifiers.push(v.identifier(&head, &ctx.account_id));
    }
    Ok(ListDocumentsResult {
        document_identifiers: Some(identifiers),
        next_token,
    })
}

fn identifiers_last(ids: &[stratus_gen_ssm::DocumentIdentifier]) -> String {
    ids.last().and_then(|i| i.name.clone()).unwrap_or_default()
}

pub(crate) async fn list_document_versions(
    ssm: &SsmService,
    ctx: &RequestContext,
    input: ListDocumentVersionsRequest,
) -> Result<ListDocumentVersionsResult, SsmError> {
    let store = ssm.store_of(ctx)?;
    let head = load(&*store, &input.name)?;
    let after: u64 = match &input.next_token {
        Some(t) => VERSION_LISTING
            .decode_str(t)
            .ok()
            .and_then(|s| s.parse().ok())
            .ok_or_else(invalid_token)?,
        None => 0,
    };
    let page = input.max_results.map_or(50, |n| n.max(1) as usize);
    let versions: Vec<DocumentVersion> = all_versions(&*store, &head.name)?
        .into_iter()
        .filter(|v| v.version > after)
        .collect();
    let more = versions.len() > page;
    let infos: Vec<DocumentVersionInfo> = versions
        .into_iter()
        .take(page)
        .map(|v| DocumentVersionInfo {
            name: Some(head.name.clone()),
            display_name: v.display_name,
            document_version: Some(v.version.to_string()),
            version_name: v.version_name,
            created_date: Some(DateTime::from_millis(v.created_ms)),
            is_default_version: v.version == head.default_version,
            document_format: Some(DocumentFormat::Json),
            status: Some(DocumentStatus::Active),
            status_information: None,
            review_status: None,
        })
        .collect();
    let next_token = more
        .then(|| infos.last().and_then(|i| i.document_version.clone()))
        .flatten()
        .map(|v| VERSION_LISTING.encode_str(&v));
    Ok(ListDocumentVersionsResult {
        document_versions: Some(infos),
        next_token,
    })
}

pub(crate) async fn update_document(
    ssm: &SsmService,
    ctx: &RequestContext,
    input: UpdateDocumentRequest,
) -> Result<UpdateDocumentResult, SsmError> {
    let format = check_format(&input.document_format)?;
    let owner = ctx.account_id.clone();
    let now = ssm.now_ms();
    ssm.transact(ctx, move |tx| {
        let mut head = load(tx, &input.name)?;
        if let Some(asked) = input.document_version.as_deref() {
            if asked != "$LATEST" && asked != head.latest_version.to_string() {
                return Err(no_version());
            }
        }
        let versions = all_versions(tx, &head.name)?;
        let latest = versions
            .iter()
            .find(|v| v.version == head.latest_version)
            .ok_or_else(no_version)?;
        let facts = read_content(&input.content, &format, &latest.document_type)?;
        if let Some(name) = &input.version_name {
            if versions.iter().any(|v| v.version_name.as_ref() == Some(name)) {
                return Err(refuse(
                    "DuplicateDocumentVersionName",
                    "The specified version name is a duplicate.",
                ));
            }
        }
        if versions.iter().any(|v| v.content == input.content) {
            return Err(refuse(
                "DuplicateDocumentContent",
                "The content of the association document matches another document. Change the content of the \
                 document and try again.",
            ));
        }
        if head.latest_version >= MAX_VERSIONS {
            return Err(refuse(
                "DocumentVersionLimitExceeded",
                "The document has too many versions. Delete one or more document versions and try again.",
            ));
        }
        let version = DocumentVersion {
            version: head.latest_version + 1,
            version_name: input.version_name,
            display_name: input.display_name.or_else(|| latest.display_name.clone()),
            content: input.content,
            document_type: latest.document_type.clone(),
            target_type: input.target_type.or_else(|| latest.target_type.clone()),
            created_ms: now,
            facts,
        };
        head.latest_version = version.version;
        Ok(UpdateDocumentResult {
            document_description: Some(save(tx, &head, &version, &owner, DocumentStatus::Updating)?),
        })
    })
    .await
}

pub(crate) async fn update_document_default_version(
    ssm: &SsmService,
    ctx: &RequestContext,
    input: UpdateDocumentDefaultVersionRequest,
) -> Result<UpdateDocumentDefaultVersionResult, SsmError> {
    ssm.transact(ctx, move |tx| {
        let mut head = load(tx, &input.name)?;
        let v = pick(tx, &head, Some(&input.document_version), None)?;
        head.default_version = v.version;
        DOCUMENTS.put(tx, head.name.as_bytes().to_vec(), &head)?;
        Ok(UpdateDocumentDefaultVersionResult {
            description: Some(DocumentDefaultVersionDescription {
                name: Some(head.name),
                default_version: Some(v.version.to_string()),
                default_version_name: v.version_name,
            }),
        })
    })
    .await
}

fn delete_all(tx: &mut Tx<'_>, name: &str) -> Result<(), SsmError> {
    for (at, _) in DOCUMENT_VERSIONS.scan_prefix(tx, versions_prefix(name))? {
        DOCUMENT_VERSIONS.delete(tx, at);
    }
    DOCUMENTS.delete(tx, name.as_bytes().to_vec());
    Ok(())
}

pub(crate) async fn delete_document(
    ssm: &SsmService,
    ctx: &RequestContext,
    input: DeleteDocumentRequest,
) -> Result<DeleteDocumentResult, SsmError> {
    ssm.transact(ctx, move |tx| {
        let mut head = load(tx, &input.name)?;
        if !head.shared.is_empty() {
            return Err(refuse(
                "InvalidDocumentOperation",
                "You attempted to delete a document while it is still shared. You must stop sharing the document \
                 before you can delete it.",
            ));
        }
        if input.document_version.is_none() && input.version_name.is_none() {
            return delete_all(tx, &head.name);
        }
        let v = pick(
            tx,
            &head,
            input.document_version.as_deref(),
            input.version_name.as_deref(),
        )?;
        if v.version == head.default_version {
            return Err(refuse(
                "InvalidDocumentOperation",
                "Default version of the document can't be deleted.",
            ));
        }
        DOCUMENT_VERSIONS.delete(tx, version_key(&head.name, v.version));
        if v.version == head.latest_version {
            head.latest_version = all_versions(tx, &head.name)?
                .iter()
                .map(|x| x.version)
                .filter(|n| *n != v.version)
                .max()
                .unwrap_or(head.default_version);
        }
        DOCUMENTS.put(tx, head.name.as_bytes().to_vec(), &head)?;
        Ok(())
    })
    .await?;
    Ok(DeleteDocumentResult {})
}

fn check_permission_type(kind: &DocumentPermissionType) -> Result<(), SsmError> {
    match kind {
        DocumentPermissionType::Share => Ok(()),
        other => Err(refuse(
            "InvalidPermissionType",
            format!("The permission type {} is not valid. Use Share.", other.as_str()),
        )),
    }
}

/// An account a document is shared with; `all` (in any case) means every account.
fn account(id: &str) -> String {
    if id.eq_ignore_ascii_case("all") {
        "all".to_owned()
    } else {
        id.to_owned()
    }
}

pub(crate) async fn modify_document_permission(
    ssm: &SsmService,
    ctx: &RequestContext,
    input: ModifyDocumentPermissionRequest,
) -> Result<ModifyDocumentPermissionResponse, SsmError> {
    check_permission_type(&input.permission_type)?;
    let add = input.account_ids_to_add.unwrap_or_default();
    let remove = input.account_ids_to_remove.unwrap_or_default();
    for ids in [&add, &remove] {
        if ids.len() > 1 && ids.iter().any(|a| a.eq_ignore_ascii_case("all")) {
            return Err(refuse(
                "DocumentPermissionLimit",
                "Accounts can either be all or a group of AWS accounts",
            ));
        }
    }
    let shared_version = input.shared_document_version.unwrap_or_else(|| "$DEFAULT".into());
    ssm.transact(ctx, move |tx| {
        let mut head = load(tx, &input.name)?;
        for id in add {
            head.shared.insert(account(&id), shared_version.clone());
        }
        for id in remove {
            head.shared.remove(&account(&id));
        }
        if head.shared.len() > 1000 {
            return Err(refuse(
                "DocumentPermissionLimit",
                "The document can't be shared with more than 1000 accounts.",
            ));
        }
        DOCUMENTS.put(tx, head.name.as_bytes().to_vec(), &head)?;
        Ok(ModifyDocumentPermissionResponse {})
    })
    .await
}

pub(crate) async fn describe_document_permission(
    ssm: &SsmService,
    ctx: &RequestContext,
    input: DescribeDocumentPermissionRequest,
) -> Result<DescribeDocumentPermissionResponse, SsmError> {
    check_permission_type(&input.permission_type)?;
    let head = load(&*ssm.store_of(ctx)?, &input.name)?;
    Ok(DescribeDocumentPermissionResponse {
        account_ids: Some(head.shared.keys().cloned().collect()),
        account_sharing_info_list: Some(
            head.shared
                .into_iter()
                .map(|(id, version)| AccountSharingInfo {
                    account_id: Some(id),
                    shared_document_version: Some(version),
                })
                .collect(),
        ),
        next_token: None,
    })
}
