//! DNS validation records. ACM asks for one CNAME per domain and account, the same for every
//! certificate of that domain (so one record validates them all, and their renewals):
//! `_<32 hex>.<domain>.` pointing at `_<32 hex>.<10 letters>.acm-validations.aws.`; a
//! wildcard's record is its base domain's (ACM's user guide, "DNS validation").

use sha2::{Digest, Sha256};
use stratus_gen_acm::{RecordType, ResourceRecord};

/// The CNAME that validates `domain` for `account`.
pub(crate) fn record(account: &str, domain: &str) -> ResourceRecord {
    let base = domain.strip_prefix("*.").unwrap_or(domain).to_ascii_lowercase();
    let digest = Sha256::digest(format!("{account}\n{base}").as_bytes());
    let hex = stratus_core::hex::encode(&digest);
    let letters: String = digest[16..26].iter().map(|b| char::from(b'a' + b % 26)).collect();
    ResourceRecord {
        name: format!("_{}.{base}.", &hex[..32]),
        r#type: RecordType::Cname,
        value: format!("_{}.{letters}.acm-validations.aws.", &hex[32..]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wildcard_shares_its_base_domains_record() {
        let plain = record("111111111111", "example.org");
        assert_eq!(plain, record("111111111111", "*.example.org"));
        assert!(plain.name.ends_with("._example.org.") || plain.name.ends_with(".example.org."));
        assert!(plain.value.ends_with(".acm-validations.aws."));
        assert_ne!(plain, record("222222222222", "example.org"));
    }
}
