//! Metric math for GetMetricData and alarms on expressions: the expression language
//! ([`parse`]), its evaluation over the request's other queries and the stored metrics
//! ([`eval`]), and `SEARCH()`'s search expressions ([`search`]).

mod eval;
mod parse;
mod search;
#[cfg(test)]
mod tests;

pub(crate) use eval::{eval, Series, Source, Val};
pub(crate) use parse::parse;
pub(crate) use search::parse as parse_search;
