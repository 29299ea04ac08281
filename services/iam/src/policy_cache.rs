//! Parsed policies kept between authorizations, so that a request reads neither the store nor
//! a document: per account, what each user and role holds and the session policies seen, and
//! the resource policies seen in any account.
//!
//! Every write to an account's store ([`IamService::write`](crate::service::IamService))
//! drops the account's entries once it has committed. A load that began before the write
//! must not put back what it read, so each map counts the drops (its generation) and keeps a
//! loaded entry only if no drop happened since the load began.

use std::borrow::Borrow;
use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Arc, PoisonError, RwLock};

use stratus_policy::Policy;

/// How many entries one map keeps before it starts afresh: session and resource policies are
/// keyed by documents callers choose, so their maps must not grow without end.
const LIMIT: usize = 4096;

/// A map whose entries are dropped together.
pub(crate) struct Generational<K, V> {
    state: RwLock<State<K, V>>,
}

struct State<K, V> {
    generation: u64,
    entries: HashMap<K, V>,
}

impl<K, V> Default for Generational<K, V> {
    fn default() -> Self {
        Generational {
            state: RwLock::new(State {
                generation: 0,
                entries: HashMap::new(),
            }),
        }
    }
}

impl<K: Hash + Eq, V: Clone> Generational<K, V> {
    /// The entry of `key`, loaded by `load` (and kept under `owned()`) when absent.
    pub(crate) fn get_or_load<Q, E>(
        &self,
        key: &Q,
        owned: impl FnOnce() -> K,
        load: impl FnOnce() -> Result<V, E>,
    ) -> Result<V, E>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        let generation = {
            let state = self.state.read().unwrap_or_else(PoisonError::into_inner);
            if let Some(value) = state.entries.get(key) {
                return Ok(value.clone());
            }
            state.generation
        };
        let value = load()?;
        let mut state = self.state.write().unwrap_or_else(PoisonError::into_inner);
        if state.generation == generation {
            if state.entries.len() >= LIMIT {
                state.entries.clear();
            }
            state.entries.insert(owned(), value.clone());
        }
        Ok(value)
    }

    /// Drops every entry, and refuses those being loaded.
    pub(crate) fn clear(&self) {
        let mut state = self.state.write().unwrap_or_else(PoisonError::into_inner);
        state.generation += 1;
        state.entries.clear();
    }
}

/// What a user or role brings to an evaluation.
#[derive(Debug)]
pub(crate) struct Grants {
    /// Its unique id (`AIDA…`, `AROA…`): `aws:userid`, or its first half for a session.
    pub(crate) id: String,
    /// Its ARN, which a role session's `aws:PrincipalArn` names.
    pub(crate) arn: String,
    /// Its tags, the `aws:PrincipalTag/…` keys.
    pub(crate) tags: Vec<(String, String)>,
    /// Its identity policies, its groups' included.
    pub(crate) identity: Vec<Policy>,
    pub(crate) boundary: Option<Policy>,
}

/// A session's inline policy and managed policy ARNs, as it was issued with them.
pub(crate) type SessionKey = (Option<String>, Vec<String>);

/// One account's cache. `None` stands for a user or role that does not exist.
#[derive(Default)]
pub(crate) struct AccountCache {
    /// Users by ARN.
    pub(crate) users: Generational<String, Option<Arc<Grants>>>,
    /// Roles by name, as a session's ARN names them.
    pub(crate) roles: Generational<String, Option<Arc<Grants>>>,
    /// Session policies, which may name the account's managed policies.
    pub(crate) sessions: Generational<SessionKey, Arc<[Policy]>>,
}

/// The caches of every account, and of resource policies.
#[derive(Default)]
pub(crate) struct PolicyCache {
    accounts: RwLock<HashMap<String, Arc<AccountCache>>>,
    /// Resource policies by document; `None` for a document that does not parse. IAM's
    /// writes do not change them.
    pub(crate) resources: Generational<String, Option<Arc<Policy>>>,
}

impl PolicyCache {
    /// The cache of `account`, made on first use. Take it before reading the store, so that a
    /// write committing meanwhile finds it to clear.
    pub(crate) fn account(&self, account: &str) -> Arc<AccountCache> {
        if let Some(cache) = self
            .accounts
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(account)
        {
            return cache.clone();
        }
        self.accounts
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .entry(account.to_owned())
            .or_default()
            .clone()
    }

    /// Drops what is cached for `account`: call after each write to its store commits.
    pub(crate) fn written(&self, account: &str) {
        let cache = self
            .accounts
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(account)
            .cloned();
        if let Some(cache) = cache {
            cache.users.clear();
            cache.roles.clear();
            cache.sessions.clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_load_begun_before_a_clear_is_not_kept() {
        let map: Generational<String, u32> = Generational::default();
        let loaded = map.get_or_load(
            "a",
            || "a".to_owned(),
            || {
                map.clear();
                Ok::<_, ()>(1)
            },
        );
        assert_eq!(loaded, Ok(1));
        assert_eq!(map.get_or_load("a", || "a".to_owned(), || Ok::<_, ()>(2)), Ok(2));
        assert_eq!(map.get_or_load("a", || "a".to_owned(), || Ok::<_, ()>(3)), Ok(2));
        map.clear();
        assert_eq!(map.get_or_load("a", || "a".to_owned(), || Ok::<_, ()>(4)), Ok(4));
    }
}
