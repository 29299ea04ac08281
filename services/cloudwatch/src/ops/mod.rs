//! The operations, one function each, by area.

pub(crate) mod alarms;
pub(crate) mod dashboards;
pub(crate) mod metrics;
pub(crate) mod refused;
pub(crate) mod tags;
