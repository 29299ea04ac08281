//! The lookups routing makes, built once from the services' schemas: services by shape name
//! and by SigV4 signing name, the Query services (per signing name too) and the REST services
//! in registration order, and per REST service the first path segments its routes start with.
//! Names are found by binary search in sorted vectors: a couple of dozen services need no
//! hashing.

use std::sync::OnceLock;

use stratus_core::schema::{PathSegment, Protocol, Service};

/// What routing looks up, by index into the gateway's services (registration order).
pub(crate) struct Tables {
    /// Service shape name (what `X-Amz-Target` prefixes and rpcv2 paths name) → service.
    pub by_shape_name: Index<usize>,
    /// SigV4 signing name → the services signed with it, in registration order.
    pub by_signing_name: Index<Vec<usize>>,
    /// SigV4 signing name → those of its services that speak Query.
    pub query_by_signing_name: Index<Vec<usize>>,
    /// Every service that speaks Query, in registration order: the candidates of an unsigned
    /// request's `Action`.
    pub query: Vec<usize>,
    /// Every REST service, in registration order: the precedence of an unsigned REST request.
    pub rest: Vec<usize>,
    /// Per service: the first path segments of its REST routes, read from the schema when the
    /// service is first asked (most requests never read most services' routes).
    first_segments: Vec<OnceLock<FirstSegments>>,
}

impl Tables {
    pub(crate) fn new(schemas: &[&'static Service]) -> Tables {
        let indices = |pred: &dyn Fn(&Service) -> bool| -> Vec<usize> {
            (0..schemas.len()).filter(|&i| pred(schemas[i])).collect()
        };
        let speaks_query = |schema: &Service| schema.protocols.contains(&Protocol::AwsQuery);
        let by_signing_name = |pred: &dyn Fn(&Service) -> bool| {
            Index::grouped(
                (0..schemas.len())
                    .filter(|&i| pred(schemas[i]))
                    .map(|i| (schemas[i].signing_name, i)),
            )
        };
        Tables {
            by_shape_name: Index::unique(schemas.iter().enumerate().map(|(i, s)| (s.shape_name, i))),
            by_signing_name: by_signing_name(&|_| true),
            query_by_signing_name: by_signing_name(&speaks_query),
            query: indices(&speaks_query),
            rest: indices(&|schema| rest_protocol(schema).is_some()),
            first_segments: schemas.iter().map(|_| OnceLock::new()).collect(),
        }
    }

    /// The first path segments of the REST routes of service `i` (of `schemas`, the ones the
    /// tables were built from).
    pub(crate) fn first_segments(&self, i: usize, schemas: &[&'static Service]) -> &FirstSegments {
        self.first_segments[i].get_or_init(|| FirstSegments::of(schemas[i]))
    }
}

/// The REST protocol a service speaks, if it speaks one.
pub(crate) fn rest_protocol(schema: &Service) -> Option<Protocol> {
    schema
        .protocols
        .iter()
        .copied()
        .find(|p| matches!(p, Protocol::RestJson1 | Protocol::RestXml))
}

/// The first path segments a service's REST routes start with, by method: what lets routing
/// pass over a service none of whose routes can match a path without trying each route.
pub(crate) struct FirstSegments {
    /// (method, first segment), sorted: `Some("")` for the root path, `None` for a label.
    entries: Vec<(&'static str, Option<&'static str>)>,
}

impl FirstSegments {
    fn of(schema: &Service) -> FirstSegments {
        let mut entries: Vec<_> = schema
            .operations
            .iter()
            .filter_map(|op| op.http.as_ref())
            .map(|route| {
                let first = match route.path.first() {
                    None => Some(""),
                    Some(PathSegment::Literal(literal)) => Some(*literal),
                    Some(PathSegment::Label(_) | PathSegment::Greedy(_)) => None,
                };
                (route.method, first)
            })
            .collect();
        entries.sort_unstable();
        entries.dedup();
        FirstSegments { entries }
    }

    /// Whether a route may match a `method` request whose path starts with `segment` (as sent:
    /// a percent-encoded segment, which routes compare decoded, is always admitted).
    pub(crate) fn admit(&self, method: &str, segment: &str) -> bool {
        segment.contains('%')
            || self.entries.iter().any(|&(m, first)| {
                m == method
                    && match first {
                        Some(literal) => literal == segment,
                        None => !segment.is_empty(),
                    }
            })
    }
}

/// A table from names to values, sorted once so that a lookup is a binary search.
pub(crate) struct Index<V> {
    entries: Vec<(&'static str, V)>,
}

impl<V> Index<V> {
    pub(crate) fn get(&self, name: &str) -> Option<&V> {
        let i = self.entries.binary_search_by(|(k, _)| (*k).cmp(name)).ok()?;
        Some(&self.entries[i].1)
    }
}

impl Index<usize> {
    /// One value per name; of two with the same name, the first.
    fn unique(pairs: impl Iterator<Item = (&'static str, usize)>) -> Index<usize> {
        let mut entries: Vec<_> = pairs.collect();
        entries.sort_by_key(|(name, i)| (*name, *i));
        entries.dedup_by_key(|(name, _)| *name);
        Index { entries }
    }
}

impl Index<Vec<usize>> {
    /// Every value of each name, in the order given.
    fn grouped(pairs: impl Iterator<Item = (&'static str, usize)>) -> Index<Vec<usize>> {
        let mut entries: Vec<(&'static str, Vec<usize>)> = Vec::new();
        for (name, i) in pairs {
            match entries.iter_mut().find(|(k, _)| *k == name) {
                Some((_, group)) => group.push(i),
                None => entries.push((name, vec![i])),
            }
        }
        entries.sort_by_key(|(name, _)| *name);
        Index { entries }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_segments_admit_what_a_route_may_match() {
        let segments = FirstSegments {
            entries: vec![("GET", None), ("GET", Some("")), ("PUT", Some("restapis"))],
        };
        assert!(segments.admit("GET", "any-bucket"));
        assert!(segments.admit("GET", ""));
        assert!(segments.admit("PUT", "restapis"));
        assert!(!segments.admit("PUT", "restapi"));
        assert!(!segments.admit("PUT", ""));
        assert!(!segments.admit("DELETE", "restapis"));
        // Routes compare a percent-encoded segment decoded: left to them.
        assert!(segments.admit("PUT", "rest%61pis"));
    }

    #[test]
    fn indexes_find_by_name() {
        let unique = Index::unique([("b", 0), ("a", 1), ("b", 2)].into_iter());
        assert_eq!(
            (unique.get("a"), unique.get("b"), unique.get("c")),
            (Some(&1), Some(&0), None)
        );
        let grouped = Index::grouped([("ses", 3), ("sts", 1), ("ses", 2)].into_iter());
        assert_eq!(grouped.get("ses"), Some(&vec![3, 2]));
        assert_eq!(grouped.get("sqs"), None);
    }
}
