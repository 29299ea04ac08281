//! Service-linked roles: roles a service creates for itself under `/aws-service-role/SERVICE/`,
//! named `AWSServiceRoleFor…`, trusting that service, holding the AWS managed policy the
//! service attaches, and modifiable only through these operations.
//!
//! The services Stratus knows are data (`data/service-linked-roles.json`): each service's role
//! name, the `aws-service-role/` policy attached to it, and whether it takes a custom suffix,
//! as AWS creates them. Another service's role is not created (`NotImplemented`, naming the
//! service) rather than given a made-up name. The attached policies' documents are not shipped
//! (see docs/services/iam.md), so `GetPolicy` on one answers `NoSuchEntity`. Deletion completes
//! at once, so its task reports `SUCCEEDED`.

use std::sync::LazyLock;

use serde::Deserialize;
use stratus_core::arn::partition_of;
use stratus_core::id::uuid;
use stratus_core::RequestContext;
use stratus_gen_iam::*;
use stratus_storage::Table;

use crate::error::IamError;
use crate::ids::{unique_id, IdKind};
use crate::records::{key, Permissions, RoleRecord};
use crate::service::{now, scope, IamService};
use crate::store::{load, ROLES};

/// Deletion tasks by id: the role each deleted.
pub(crate) const DELETION_TASKS: Table<String> = Table::new("deletion_tasks");

/// One service's service-linked role, as AWS creates it.
#[derive(Debug, Deserialize)]
struct LinkedService {
    /// The service principal, `….amazonaws.com`.
    service: String,
    /// The role's name (before any custom suffix).
    role: String,
    /// The AWS managed policy attached, under `policy/aws-service-role/`.
    policy: String,
    /// Whether the role may carry a custom suffix (`ROLE_SUFFIX`); most services refuse one.
    #[serde(default)]
    custom_suffix: bool,
}

/// The services whose roles Stratus creates.
static SERVICES: LazyLock<Vec<LinkedService>> = LazyLock::new(|| {
    // Checked by the tests below, so an empty table here is never shipped.
    serde_json::from_str(include_str!("../../data/service-linked-roles.json")).unwrap_or_default()
});

fn linked_service(service: &str) -> Option<&'static LinkedService> {
    SERVICES.iter().find(|s| s.service == service)
}

/// The path of `service`'s roles.
fn path(service: &str) -> String {
    format!("/aws-service-role/{service}/")
}

/// The ARN of the AWS managed policy `name` under `aws-service-role/`, in `region`'s partition.
fn policy_arn(region: &str, name: &str) -> String {
    format!("arn:{}:iam::aws:policy/aws-service-role/{name}", partition_of(region))
}

/// Whether `role` is a service-linked role.
pub(crate) fn is_service_linked(role: &RoleRecord) -> bool {
    role.path.starts_with("/aws-service-role/")
}

/// AWS's refusal to change a service-linked role through the ordinary operations.
pub(crate) fn protected(role: &RoleRecord) -> IamError {
    IamError::UnmodifiableEntity(format!(
        "Cannot perform the operation on the protected role '{}' - this role is only modifiable by AWS",
        role.name
    ))
}

/// The trust policy of `service`'s role, as AWS writes it (recorded: action and service as
/// plain strings).
fn trust_policy(service: &str) -> String {
    format!(
        r#"{{"Version":"2012-10-17","Statement":[{{"Effect":"Allow","Principal":{{"Service":"{service}"}},"Action":"sts:AssumeRole"}}]}}"#
    )
}

pub(crate) async fn create_service_linked_role(
    iam: &IamService,
    ctx: &RequestContext,
    input: CreateServiceLinkedRoleRequest,
) -> Result<CreateServiceLinkedRoleResponse, IamError> {
    let service = input.aws_service_name;
    let Some(linked) = linked_service(&service) else {
        return Err(IamError::NotServed(format!(
            "Stratus does not know the service-linked role of {service}"
        )));
    };
    let name = match &input.custom_suffix {
        // Recorded from AWS for each service that takes no suffix.
        Some(_) if !linked.custom_suffix => {
            return Err(IamError::InvalidInput(format!(
                "Custom suffix is not allowed for {service}"
            )))
        }
        Some(suffix) => format!("{}_{suffix}", linked.role),
        None => linked.role.clone(),
    };
    let record = RoleRecord {
        name,
        path: path(&service),
        id: unique_id(IdKind::Role),
        created: now(ctx),
        trust_policy: trust_policy(&service),
        description: input.description,
        max_session_duration: 3600,
        boundary: None,
        tags: Vec::new(),
        permissions: Permissions {
            attached: vec![policy_arn(&ctx.region, &linked.policy)],
            ..Permissions::default()
        },
        last_used: None,
    };
    let record = iam
        .write(&ctx.account_id, move |tx| {
            if ROLES.get(tx, key(&record.name))?.is_some() {
                // Recorded from AWS.
                return Err(IamError::InvalidInput(format!(
                    "Service role name {} has been taken in this account, please try a different suffix.",
                    record.name
                )));
            }
            ROLES.put(tx, key(&record.name), &record)?;
            Ok(record)
        })
        .await?;
    Ok(CreateServiceLinkedRoleResponse {
        role: Some(record.created(&scope(ctx))),
    })
}

pub(crate) async fn delete_service_linked_role(
    iam: &IamService,
    ctx: &RequestContext,
    input: DeleteServiceLinkedRoleRequest,
) -> Result<DeleteServiceLinkedRoleResponse, IamError> {
    let task_uuid = uuid();
    let deletion_task_id = iam
        .write(&ctx.account_id, move |tx| {
            let role: RoleRecord = load(tx, &input.role_name)?;
            let Some(service) = role.path.strip_prefix("/aws-service-role/") else {
                return Err(IamError::InvalidInput(format!(
                    "{} is not a service-linked role.",
                    role.name
                )));
            };
            // `task/aws-service-role/SERVICE/ROLE/UUID`, as recorded from AWS.
            let task = format!("task/aws-service-role/{service}{}/{task_uuid}", role.name);
            ROLES.delete(tx, key(&role.name));
            DELETION_TASKS.put(tx, task.as_bytes(), &role.name)?;
            Ok(task)
        })
        .await?;
    Ok(DeleteServiceLinkedRoleResponse { deletion_task_id })
}

pub(crate) async fn get_service_linked_role_deletion_status(
    iam: &IamService,
    ctx: &RequestContext,
    input: GetServiceLinkedRoleDeletionStatusRequest,
) -> Result<GetServiceLinkedRoleDeletionStatusResponse, IamError> {
    DELETION_TASKS
        .get(&iam.reader(&ctx.account_id)?, &input.deletion_task_id)?
        .ok_or_else(|| IamError::NoSuchEntity(format!("Deletion task {} not found.", input.deletion_task_id)))?;
    Ok(GetServiceLinkedRoleDeletionStatusResponse {
        status: DeletionTaskStatusType::Succeeded,
        reason: None,
    })
}

#[cfg(test)]
mod tests {
    use stratus_policy::{Policy, PolicyKind};

    use super::*;

    #[test]
    fn the_shipped_table_reads_and_names_each_service_once() {
        assert!(SERVICES.len() >= 70, "data/service-linked-roles.json did not read");
        let mut services: Vec<&str> = SERVICES.iter().map(|s| s.service.as_str()).collect();
        services.sort_unstable();
        services.dedup();
        assert_eq!(services.len(), SERVICES.len());
        for linked in SERVICES.iter() {
            assert!(linked.service.ends_with(".amazonaws.com"), "{}", linked.service);
            assert!(linked.role.starts_with("AWSServiceRoleFor"), "{}", linked.role);
            assert!(!linked.policy.is_empty() && !linked.policy.contains('/'));
        }
    }

    #[test]
    fn trust_policies_are_valid_and_name_the_service() {
        for linked in SERVICES.iter() {
            let document = trust_policy(&linked.service);
            Policy::parse(&document, PolicyKind::Trust).unwrap();
            assert!(document.contains(&linked.service));
        }
    }

    #[test]
    fn only_some_services_take_a_suffix() {
        let suffixed: Vec<&str> = SERVICES
            .iter()
            .filter(|s| s.custom_suffix)
            .map(|s| s.service.as_str())
            .collect();
        assert_eq!(
            suffixed,
            [
                "autoscaling.amazonaws.com",
                "connect.amazonaws.com",
                "lexv2.amazonaws.com"
            ]
        );
        let batch = linked_service("batch.amazonaws.com").unwrap();
        assert_eq!(batch.role, "AWSServiceRoleForBatch");
        assert_eq!(
            policy_arn("cn-north-1", &batch.policy),
            "arn:aws-cn:iam::aws:policy/aws-service-role/BatchServiceRolePolicy"
        );
    }
}
