//! Replication: real copies of a primary secret in other regions' stores, each value
//! encrypted again under a key of the replica's region. A replica follows its primary after
//! every change the primary commits; writes on a replica itself are refused.

use stratus_core::RequestContext;
use stratus_gen_secrets_manager::*;

use crate::error::{invalid_parameter, invalid_request, SmError};
use crate::names::SecretRef;
use crate::ops::{load, load_at, modify, writable};
use crate::rotation::PRINCIPAL;
use crate::secret::{Replica, SecretRecord};
use crate::service::SecretsService;
use crate::store::SECRETS;

const IN_SYNC: &str = "InSync";
const FAILED: &str = "Failed";

/// A primary's `ReplicationStatus`.
pub(crate) fn statuses(secret: &SecretRecord) -> Option<Vec<ReplicationStatusType>> {
    (!secret.replicas.is_empty()).then(|| {
        secret
            .replicas
            .iter()
            .map(|r| ReplicationStatusType {
                region: Some(r.region.clone()),
                kms_key_id: Some(
                    r.kms_key_id
                        .clone()
                        .unwrap_or_else(|| crate::crypt::DEFAULT_KEY.to_owned()),
                ),
                status: Some(StatusType::from_wire(&r.status)),
                status_message: Some(r.message.clone()),
                last_accessed_date: None,
            })
            .collect()
    })
}

impl SecretsService {
    /// Writes `primary`'s copy into `replica`'s region; `force` overwrites a secret of the
    /// same name that is not already this primary's replica.
    async fn copy_to(&self, primary: &SecretRecord, replica: &Replica, force: bool) -> Result<(), SmError> {
        let mut copy = SecretRecord {
            region: replica.region.clone(),
            kms_key_id: replica.kms_key_id.clone(),
            primary_region: Some(primary.region.clone()),
            replicas: Vec::new(),
            rotation: None,
            ..primary.clone()
        };
        for (i, original) in primary.versions.iter().enumerate() {
            if let Some(sealed) = &original.value {
                let plain = self.open(primary, &original.id, sealed, PRINCIPAL).await?;
                let resealed = self.seal(&copy, None, &original.id, &plain, PRINCIPAL).await?;
                copy.versions[i].value = Some(resealed);
                copy.versions[i].key = replica.kms_key_id.clone();
            }
        }
        let primary_region = primary.region.clone();
        self.transact(&primary.account, &replica.region, move |tx| {
            if let Some(existing) = SECRETS.get(&*tx, &copy.name)? {
                let ours = existing.primary_region.as_deref() == Some(primary_region.as_str())
                    && existing.suffix == copy.suffix;
                if !ours && !force {
                    return Err(invalid_request(
                        "A secret with this name already exists in the replica Region.",
                    ));
                }
            }
            SECRETS.put(tx, copy.name.as_str(), &copy)?;
            Ok(())
        })
        .await
    }

    /// Brings every in-sync replica of `primary` up to date (after a change it committed).
    pub(crate) async fn sync_replicas(&self, primary: &SecretRecord) {
        for replica in primary.replicas.iter().filter(|r| r.status == IN_SYNC) {
            if let Err(e) = self.copy_to(primary, replica, false).await {
                tracing::warn!(
                    "secretsmanager: replicating {} to {}: {:?}",
                    primary.arn(),
                    replica.region,
                    e.0
                );
            }
        }
    }

    /// Replicates the secret `at` names to `regions` (CreateSecret's `AddReplicaRegions`,
    /// ReplicateSecretToRegions).
    pub(crate) async fn add_replicas(
        &self,
        at: &SecretRef,
        regions: Vec<ReplicaRegionType>,
        force: bool,
    ) -> Result<ReplicateSecretToRegionsResponse, SmError> {
        let primary = load_at(self, at)?;
        writable(&primary)?;
        let mut added = Vec::new();
        for asked in regions {
            let region = asked
                .region
                .ok_or_else(|| invalid_parameter("You must specify a Region for each replica."))?;
            if region == primary.region {
                return Err(invalid_parameter(
                    "Invalid replica Region: a secret can't be replicated to the Region it is stored in.",
                ));
            }
            let mut replica = Replica {
                region,
                kms_key_id: asked.kms_key_id,
                status: IN_SYNC.to_owned(),
                message: "Replication succeeded".to_owned(),
            };
            if let Err(e) = self.copy_to(&primary, &replica, force).await {
                replica.status = FAILED.to_owned();
                replica.message = format!("Replication failed: {}", e.0.message);
            }
            added.push(replica);
        }
        let (secret, ()) = modify(self, at, move |secret| {
            for replica in added {
                secret.replicas.retain(|r| r.region != replica.region);
                secret.replicas.push(replica);
            }
            Ok(())
        })
        .await?;
        Ok(ReplicateSecretToRegionsResponse {
            arn: Some(secret.arn()),
            replication_status: statuses(&secret),
        })
    }
}

pub(crate) async fn replicate_secret_to_regions(
    sm: &SecretsService,
    ctx: &RequestContext,
    input: ReplicateSecretToRegionsRequest,
) -> Result<ReplicateSecretToRegionsResponse, SmError> {
    let at = SecretRef::parse(ctx, &input.secret_id)?;
    sm.add_replicas(&at, input.add_replica_regions, input.force_overwrite_replica_secret)
        .await
}

pub(crate) async fn remove_regions_from_replication(
    sm: &SecretsService,
    ctx: &RequestContext,
    input: RemoveRegionsFromReplicationRequest,
) -> Result<RemoveRegionsFromReplicationResponse, SmError> {
    let (at, _) = load(sm, ctx, &input.secret_id)?;
    let regions = input.remove_replica_regions;
    let removing = regions.clone();
    let (secret, ()) = modify(sm, &at, move |secret| {
        writable(secret)?;
        if let Some(missing) = removing
            .iter()
            .find(|r| !secret.replicas.iter().any(|rep| &rep.region == *r))
        {
            return Err(invalid_parameter(format!(
                "The secret isn't replicated to the Region {missing}."
            )));
        }
        secret.replicas.retain(|r| !removing.contains(&r.region));
        Ok(())
    })
    .await?;
    for region in regions {
        let (name, primary_region) = (secret.name.clone(), secret.region.clone());
        sm.transact(&secret.account, &region, move |tx| {
            if SECRETS
                .get(&*tx, &name)?
                .is_some_and(|s| s.primary_region.as_deref() == Some(primary_region.as_str()))
            {
                SECRETS.delete(tx, name.into_bytes());
            }
            Ok(())
        })
        .await?;
    }
    Ok(RemoveRegionsFromReplicationResponse {
        arn: Some(secret.arn()),
        replication_status: Some(statuses(&secret).unwrap_or_default()),
    })
}

pub(crate) async fn stop_replication_to_replica(
    sm: &SecretsService,
    ctx: &RequestContext,
    input: StopReplicationToReplicaRequest,
) -> Result<StopReplicationToReplicaResponse, SmError> {
    let (at, replica) = load(sm, ctx, &input.secret_id)?;
    let Some(primary_region) = replica.primary_region.clone().filter(|p| *p != replica.region) else {
        return Err(invalid_request(
            "The secret is not a replica: only a replica secret can be promoted.",
        ));
    };
    let (secret, ()) = modify(sm, &at, |secret| {
        secret.primary_region = None;
        Ok(())
    })
    .await?;
    let (name, region) = (secret.name.clone(), secret.region.clone());
    sm.transact(&secret.account, &primary_region, move |tx| {
        if let Some(mut primary) = SECRETS.get(&*tx, &name)? {
            primary.replicas.retain(|r| r.region != region);
            SECRETS.put(tx, name.as_str(), &primary)?;
        }
        Ok(())
    })
    .await?;
    Ok(StopReplicationToReplicaResponse {
        arn: Some(secret.arn()),
    })
}
