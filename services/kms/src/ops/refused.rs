//! Custom key stores (CloudHSM clusters and external key managers), which Stratus has none
//! of: the account has no store, so each operation that names one answers as AWS does for
//! a store that does not exist, and creating one is refused by name.

use stratus_core::{AwsError, RequestContext};
use stratus_gen_kms::*;

use crate::error::KmsError;
use crate::service::KmsService;

fn store_not_found() -> KmsError {
    KmsError(AwsError::new("CustomKeyStoreNotFoundException", "", 400))
}

pub(crate) async fn create_custom_key_store(
    _kms: &KmsService,
    _ctx: &RequestContext,
    input: CreateCustomKeyStoreRequest,
) -> Result<CreateCustomKeyStoreResponse, KmsError> {
    match input.cloud_hsm_cluster_id {
        Some(cluster) => Err(KmsError(AwsError::new(
            "CloudHsmClusterNotFoundException",
            format!("Cluster {cluster} not found"),
            400,
        ))),
        None => Err(KmsError(AwsError::new(
            "NotImplemented",
            "Stratus does not connect to external key store proxies",
            501,
        ))),
    }
}

pub(crate) async fn describe_custom_key_stores(
    _kms: &KmsService,
    _ctx: &RequestContext,
    input: DescribeCustomKeyStoresRequest,
) -> Result<DescribeCustomKeyStoresResponse, KmsError> {
    if input.custom_key_store_id.is_some() || input.custom_key_store_name.is_some() {
        return Err(store_not_found());
    }
    Ok(DescribeCustomKeyStoresResponse {
        custom_key_stores: Some(Vec::new()),
        next_marker: None,
        truncated: false,
    })
}

pub(crate) async fn connect_custom_key_store(
    _kms: &KmsService,
    _ctx: &RequestContext,
    _input: ConnectCustomKeyStoreRequest,
) -> Result<ConnectCustomKeyStoreResponse, KmsError> {
    Err(store_not_found())
}

pub(crate) async fn disconnect_custom_key_store(
    _kms: &KmsService,
    _ctx: &RequestContext,
    _input: DisconnectCustomKeyStoreRequest,
) -> Result<DisconnectCustomKeyStoreResponse, KmsError> {
    Err(store_not_found())
}

pub(crate) async fn delete_custom_key_store(
    _kms: &KmsService,
    _ctx: &RequestContext,
    _input: DeleteCustomKeyStoreRequest,
) -> Result<DeleteCustomKeyStoreResponse, KmsError> {
    Err(store_not_found())
}

pub(crate) async fn update_custom_key_store(
    _kms: &KmsService,
    _ctx: &RequestContext,
    _input: UpdateCustomKeyStoreRequest,
) -> Result<UpdateCustomKeyStoreResponse, KmsError> {
    Err(store_not_found())
}
