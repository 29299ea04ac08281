//! The operations, one function each, by what they act on.

pub(crate) mod deliveries;
pub(crate) mod events;
pub(crate) mod filters;
pub(crate) mod groups;
pub(crate) mod others;
pub(crate) mod queries;
pub(crate) mod refused;
pub(crate) mod streams;
pub(crate) mod tags;
