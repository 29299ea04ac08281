//! Reading and deleting parameters: GetParameter, GetParameters, DeleteParameter(s), and
//! the lookup of a name with its selector that the other operations share.

use stratus_core::{DateTime, RequestContext};
use stratus_gen_ssm::{
    DeleteParameterRequest, DeleteParameterResult, DeleteParametersRequest, DeleteParametersResult,
    GetParameterRequest, GetParameterResult, GetParametersRequest, GetParametersResult, Parameter, ParameterType,
};
use stratus_storage::Read;

use crate::error::{invalid_name, parameter_not_found, version_not_found, SsmError};
use crate::names::{arn, check_form, key_of, parse_reference, Reference, Selector};
use crate::ops::principal_arn;
use crate::public;
use crate::records::{remove, version_key, ParameterRecord, VersionRecord, PARAMETERS, VERSIONS};
use crate::secrets;
use crate::service::SsmService;

/// A parameter and the version a reference selects.
pub(crate) struct Found {
    pub(crate) record: ParameterRecord,
    pub(crate) version: VersionRecord,
}

/// The parameter `reference` names, at the version its selector picks.
pub(crate) fn find(r: &(impl Read + ?Sized), reference: &Reference) -> Result<Found, SsmError> {
    let key = key_of(&reference.name);
    let record = PARAMETERS.get(r, &key)?.ok_or_else(parameter_not_found)?;
    let wanted = match &reference.selector {
        None => {
            return Ok(Found {
                version: record.current.clone(),
                record,
            })
        }
        Some(Selector::Version(v)) => *v,
        Some(Selector::Label(label)) => *record
            .labels
            .get(label)
            .ok_or_else(|| version_not_found(&reference.name, label))?,
    };
    let version = if wanted == record.current.version {
        record.current.clone()
    } else {
        VERSIONS
            .get(r, version_key(&key, wanted))?
            .ok_or_else(|| version_not_found(&reference.name, wanted))?
    };
    Ok(Found { record, version })
}

impl SsmService {
    /// A version's value as answered: a SecureString's ciphertext, or its plaintext when
    /// `decrypt`.
    pub(crate) async fn value_of(
        &self,
        ctx: &RequestContext,
        name: &str,
        version: &VersionRecord,
        decrypt: bool,
    ) -> Result<String, SsmError> {
        if !decrypt || version.kind != "SecureString" {
            return Ok(version.value.clone());
        }
        let key_id = version.key_id.as_deref().unwrap_or(crate::secure::DEFAULT_KEY);
        let arn = arn(&ctx.region, &ctx.account_id, name);
        self.open(ctx, &principal_arn(ctx), key_id, &arn, &version.value).await
    }

    /// One parameter as GetParameter(s) answer it.
    async fn read(&self, ctx: &RequestContext, text: &str, decrypt: bool) -> Result<Parameter, SsmError> {
        let reference = parse_reference(text)?;
        let key = key_of(&reference.name);
        if key.starts_with(secrets::PREFIX) {
            return self.read_secret(ctx, &reference, &key, decrypt).await;
        }
        if key.starts_with(public::ROOT) {
            let found = public::find(&ctx.region, &key).ok_or_else(parameter_not_found)?;
            return Ok(Parameter {
                name: Some(reference.name.clone()),
                r#type: Some(ParameterType::String),
                value: Some(found.value),
                version: 1,
                selector: reference.selector.as_ref().map(Selector::text),
                source_result: None,
                last_modified_date: Some(DateTime::from_millis(public::MODIFIED_MS)),
                arn: Some(public::arn(&ctx.region, &found.name)),
                data_type: Some("text".into()),
            });
        }
        let store = self.store_of(ctx)?;
        let found = find(&*store, &reference)?;
        let value = self.value_of(ctx, &found.record.name, &found.version, decrypt).await?;
        Ok(found.version.parameter(
            &reference.name,
            arn(&ctx.region, &ctx.account_id, &found.record.name),
            value,
            reference.selector.as_ref().map(Selector::text),
        ))
    }
}

pub(crate) async fn get_parameter(
    ssm: &SsmService,
    ctx: &RequestContext,
    input: GetParameterRequest,
) -> Result<GetParameterResult, SsmError> {
    let parameter = ssm.read(ctx, &input.name, input.with_decryption == Some(true)).await?;
    Ok(GetParameterResult {
        parameter: Some(parameter),
    })
}

pub(crate) async fn get_parameters(
    ssm: &SsmService,
    ctx: &RequestContext,
    input: GetParametersRequest,
) -> Result<GetParametersResult, SsmError> {
    let decrypt = input.with_decryption == Some(true);
    let mut parameters = Vec::new();
    let mut invalid = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for name in input.names {
        if !seen.insert(name.clone()) {
            continue;
        }
        match ssm.read(ctx, &name, decrypt).await {
            Ok(p) => parameters.push(p),
            Err(e) if e.0.http_status < 500 && e.0.code != "InvalidKeyId" => invalid.push(name),
            Err(e) => return Err(e),
        }
    }
    Ok(GetParametersResult {
        parameters: Some(parameters),
        invalid_parameters: Some(invalid),
    })
}

/// Deletes the parameter `name` (no selector) in `tx`; answers whether it existed.
fn delete_one(tx: &mut stratus_storage::Tx<'_>, name: &str) -> Result<bool, SsmError> {
    let key = key_of(name);
    let Some(record) = PARAMETERS.get(tx, &key)? else {
        return Ok(false);
    };
    remove(tx, &key, &record)?;
    Ok(true)
}

pub(crate) async fn delete_parameter(
    ssm: &SsmService,
    ctx: &RequestContext,
    input: DeleteParameterRequest,
) -> Result<DeleteParameterResult, SsmError> {
    check_form(&input.name)?;
    let name = input.name;
    let existed = ssm.transact(ctx, move |tx| delete_one(tx, &name)).await?;
    if !existed {
        return Err(parameter_not_found());
    }
    Ok(DeleteParameterResult {})
}

pub(crate) async fn delete_parameters(
    ssm: &SsmService,
    ctx: &RequestContext,
    input: DeleteParametersRequest,
) -> Result<DeleteParametersResult, SsmError> {
    let names = input.names;
    let (deleted, invalid) = ssm
        .transact(ctx, move |tx| {
            let (mut deleted, mut invalid) = (Vec::new(), Vec::new());
            for name in names {
                if check_form(&name).is_ok() && delete_one(tx, &name)? {
                    deleted.push(name);
                } else {
                    invalid.push(name);
                }
            }
            Ok((deleted, invalid))
        })
        .await?;
    Ok(DeleteParametersResult {
        deleted_parameters: Some(deleted),
        invalid_parameters: Some(invalid),
    })
}

/// A reference that must name a parameter without a selector (history, labels).
pub(crate) fn plain_reference(text: &str) -> Result<Reference, SsmError> {
    let reference = parse_reference(text)?;
    if reference.selector.is_some() {
        return Err(invalid_name());
    }
    Ok(reference)
}
