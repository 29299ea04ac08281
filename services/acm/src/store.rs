//! The tables of an `acm` store.

use serde::{Deserialize, Serialize};
use stratus_storage::Table;

use crate::authority::Authority;
use crate::certificate::CertificateRecord;

/// Certificates by id (the ARN's last part).
pub(crate) const CERTIFICATES: Table<CertificateRecord> = Table::new("certificates");

/// The region's local CA, under [`ROOT`].
pub(crate) const AUTHORITIES: Table<Authority> = Table::new("authorities");
pub(crate) const ROOT: &str = "root";

/// The account's configuration in this region, under [`ACCOUNT`].
pub(crate) const CONFIGURATION: Table<AccountConfiguration> = Table::new("configuration");
pub(crate) const ACCOUNT: &str = "account";

/// PutAccountConfiguration's settings.
#[derive(Serialize, Deserialize, Clone, Debug)]
pub(crate) struct AccountConfiguration {
    /// How many days before expiry ACM sends its expiry events.
    pub(crate) days_before_expiry: i32,
}

impl Default for AccountConfiguration {
    /// 45 days (the API reference's default for `DaysBeforeExpiry`).
    fn default() -> Self {
        AccountConfiguration { days_before_expiry: 45 }
    }
}
