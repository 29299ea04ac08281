//! Integration tests of `stratus-storage`, in one binary.

mod behaviour;
mod common;
mod crash;
mod disk;
mod model;
mod tuple;
