//! Listings: GetParametersByPath (a hierarchy, one level or all, with filters) and
//! DescribeParameters (every parameter's metadata, with either kind of filters). Both page
//! by the key of the last parameter given.

use std::ops::Bound;

use stratus_core::paging::Token;
use stratus_core::{DateTime, RequestContext};
use stratus_gen_ssm::{
    DescribeParametersRequest, DescribeParametersResult, GetParametersByPathRequest, GetParametersByPathResult,
    Parameter, ParameterType,
};
use stratus_storage::{Direction, KeyRange};

use crate::error::{invalid_token, validation, SsmError};
use crate::filters::{self, Listing};
use crate::names::{arn, check_path, in_path, path_prefix};
use crate::public;
use crate::records::{ParameterRecord, PARAMETERS};
use crate::service::SsmService;

const BY_PATH: Token = Token::for_listing("ssm:GetParametersByPath");
const DESCRIBE: Token = Token::for_listing("ssm:DescribeParameters");
/// The page when the request names none (both listings).
const PAGE: usize = 10;

/// A parameter's key and head record.
type Row = (String, ParameterRecord);

/// The records under `prefix` after the key `after`, in key order, that pass `keep`; at most
/// `page`, and the token to continue after them when more follow.
fn page_of(
    store: &dyn stratus_storage::Store,
    prefix: &str,
    after: Option<String>,
    page: usize,
    token: &Token,
    keep: impl Fn(&str, &ParameterRecord) -> bool,
) -> Result<(Vec<Row>, Option<String>), SsmError> {
    let whole = KeyRange::prefix(prefix.as_bytes());
    let range = match &after {
        Some(after) => KeyRange::between(Bound::Excluded(after.as_bytes()), whole.end()),
        None => whole,
    };
    let mut kept: Vec<Row> = Vec::new();
    for (key, record) in PARAMETERS.scan(store, &range, Direction::Forward, None)? {
        let key = String::from_utf8(key).unwrap_or_default();
        if keep(&key, &record) {
            if kept.len() == page {
                let next = token.encode_str(&kept[page - 1].0);
                return Ok((kept, Some(next)));
            }
            kept.push((key, record));
        }
    }
    Ok((kept, None))
}

fn decode(token: &Token, next: &Option<String>) -> Result<Option<String>, SsmError> {
    next.as_deref()
        .map(|t| token.decode_str(t).map_err(|_| invalid_token()))
        .transpose()
}

pub(crate) async fn get_parameters_by_path(
    ssm: &SsmService,
    ctx: &RequestContext,
    input: GetParametersByPathRequest,
) -> Result<GetParametersByPathResult, SsmError> {
    let path = check_path(&input.path)?;
    let recursive = input.recursive == Some(true);
    let filters = filters::parse(input.parameter_filters.as_deref().unwrap_or_default(), Listing::ByPath)?;
    let after = decode(&BY_PATH, &input.next_token)?;
    let page = input.max_results.map_or(PAGE, |n| n.max(1) as usize);
    if format!("{path}/").starts_with(public::ROOT) {
        return Ok(public_page(&ctx.region, &path, recursive, after, page));
    }
    let store = ssm.store_of(ctx)?;
    let (rows, next_token) = page_of(&*store, &path_prefix(&path), after, page, &BY_PATH, |key, record| {
        in_path(key, &path, recursive) && filters::matches(&filters, &record.subject(key))
    })?;
    let decrypt = input.with_decryption == Some(true);
    let mut parameters = Vec::with_capacity(rows.len());
    for (_, record) in rows {
        let value = ssm.value_of(ctx, &record.name, &record.current, decrypt).await?;
        let arn = arn(&ctx.region, &ctx.account_id, &record.name);
        parameters.push(record.current.parameter(&record.name, arn, value, None));
    }
    Ok(GetParametersByPathResult {
        parameters: Some(parameters),
        next_token,
    })
}

/// A page of the public parameters under `path`.
fn public_page(
    region: &str,
    path: &str,
    recursive: bool,
    after: Option<String>,
    page: usize,
) -> GetParametersByPathResult {
    let mut under = public::all(region)
        .into_iter()
        .filter(|p| in_path(&p.name, path, recursive))
        .filter(|p| after.as_ref().is_none_or(|a| p.name > *a));
    let parameters: Vec<Parameter> = under
        .by_ref()
        .take(page)
        .map(|p| Parameter {
            arn: Some(public::arn(region, &p.name)),
            name: Some(p.name),
            r#type: Some(ParameterType::String),
            value: Some(p.value),
            version: 1,
            selector: None,
            source_result: None,
            last_modified_date: Some(DateTime::from_millis(public::MODIFIED_MS)),
            data_type: Some("text".into()),
        })
        .collect();
    let more = under.next().is_some();
    let next_token = more
        .then(|| {
            parameters
                .last()
                .and_then(|p| p.name.as_deref())
                .map(|n| BY_PATH.encode_str(n))
        })
        .flatten();
    GetParametersByPathResult {
        parameters: Some(parameters),
        next_token,
    }
}

pub(crate) async fn describe_parameters(
    ssm: &SsmService,
    ctx: &RequestContext,
    input: DescribeParametersRequest,
) -> Result<DescribeParametersResult, SsmError> {
    let legacy = input.filters.unwrap_or_default();
    let string_filters = input.parameter_filters.unwrap_or_default();
    if !legacy.is_empty() && !string_filters.is_empty() {
        return Err(validation(
            "You can use either Filters or ParameterFilters in a single request.",
        ));
    }
    let filters = if legacy.is_empty() {
        filters::parse(&string_filters, Listing::Describe)?
    } else {
        filters::from_legacy(&legacy)?
    };
    let after = decode(&DESCRIBE, &input.next_token)?;
    // Parameters shared with the account through AWS RAM: Stratus shares none.
    if input.shared == Some(true) {
        return Ok(DescribeParametersResult {
            parameters: Some(Vec::new()),
            next_token: None,
        });
    }
    let page = input.max_results.map_or(PAGE, |n| n.max(1) as usize);
    let store = ssm.store_of(ctx)?;
    let (rows, next_token) = page_of(&*store, "", after, page, &DESCRIBE, |key, record| {
        filters::matches(&filters, &record.subject(key))
    })?;
    let parameters = rows
        .into_iter()
        .map(|(_, r)| r.current.metadata(&r.name, arn(&ctx.region, &ctx.account_id, &r.name)))
        .collect();
    Ok(DescribeParametersResult {
        parameters: Some(parameters),
        next_token,
    })
}
