//! AWS IAM's policy language: policy documents parsed and validated as IAM does, and requests
//! evaluated against them with AWS's logic. A pure library: no I/O, no clock (the time of a
//! request is a value the caller passes in).
//!
//! # Parsing
//!
//! [`Policy::parse`] reads a JSON policy document for a [`PolicyKind`]: identity policies
//! (also permissions boundaries and session policies) must not name a `Principal`; resource
//! policies must; trust policies must, and name no `Resource`. A refused document gives a
//! [`PolicyError`] whose text is the message IAM returns with `MalformedPolicyDocument`.
//! Size limits are the caller's (IAM's differ by kind of policy).
//!
//! # Evaluating
//!
//! A [`Request`] is who asks ([`Principal`]), for which action and resources, and the
//! condition context (principal tags, source IP, time, any service-specific keys). A
//! [`PolicySet`] holds the policies that apply. [`evaluate`] returns a [`Decision`], and
//! [`Decision::message`] words a refusal as AWS's AccessDenied message does.
//!
//! ```
//! use std::time::{Duration, UNIX_EPOCH};
//! use stratus_policy::{evaluate, Decision, Policy, PolicyKind, PolicySet, PolicyType, Principal, Request};
//!
//! let send = Policy::parse(
//!     r#"{
//!         "Version": "2012-10-17",
//!         "Statement": {
//!             "Effect": "Allow",
//!             "Action": "sqs:Send*",
//!             "Resource": "arn:aws:sqs:us-east-1:123456789012:${aws:username}-*",
//!             "Condition": {"IpAddress": {"aws:SourceIp": "10.0.0.0/8"}}
//!         }
//!     }"#,
//!     PolicyKind::Identity,
//! )?;
//! let policies = PolicySet { identity: vec![&send], ..PolicySet::default() };
//!
//! let alice = Principal::parse("arn:aws:iam::123456789012:user/alice").unwrap();
//! let request = |queue: &str| {
//!     Request::new(alice.clone(), "sqs:SendMessage", [queue])
//!         .from_ip("10.1.2.3".parse().unwrap())
//!         .at(UNIX_EPOCH + Duration::from_secs(1_700_000_000))
//! };
//!
//! let own = request("arn:aws:sqs:us-east-1:123456789012:alice-jobs");
//! assert_eq!(evaluate(&own, &policies), Decision::Allow);
//!
//! let other = request("arn:aws:sqs:us-east-1:123456789012:q");
//! let decision = evaluate(&other, &policies);
//! assert_eq!(decision, Decision::ImplicitDeny { missing: PolicyType::IdentityBased, resource: 0 });
//! assert_eq!(
//!     decision.message(&other).unwrap(),
//!     "User: arn:aws:iam::123456789012:user/alice is not authorized to perform: sqs:SendMessage \
//!      on resource: arn:aws:sqs:us-east-1:123456789012:q because no identity-based policy \
//!      allows the sqs:SendMessage action"
//! );
//!
//! // IAM's own wording for a refused document.
//! let err = Policy::parse(r#"{"Statement": {"Effect": "Allow", "Action": "SendMessage", "Resource": "*"}}"#, PolicyKind::Identity);
//! assert_eq!(err.unwrap_err().to_string(), "Actions/Conditions must be prefaced by a vendor, e.g., iam, sdb, ec2, etc.");
//! # Ok::<(), stratus_policy::PolicyError>(())
//! ```
//!
//! # Matching
//!
//! Actions match case-insensitively with `*` and `?`; resource ARNs case-sensitively, each of
//! an ARN's six colon-separated segments on its own. Policy variables (`${aws:username}`,
//! `${aws:PrincipalTag/team}`, `${*}`, `${key, 'default'}`) are filled in from the request's
//! context in `Resource` and in string, ARN and `Bool` condition values; a variable with no value
//! makes its pattern match nothing.
#![warn(missing_docs, unreachable_pub)]

mod condition;
mod context;
mod dates;
mod document;
mod error;
mod evaluate;
mod json;
mod principal;
mod variables;
mod wildcard;

pub use context::{IamKind, IamPrincipal, Principal, Request};
pub use document::{Effect, Policy, PolicyKind, Statement, Version};
pub use error::PolicyError;
pub use evaluate::{access_denied_message, evaluate, Decision, PolicySet, PolicyType};
