//! Dashboards: PutDashboard (with AWS's checks of the name and the body), GetDashboard,
//! ListDashboards and DeleteDashboards. Dashboards belong to the account, not a region, as
//! their ARNs say (`arn:aws:cloudwatch::ACCOUNT:dashboard/NAME`).

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use stratus_core::arn::Arn;
use stratus_core::paging::{take_page, Token};
use stratus_core::{AwsError, DateTime, RequestContext};
use stratus_gen_cloudwatch::{
    DashboardEntry, DashboardInvalidInputError, DashboardNotFoundError, DashboardValidationMessage,
    DeleteDashboardsError, DeleteDashboardsInput, DeleteDashboardsOutput, GetDashboardError, GetDashboardInput,
    GetDashboardOutput, ListDashboardsInput, ListDashboardsOutput, PutDashboardError, PutDashboardInput,
    PutDashboardOutput,
};
use stratus_storage::{Direction, KeyRange, Table};

use crate::error::{invalid_next_token, invalid_value, CwError};
use crate::service::CloudWatchService;

/// Dashboards by name, in the account's global store.
const DASHBOARDS: Table<DashboardRecord> = Table::new("dashboards");
const LISTING: Token = Token::for_listing("cloudwatch:ListDashboards");
/// ListDashboards' page (API reference: up to 1,000 dashboards per call).
const PAGE: usize = 1000;
const WIDGET_TYPES: [&str; 6] = ["metric", "text", "log", "alarm", "explorer", "custom"];

#[derive(Clone, Debug, Serialize, Deserialize)]
struct DashboardRecord {
    name: String,
    body: String,
    last_modified_ms: i64,
}

fn arn(region: &str, account: &str, name: &str) -> String {
    Arn::global("cloudwatch", region, account, &format!("dashboard/{name}")).to_string()
}

fn check_name(name: &str) -> Result<(), CwError> {
    if name.is_empty()
        || name.len() > 255
        || !name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    {
        return Err(invalid_value(
            "The value for field DashboardName contains invalid characters. It can only contain alphanumerics, \
             dash (-) and underscore (_).\n",
        ));
    }
    Ok(())
}

/// What is wrong with a dashboard body, as (data path, message) pairs; empty when nothing is.
fn body_problems(body: &str) -> Vec<(String, String)> {
    let Ok(Value::Object(body)) = serde_json::from_str::<Value>(body) else {
        return vec![(
            String::new(),
            "The field DashboardBody must be a valid JSON object".to_owned(),
        )];
    };
    let mut problems = Vec::new();
    match body.get("widgets") {
        None => problems.push((String::new(), "Should have required property 'widgets'".to_owned())),
        Some(Value::Array(widgets)) => {
            for (i, widget) in widgets.iter().enumerate() {
                let path = format!("/widgets/{i}");
                let Value::Object(widget) = widget else {
                    problems.push((path, "Should be object".to_owned()));
                    continue;
                };
                match widget.get("type").and_then(Value::as_str) {
                    None => problems.push((path.clone(), "Should have required property 'type'".to_owned())),
                    Some(t) if !WIDGET_TYPES.contains(&t) => problems.push((
                        format!("{path}/type"),
                        "Should be equal to one of the allowed values".to_owned(),
                    )),
                    Some(_) => {}
                }
                for key in ["x", "y", "width", "height"] {
                    if widget.get(key).is_some_and(|v| !v.is_u64()) {
                        problems.push((format!("{path}/{key}"), "Should be integer".to_owned()));
                    }
                }
                if !widget.get("properties").is_none_or(Value::is_object) {
                    problems.push((format!("{path}/properties"), "Should be object".to_owned()));
                }
            }
        }
        Some(_) => problems.push(("/widgets".to_owned(), "Should be array".to_owned())),
    }
    problems
}

pub(crate) async fn put_dashboard(
    cw: &CloudWatchService,
    ctx: &RequestContext,
    input: PutDashboardInput,
) -> Result<PutDashboardOutput, PutDashboardError> {
    check_name(&input.dashboard_name).map_err(|e| PutDashboardError::from(e.0))?;
    let problems = body_problems(&input.dashboard_body);
    if !problems.is_empty() {
        let listed: Vec<Value> = problems
            .iter()
            .map(|(path, message)| json!({"dataPath": path, "message": message}))
            .collect();
        let message = format!(
            "The dashboard body is invalid, there are {} validation errors:\n{}",
            problems.len(),
            serde_json::to_string_pretty(&listed).unwrap_or_default()
        );
        return Err(PutDashboardError::DashboardInvalidInputError(
            DashboardInvalidInputError {
                message: Some(message),
                dashboard_validation_messages: Some(
                    problems
                        .into_iter()
                        .map(|(path, message)| DashboardValidationMessage {
                            data_path: Some(path),
                            message: Some(message),
                        })
                        .collect(),
                ),
            },
        ));
    }
    let record = DashboardRecord {
        name: input.dashboard_name,
        body: input.dashboard_body,
        last_modified_ms: cw.now_ms(),
    };
    cw.dashboard_store(&ctx.account_id)
        .map_err(|e| PutDashboardError::from(e.0))?
        .transact_async(move |tx| {
            DASHBOARDS
                .put(tx, record.name.as_bytes(), &record)
                .map_err(CwError::from)
        })
        .await
        .map_err(|e| PutDashboardError::from(e.0))?;
    Ok(PutDashboardOutput {
        dashboard_validation_messages: Some(Vec::new()),
    })
}

fn not_found(name: &str) -> DashboardNotFoundError {
    DashboardNotFoundError {
        message: Some(format!("Dashboard {name} does not exist")),
    }
}

pub(crate) async fn get_dashboard(
    cw: &CloudWatchService,
    ctx: &RequestContext,
    input: GetDashboardInput,
) -> Result<GetDashboardOutput, GetDashboardError> {
    let store = cw
        .dashboard_store(&ctx.account_id)
        .map_err(|e| GetDashboardError::from(e.0))?;
    let record = DASHBOARDS
        .get(&*store, input.dashboard_name.as_bytes())
        .map_err(|e| GetDashboardError::from(CwError::from(e).0))?
        .ok_or_else(|| GetDashboardError::DashboardNotFoundError(not_found(&input.dashboard_name)))?;
    Ok(GetDashboardOutput {
        dashboard_arn: Some(arn(&ctx.region, &ctx.account_id, &record.name)),
        dashboard_body: Some(record.body),
        dashboard_name: Some(record.name),
    })
}

pub(crate) async fn delete_dashboards(
    cw: &CloudWatchService,
    ctx: &RequestContext,
    input: DeleteDashboardsInput,
) -> Result<DeleteDashboardsOutput, DeleteDashboardsError> {
    let store = cw
        .dashboard_store(&ctx.account_id)
        .map_err(|e| DeleteDashboardsError::from(e.0))?;
    let missing = store
        .transact_async(move |tx| {
            for name in &input.dashboard_names {
                if DASHBOARDS.get(&*tx, name.as_bytes())?.is_none() {
                    return Ok(Some(name.clone()));
                }
            }
            for name in &input.dashboard_names {
                DASHBOARDS.delete(tx, name.as_bytes());
            }
            Ok::<_, CwError>(None)
        })
        .await
        .map_err(|e| DeleteDashboardsError::from(e.0))?;
    match missing {
        Some(name) => Err(DeleteDashboardsError::DashboardNotFoundError(not_found(&name))),
        None => Ok(DeleteDashboardsOutput {}),
    }
}

pub(crate) async fn list_dashboards(
    cw: &CloudWatchService,
    ctx: &RequestContext,
    input: ListDashboardsInput,
) -> Result<ListDashboardsOutput, AwsError> {
    let after = match &input.next_token {
        Some(token) => Some(LISTING.decode_str(token).map_err(|_| invalid_next_token())?),
        None => None,
    };
    let store = cw.dashboard_store(&ctx.account_id)?;
    let all = stratus_storage::run_blocking(move || {
        DASHBOARDS
            .scan(&*store, &KeyRange::all(), Direction::Forward, None)
            .map_err(CwError::from)
    })
    .await?;
    let prefix = input.dashboard_name_prefix.unwrap_or_default();
    let listed = all
        .into_iter()
        .map(|(_, d)| d)
        .filter(|d| d.name.starts_with(&prefix) && after.as_ref().is_none_or(|a| d.name > *a));
    let (page, more) = take_page(listed, PAGE);
    let next_token = if more {
        page.last().map(|d| LISTING.encode_str(&d.name))
    } else {
        None
    };
    Ok(ListDashboardsOutput {
        dashboard_entries: Some(
            page.into_iter()
                .map(|d| DashboardEntry {
                    dashboard_arn: Some(arn(&ctx.region, &ctx.account_id, &d.name)),
                    last_modified: Some(DateTime::from_millis(d.last_modified_ms)),
                    size: Some(d.body.len() as i64),
                    dashboard_name: Some(d.name),
                })
                .collect(),
        ),
        next_token,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_alphanumerics_dashes_and_underscores() {
        assert!(check_name("My-dash_1").is_ok());
        let long = "a".repeat(256);
        for bad in ["", "a b", "a/b", "é", long.as_str()] {
            assert!(check_name(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn bodies_are_checked_as_aws_checks_them() {
        assert!(
            body_problems(r#"{"widgets":[{"type":"metric","x":0,"y":0,"width":6,"height":6,"properties":{}}]}"#)
                .is_empty()
        );
        assert_eq!(
            body_problems("not json")[0].1,
            "The field DashboardBody must be a valid JSON object"
        );
        assert_eq!(body_problems("[]")[0].0, "");
        assert_eq!(
            body_problems(r#"{"widgets":{}}"#),
            [("/widgets".to_owned(), "Should be array".to_owned())]
        );
        assert_eq!(
            body_problems(r#"{"widgets":[{"type":"chart"}]}"#)[0].0,
            "/widgets/0/type"
        );
        assert_eq!(
            body_problems(r#"{"widgets":[{"type":"text","x":-1}]}"#)[0].0,
            "/widgets/0/x"
        );
    }
}
