//! Table settings that round-trip without a feature behind them, and the honest answer of a
//! feature Stratus does not have:
//!
//! - contributor insights: the status (and mode) set by UpdateContributorInsights, per table
//!   and index, reported by Describe/ListContributorInsights; no contributor data is kept;
//! - resource-based policies: Put/Get/DeleteResourcePolicy keep the document and a revision
//!   id on the table (the policy is not enforced: Stratus does not check permissions).

use stratus_core::paging::Token;
use stratus_gen_dynamodb::*;

use crate::db::{self, Scope};
use crate::error::DdbError;
use crate::table::{Insights, Policy, TableRecord};

fn mode_name(mode: Option<&ContributorInsightsMode>) -> String {
    match mode {
        Some(ContributorInsightsMode::ThrottledKeys) => "THROTTLED_KEYS".into(),
        Some(ContributorInsightsMode::Unknown(other)) => other.clone(),
        _ => "ACCESSED_AND_THROTTLED_KEYS".into(),
    }
}

fn mode(name: &str) -> ContributorInsightsMode {
    match name {
        "THROTTLED_KEYS" => ContributorInsightsMode::ThrottledKeys,
        "ACCESSED_AND_THROTTLED_KEYS" => ContributorInsightsMode::AccessedAndThrottledKeys,
        other => ContributorInsightsMode::Unknown(other.into()),
    }
}

fn check_index(table: &TableRecord, index: Option<&str>) -> Result<(), DdbError> {
    match index {
        Some(name) if table.index(name).is_none() => Err(DdbError::ResourceNotFound(format!(
            "Requested resource not found: Index: {name} not found in table: {}",
            table.name
        ))),
        _ => Ok(()),
    }
}

fn insights_of<'t>(table: &'t TableRecord, index: Option<&str>) -> Option<&'t Insights> {
    table.insights.iter().find(|i| i.index.as_deref() == index)
}

fn status(insights: Option<&Insights>) -> ContributorInsightsStatus {
    if insights.is_some_and(|i| i.enabled) {
        ContributorInsightsStatus::Enabled
    } else {
        ContributorInsightsStatus::Disabled
    }
}

pub(crate) fn update_contributor_insights(
    scope: &Scope,
    input: UpdateContributorInsightsInput,
) -> Result<UpdateContributorInsightsOutput, DdbError> {
    let enable = match &input.contributor_insights_action {
        ContributorInsightsAction::Enable => true,
        ContributorInsightsAction::Disable => false,
        ContributorInsightsAction::Unknown(other) => {
            return Err(DdbError::validation(format!(
                "1 validation error detected: Value '{other}' at 'contributorInsightsAction' failed to satisfy constraint: Member must satisfy enum value set: [ENABLE, DISABLE]"
            )))
        }
    };
    let index = input.index_name.clone();
    let mode = mode_name(input.contributor_insights_mode.as_ref());
    scope.store.transact(|tx| {
        let mut table = db::table(tx, &scope.table(&input.table_name))?;
        check_index(&table, index.as_deref())?;
        table.insights.retain(|i| i.index != index);
        table.insights.push(Insights {
            index: index.clone(),
            enabled: enable,
            mode: mode.clone(),
            updated_ms: scope.now_ms(),
        });
        db::save_table(tx, &table)?;
        Ok::<_, DdbError>(())
    })?;
    Ok(UpdateContributorInsightsOutput {
        table_name: Some(input.table_name),
        index_name: input.index_name,
        // The change takes effect at once; AWS reports it as under way.
        contributor_insights_status: Some(if enable {
            ContributorInsightsStatus::Enabling
        } else {
            ContributorInsightsStatus::Disabling
        }),
        contributor_insights_mode: enable.then(|| self::mode(&mode)),
    })
}

pub(crate) fn describe_contributor_insights(
    scope: &Scope,
    input: DescribeContributorInsightsInput,
) -> Result<DescribeContributorInsightsOutput, DdbError> {
    let table = scope.named_table(&input.table_name)?;
    check_index(&table, input.index_name.as_deref())?;
    let insights = insights_of(&table, input.index_name.as_deref());
    let enabled = insights.filter(|i| i.enabled);
    Ok(DescribeContributorInsightsOutput {
        table_name: Some(table.name.clone()),
        index_name: input.index_name,
        contributor_insights_rule_list: None,
        contributor_insights_status: Some(status(insights)),
        last_update_date_time: insights.map(|i| stratus_core::DateTime::from_millis(i.updated_ms)),
        failure_exception: None,
        contributor_insights_mode: enabled.map(|i| mode(&i.mode)),
    })
}

/// ListContributorInsights' continuation tokens: the position of the next summary.
const INSIGHTS_PAGES: Token = Token::for_listing("dynamodb:ListContributorInsights");

pub(crate) fn list_contributor_insights(
    scope: &Scope,
    input: ListContributorInsightsInput,
) -> Result<ListContributorInsightsOutput, DdbError> {
    let tables: Vec<TableRecord> = match &input.table_name {
        Some(name) => vec![scope.named_table(name)?],
        None => db::all_tables(&*scope.store)?,
    };
    let mut summaries = Vec::new();
    for table in &tables {
        let globals = table.indexes.iter().filter(|i| i.global).map(|i| Some(i.name.as_str()));
        for index in std::iter::once(None).chain(globals) {
            let insights = insights_of(table, index);
            summaries.push(ContributorInsightsSummary {
                table_name: Some(table.name.clone()),
                index_name: index.map(str::to_owned),
                contributor_insights_status: Some(status(insights)),
                contributor_insights_mode: insights.filter(|i| i.enabled).map(|i| mode(&i.mode)),
            });
        }
    }
    let start = match input.next_token.as_deref() {
        Some(token) => INSIGHTS_PAGES
            .decode(token)
            .ok()
            .and_then(|at| Some(u64::from_be_bytes(at.try_into().ok()?) as usize))
            .ok_or_else(|| DdbError::validation("Invalid NextToken"))?,
        None => 0,
    };
    let size = if input.max_results > 0 {
        input.max_results as usize
    } else {
        summaries.len().max(1)
    };
    let page: Vec<_> = summaries.iter().skip(start).take(size).cloned().collect();
    let next = start + page.len();
    Ok(ListContributorInsightsOutput {
        contributor_insights_summaries: Some(page),
        next_token: (next < summaries.len()).then(|| INSIGHTS_PAGES.encode(&(next as u64).to_be_bytes())),
    })
}

/// The table a resource ARN names (`arn:aws:dynamodb:REGION:ACCOUNT:table/NAME`, or a
/// stream or index ARN under it).
fn table_name_of(scope: &Scope, arn: &str) -> Result<String, DdbError> {
    let path = TableRecord::path_in_arn(arn, &scope.region, &scope.account);
    match path.as_deref().and_then(|p| p.split('/').next()) {
        Some(name) if !name.is_empty() => Ok(name.to_owned()),
        _ => Err(DdbError::validation(format!(
            "Invalid ResourceArn provided as input {arn}"
        ))),
    }
}

fn policy_not_found(arn: &str) -> DdbError {
    DdbError::PolicyNotFound(format!(
        "Resource-based policy not found for the provided ResourceArn: {arn}"
    ))
}

pub(crate) fn put_resource_policy(
    scope: &Scope,
    input: PutResourcePolicyInput,
) -> Result<PutResourcePolicyOutput, DdbError> {
    let name = table_name_of(scope, &input.resource_arn)?;
    if serde_json::from_str::<serde_json::Value>(&input.policy).map_or(true, |v| !v.is_object()) {
        return Err(DdbError::validation(
            "Invalid policy document: the policy must be a JSON object",
        ));
    }
    let revision = scope.store.transact(|tx| {
        let mut table = db::table(tx, &name)?;
        if let Some(expected) = &input.expected_revision_id {
            if table.policy.as_ref().is_none_or(|p| &p.revision != expected) {
                return Err(DdbError::PolicyNotFound(format!(
                    "A policy with the given revision ID was not found for the provided ResourceArn: {}",
                    input.resource_arn
                )));
            }
        }
        let previous = table
            .policy
            .as_ref()
            .and_then(|p| p.revision.parse::<i64>().ok())
            .unwrap_or(0);
        let revision = scope.now_ms().max(previous + 1).to_string();
        table.policy = Some(Policy {
            document: input.policy.clone(),
            revision: revision.clone(),
        });
        db::save_table(tx, &table)?;
        Ok(revision)
    })?;
    Ok(PutResourcePolicyOutput {
        revision_id: Some(revision),
    })
}

pub(crate) fn get_resource_policy(
    scope: &Scope,
    input: GetResourcePolicyInput,
) -> Result<GetResourcePolicyOutput, DdbError> {
    let name = table_name_of(scope, &input.resource_arn)?;
    let table = db::table(&*scope.store, &name)?;
    let policy = table.policy.ok_or_else(|| policy_not_found(&input.resource_arn))?;
    Ok(GetResourcePolicyOutput {
        policy: Some(policy.document),
        revision_id: Some(policy.revision),
    })
}

pub(crate) fn delete_resource_policy(
    scope: &Scope,
    input: DeleteResourcePolicyInput,
) -> Result<DeleteResourcePolicyOutput, DdbError> {
    let name = table_name_of(scope, &input.resource_arn)?;
    let revision = scope.store.transact(|tx| {
        let mut table = db::table(tx, &name)?;
        let policy = table
            .policy
            .take()
            .ok_or_else(|| policy_not_found(&input.resource_arn))?;
        if input
            .expected_revision_id
            .as_ref()
            .is_some_and(|e| e != &policy.revision)
        {
            return Err(policy_not_found(&input.resource_arn));
        }
        db::save_table(tx, &table)?;
        Ok(policy.revision)
    })?;
    Ok(DeleteResourcePolicyOutput {
        revision_id: Some(revision),
    })
}
