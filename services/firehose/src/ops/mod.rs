//! The operations, one function each, by area.

pub(crate) mod encryption;
pub(crate) mod records;
pub(crate) mod streams;
pub(crate) mod tags;
pub(crate) mod update;
