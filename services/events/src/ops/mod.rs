//! The operations, one function each, by area.

pub(crate) mod archives;
pub(crate) mod buses;
pub(crate) mod connections;
pub(crate) mod events;
pub(crate) mod refused;
pub(crate) mod rules;
pub(crate) mod tags;
pub(crate) mod targets;
