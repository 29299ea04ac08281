//! `smithy.api#pattern` constraints: ECMA-262 regular expressions from AWS
//! models, translated at codegen time and compiled lazily at run time.
//!
//! The code generator calls [`translate`] once per distinct pattern and emits
//! a `static` [`Pattern`] (see [`Translation::rust_expr`]); the validator
//! calls [`Pattern::is_match`], which compiles the regex on first use.
//! Matching a value again allocates nothing (the regex crate keeps a cache
//! per thread; its lazy DFA may still allocate a few states the first time it
//! meets a new kind of value), except for the rare fancy-regex patterns.
//!
//! Translation keeps ECMA-262's meaning (non-unicode mode): `\d`, `\w`, `\b`
//! are ASCII, `\s` is ECMA's white space and line terminators, `.` excludes
//! only line terminators, `$` is the very end of the input. The Java-isms the
//! models contain mean what Java gives them: `\p{L}` and other general
//! categories, POSIX classes such as `\p{Print}` (ASCII), `(?i)` (ASCII case),
//! and surrogate pair escapes `\uD800\uDC00` (one supplementary character).
//! Output is regex-crate syntax; fancy-regex only serves patterns with
//! back-references or look-arounds that could not be rewritten away.
//!
//! ```
//! use stratus_pattern::{translate, Anchoring, Engine, Pattern, Translation};
//!
//! // At codegen time.
//! let translation = translate(r"^[\w+=,.@-]+$", Anchoring::Search)?;
//! let Translation::Single { regex, engine: Engine::Regex } = &translation else { panic!() };
//! assert_eq!(regex, r"^[\+-\.0-9=@-Z_a-z]+$");
//! assert!(translation.rust_expr(r"^[\w+=,.@-]+$").starts_with("::stratus_pattern::Pattern::new("));
//!
//! // In generated code.
//! static ROLE_NAME: Pattern = Pattern::new(r"^[\w+=,.@-]+$", r"^[\+-\.0-9=@-Z_a-z]+$", Engine::Regex);
//! assert!(ROLE_NAME.is_match("service-role@x"));
//! assert!(!ROLE_NAME.is_match("a b"));
//! # Ok::<(), stratus_pattern::TranslateError>(())
//! ```
#![warn(missing_docs)]

mod ast;
mod charset;
mod emit;
mod error;
mod parse;
mod pattern;
mod plan;

pub use error::{CompileError, Reason, TranslateError};
pub use pattern::{Matcher, Pattern};
pub use plan::{translate, Anchoring, Check, Translation};

/// The engine that runs a translated regex.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Engine {
    /// The regex crate: linear time, no allocation per match.
    Regex,
    /// fancy-regex, for back-references and look-arounds: backtracking, and
    /// allocates on every match.
    Fancy,
}
