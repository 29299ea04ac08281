//! The access keys of AWS's form that no key directory knows, remembered so that a workload
//! signing with a key Stratus never issued (AWS's documentation key, a developer's real key
//! pointed at Stratus) does not cost every request a read of IAM's and STS's stores.
//!
//! A key is issued after it was found unknown only in a race — key ids are random, and reach
//! a client only once stored — but the memory must not outlive it: each directory counts the
//! keys it issues ([`KeyDirectory::issued`]), and the memory is emptied whenever the sum
//! changes. The sum is read *before* the directories are asked and a miss is remembered only
//! under that sum, so a key stored after the read (and counted after it is stored) makes
//! the next request see another sum and ask again.

use std::collections::HashSet;
use std::sync::Mutex;

use stratus_core::service::KeyDirectory;

/// How many unknown keys are remembered at most; past that the memory starts again empty.
const MOST: usize = 4096;

/// The keys no directory knew, under the directories' count of issued keys.
#[derive(Debug, Default)]
pub(crate) struct UnknownKeys {
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    /// The directories' issued count the keys were found unknown under.
    issued: u64,
    keys: HashSet<Box<str>>,
}

impl UnknownKeys {
    /// The directories' count of issued keys, to read before asking them.
    pub(crate) fn issued(directories: &[std::sync::Arc<dyn KeyDirectory>]) -> u64 {
        directories.iter().fold(0u64, |sum, d| sum.wrapping_add(d.issued()))
    }

    /// Whether `key` was found unknown under the count `issued`.
    pub(crate) fn knows_unknown(&self, key: &str, issued: u64) -> bool {
        let mut state = self.lock();
        if state.issued != issued {
            state.keys.clear();
            state.issued = issued;
            return false;
        }
        state.keys.contains(key)
    }

    /// Remembers that no directory knew `key` when their count was `issued`; nothing when
    /// the count has moved on since (the miss may predate a key issued meanwhile).
    pub(crate) fn remember(&self, key: &str, issued: u64) {
        let mut state = self.lock();
        if state.issued != issued {
            return;
        }
        if state.keys.len() >= MOST {
            state.keys.clear();
        }
        state.keys.insert(key.into());
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        // The state is a cache: one a panic left half-updated is still only a cache.
        self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::{Arc, Mutex};

    use stratus_core::service::{Identity, KeyDirectory};
    use stratus_core::AwsError;

    use super::*;

    /// A directory that counts its lookups and issues keys when told.
    #[derive(Default)]
    struct Directory {
        keys: Mutex<HashSet<String>>,
        issued: AtomicU64,
        lookups: AtomicU64,
    }

    impl Directory {
        fn issue(&self, key: &str) {
            self.keys.lock().unwrap().insert(key.to_owned());
            self.issued.fetch_add(1, Ordering::Release);
        }
    }

    impl KeyDirectory for Directory {
        fn identify(&self, _: &str, _: &str, key: &str) -> Result<Option<Identity>, AwsError> {
            self.lookups.fetch_add(1, Ordering::Relaxed);
            Ok(self.keys.lock().unwrap().contains(key).then(|| Identity {
                account_id: "123456789012".into(),
                principal: stratus_core::Principal {
                    kind: stratus_core::PrincipalKind::User,
                    arn: "arn:aws:iam::123456789012:user/u".into(),
                    user_id: "AIDA".into(),
                    temporary: false,
                },
                secret_access_key: String::new(),
                session_token: None,
                expires: None,
                active: true,
                session: None,
            }))
        }

        fn issued(&self) -> u64 {
            self.issued.load(Ordering::Acquire)
        }
    }

    /// What the gateway does: read the count, consult the memory, ask, remember a miss.
    fn known(unknown: &UnknownKeys, directories: &[Arc<dyn KeyDirectory>], key: &str) -> bool {
        let issued = UnknownKeys::issued(directories);
        if unknown.knows_unknown(key, issued) {
            return false;
        }
        let found = directories.iter().any(|d| d.identify("", "", key).unwrap().is_some());
        if !found {
            unknown.remember(key, issued);
        }
        found
    }

    #[test]
    fn an_unknown_key_is_looked_up_once_until_a_key_is_issued() {
        let iam = Arc::new(Directory::default());
        let directories: Vec<Arc<dyn KeyDirectory>> = vec![iam.clone()];
        let unknown = UnknownKeys::default();
        for _ in 0..3 {
            assert!(!known(&unknown, &directories, "AKIAUNKNOWN"));
        }
        assert_eq!(iam.lookups.load(Ordering::Relaxed), 1);
        iam.issue("AKIAUNKNOWN");
        assert!(known(&unknown, &directories, "AKIAUNKNOWN"));
    }

    #[test]
    fn a_miss_read_before_a_key_was_issued_is_not_remembered_after() {
        // The race: the count is read, the key is issued (stored, then counted), and only
        // then is the miss remembered — under the old count, so it is forgotten at once.
        let iam = Arc::new(Directory::default());
        let directories: Vec<Arc<dyn KeyDirectory>> = vec![iam.clone()];
        let unknown = UnknownKeys::default();
        let issued = UnknownKeys::issued(&directories);
        assert!(!unknown.knows_unknown("AKIARACE", issued));
        let missed = iam.identify("", "", "AKIARACE").unwrap().is_none();
        iam.issue("AKIARACE");
        assert!(missed);
        unknown.remember("AKIARACE", issued);
        assert!(known(&unknown, &directories, "AKIARACE"));
        // And a miss under an older count than the memory's is not remembered at all.
        let before = UnknownKeys::issued(&directories);
        iam.issue("AKIAOTHER");
        assert!(!unknown.knows_unknown("AKIANEW", UnknownKeys::issued(&directories)));
        unknown.remember("AKIANEW", before);
        assert!(!unknown.knows_unknown("AKIANEW", UnknownKeys::issued(&directories)));
    }

    #[test]
    fn the_memory_is_bounded() {
        let unknown = UnknownKeys::default();
        assert!(!unknown.knows_unknown("k", 0));
        for i in 0..MOST + 10 {
            unknown.remember(&format!("AKIA{i}"), 0);
        }
        assert!(unknown.lock().keys.len() <= MOST);
    }
}
