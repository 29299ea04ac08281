//! The operations, by what they act on: each a plain function of the service, the
//! request context and the typed input.

pub(crate) mod messages;
pub(crate) mod move_tasks;
pub(crate) mod permissions;
pub(crate) mod queues;
pub(crate) mod tags;
