//! Service-linked roles: roles a service creates for itself under `/aws-service-role/SERVICE/`,
//! named `AWSServiceRoleFor…`, trusting that service, and modifiable only through these
//! operations.
//!
//! Stratus knows the role names of the services in [`SERVICES`]; another service's role is
//! not created (`NotImplemented`, naming the service) rather than given a made-up name. The
//! permissions policy AWS attaches to each is not attached (those AWS managed policies are not
//! shipped), and deletion completes at once, so its task reports `SUCCEEDED`.

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

/// Services and the name their role takes after `AWSServiceRoleFor` (the IAM User Guide's
/// "AWS services that work with IAM" and each service's guide).
const SERVICES: &[(&str, &str)] = &[
    ("autoscaling.amazonaws.com", "AutoScaling"),
    ("batch.amazonaws.com", "Batch"),
    ("cloudtrail.amazonaws.com", "CloudTrail"),
    ("config.amazonaws.com", "Config"),
    ("ecs.amazonaws.com", "ECS"),
    ("eks.amazonaws.com", "AmazonEKS"),
    ("elasticache.amazonaws.com", "ElastiCache"),
    ("elasticloadbalancing.amazonaws.com", "ElasticLoadBalancing"),
    ("rds.amazonaws.com", "RDS"),
    ("spot.amazonaws.com", "EC2Spot"),
    ("ssm.amazonaws.com", "AmazonSSM"),
];

/// The services whose roles may carry a custom suffix (all others refuse one).
const SUFFIXED: &[&str] = &[
    "autoscaling.amazonaws.com",
    "connect.amazonaws.com",
    "lexv2.amazonaws.com",
];

/// The path of `service`'s roles.
fn path(service: &str) -> String {
    format!("/aws-service-role/{service}/")
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
    if input.custom_suffix.is_some() && !SUFFIXED.contains(&service.as_str()) {
        // Recorded from AWS for each service that takes no suffix.
        return Err(IamError::InvalidInput(format!(
            "Custom suffix is not allowed for {service}"
        )));
    }
    let Some((_, role)) = SERVICES.iter().find(|(s, _)| *s == service) else {
        return Err(IamError::NotServed(format!(
            "Stratus does not know the service-linked role of {service}"
        )));
    };
    let name = match &input.custom_suffix {
        Some(suffix) => format!("AWSServiceRoleFor{role}_{suffix}"),
        None => format!("AWSServiceRoleFor{role}"),
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
        permissions: Permissions::default(),
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
    fn trust_policies_are_valid_and_name_the_service() {
        for (service, _) in SERVICES {
            let document = trust_policy(service);
            Policy::parse(&document, PolicyKind::Trust).unwrap();
            assert!(document.contains(service));
        }
    }
}
