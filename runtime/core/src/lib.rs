//! The Stratus runtime core: what generated service crates rest on.
//!
//! - [`schema`]: static tables describing shapes, members, operations and services;
//! - [`value`]: the protocol-neutral value model and conversions to generated types;
//! - [`validate`]: the constraint engine, answering in AWS's wording;
//! - [`arn`]: ARNs built in their region's partition, and parsed back;
//! - [`authz`]: the IAM actions, resources and condition keys each operation needs;
//! - [`error`]: AWS errors and what an operation can fail with;
//! - [`clock`] and [`scheduler`]: the time services read, and the one thread that runs
//!   deadlines and periodic sweeps;
//! - [`service`]: the type-erased service handler the gateway dispatches to, and what
//!   services offer beyond their operations (messages between services, CORS rules).
//!
//! It has no async runtime, HTTP or storage in its dependency tree, so any tool can use a
//! generated crate's types and validators on their own.
#![warn(missing_docs)]

pub mod access_key;
pub mod arn;
pub mod authz;
pub mod calendar;
pub mod clock;
pub mod context;
pub mod error;
pub mod hex;
pub mod id;
pub mod json;
pub mod paging;
pub mod prelude_shapes;
pub mod scheduler;
pub mod schema;
pub mod service;
pub mod tags;
pub mod urlencoded;
pub mod validate;
pub mod value;

pub use clock::Clock;
pub use context::{
    AnswerHeaders, BodyReader, ChunkSignatures, PayloadFraming, Principal, PrincipalKind, RequestContext, Streams,
};
pub use error::{AwsError, OperationError};
pub use prelude_shapes::Unit;
pub use stratus_pattern as pattern;
pub use value::{ConvertError, DateTime, Document, Fields, FromValue, IntoValue, StructBuilder, Value};
