//! Operations answered without reading storage: the account's limits and endpoint, and the
//! answers of features Stratus does not have. It makes no backups, exports, imports or
//! global tables, so their listings are empty and looking one up is AWS's not-found answer.

use stratus_core::RequestContext;
use stratus_gen_dynamodb::*;

use crate::DynamoDbService;

/// AWS's default account and table quotas.
pub(crate) async fn describe_limits(
    _service: &DynamoDbService,
    _ctx: &RequestContext,
    _input: DescribeLimitsInput,
) -> Result<DescribeLimitsOutput, DescribeLimitsError> {
    Ok(DescribeLimitsOutput {
        account_max_read_capacity_units: Some(80_000),
        account_max_write_capacity_units: Some(80_000),
        table_max_read_capacity_units: Some(40_000),
        table_max_write_capacity_units: Some(40_000),
    })
}

pub(crate) async fn describe_endpoints(
    _service: &DynamoDbService,
    ctx: &RequestContext,
    _input: DescribeEndpointsRequest,
) -> Result<DescribeEndpointsResponse, DescribeEndpointsError> {
    Ok(DescribeEndpointsResponse {
        endpoints: vec![Endpoint {
            address: format!("dynamodb.{}.amazonaws.com", ctx.region),
            cache_period_in_minutes: 1440,
        }],
    })
}

pub(crate) async fn list_backups(
    _service: &DynamoDbService,
    _ctx: &RequestContext,
    _input: ListBackupsInput,
) -> Result<ListBackupsOutput, ListBackupsError> {
    Ok(ListBackupsOutput {
        backup_summaries: Some(Vec::new()),
        last_evaluated_backup_arn: None,
    })
}

pub(crate) async fn describe_backup(
    _service: &DynamoDbService,
    _ctx: &RequestContext,
    input: DescribeBackupInput,
) -> Result<DescribeBackupOutput, DescribeBackupError> {
    Err(DescribeBackupError::BackupNotFoundException(backup_not_found(
        &input.backup_arn,
    )))
}

pub(crate) async fn delete_backup(
    _service: &DynamoDbService,
    _ctx: &RequestContext,
    input: DeleteBackupInput,
) -> Result<DeleteBackupOutput, DeleteBackupError> {
    Err(DeleteBackupError::BackupNotFoundException(backup_not_found(
        &input.backup_arn,
    )))
}

fn backup_not_found(arn: &str) -> BackupNotFoundException {
    BackupNotFoundException {
        message: Some(format!("Backup not found for the given BackupARN: {arn}")),
    }
}

pub(crate) async fn list_exports(
    _service: &DynamoDbService,
    _ctx: &RequestContext,
    _input: ListExportsInput,
) -> Result<ListExportsOutput, ListExportsError> {
    Ok(ListExportsOutput {
        export_summaries: Some(Vec::new()),
        next_token: None,
    })
}

pub(crate) async fn describe_export(
    _service: &DynamoDbService,
    _ctx: &RequestContext,
    input: DescribeExportInput,
) -> Result<DescribeExportOutput, DescribeExportError> {
    Err(DescribeExportError::ExportNotFoundException(ExportNotFoundException {
        message: Some(format!("Export not found: {}", input.export_arn)),
    }))
}

pub(crate) async fn list_imports(
    _service: &DynamoDbService,
    _ctx: &RequestContext,
    _input: ListImportsInput,
) -> Result<ListImportsOutput, ListImportsError> {
    Ok(ListImportsOutput {
        import_summary_list: Some(Vec::new()),
        next_token: None,
    })
}

pub(crate) async fn describe_import(
    _service: &DynamoDbService,
    _ctx: &RequestContext,
    input: DescribeImportInput,
) -> Result<DescribeImportOutput, DescribeImportError> {
    Err(DescribeImportError::ImportNotFoundException(ImportNotFoundException {
        message: Some(format!("Import not found: {}", input.import_arn)),
    }))
}

pub(crate) async fn list_global_tables(
    _service: &DynamoDbService,
    _ctx: &RequestContext,
    _input: ListGlobalTablesInput,
) -> Result<ListGlobalTablesOutput, ListGlobalTablesError> {
    Ok(ListGlobalTablesOutput {
        global_tables: Some(Vec::new()),
        last_evaluated_global_table_name: None,
    })
}

pub(crate) async fn describe_global_table(
    _service: &DynamoDbService,
    _ctx: &RequestContext,
    input: DescribeGlobalTableInput,
) -> Result<DescribeGlobalTableOutput, DescribeGlobalTableError> {
    Err(DescribeGlobalTableError::GlobalTableNotFoundException(
        global_table_not_found(&input.global_table_name),
    ))
}

pub(crate) async fn describe_global_table_settings(
    _service: &DynamoDbService,
    _ctx: &RequestContext,
    input: DescribeGlobalTableSettingsInput,
) -> Result<DescribeGlobalTableSettingsOutput, DescribeGlobalTableSettingsError> {
    Err(DescribeGlobalTableSettingsError::GlobalTableNotFoundException(
        global_table_not_found(&input.global_table_name),
    ))
}

fn global_table_not_found(name: &str) -> GlobalTableNotFoundException {
    GlobalTableNotFoundException {
        message: Some(format!("Global table not found: {name}")),
    }
}
