//! Errors of translation (codegen time) and compilation (first use).

/// A pattern that cannot be translated: invalid ECMA-262, or a construct
/// whose meaning is unclear or unsupported.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot translate pattern {pattern:?} at byte {offset}: {reason}")]
pub struct TranslateError {
    /// The ECMA-262 source of the pattern.
    pub pattern: String,
    /// Byte offset in `pattern` where the problem was found.
    pub offset: usize,
    /// What is wrong.
    pub reason: Reason,
}

/// Why a pattern cannot be translated.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Reason {
    /// The pattern ends inside an escape, class, group or quantifier.
    #[error("unexpected end of pattern")]
    UnexpectedEnd,
    /// A `)` closes no group.
    #[error("unmatched ')'")]
    UnmatchedParen,
    /// A quantifier follows nothing that can be repeated.
    #[error("nothing to repeat")]
    NothingToRepeat,
    /// `{n,m}` with `n > m`, or a number too large.
    #[error("invalid repetition count")]
    BadCount,
    /// `[z-a]`.
    #[error("range out of order in character class")]
    RangeOutOfOrder,
    /// `\N` or `\k<name>` names no group.
    #[error("back-reference to a group that does not exist")]
    UnknownGroup,
    /// `\p{…}` with a name that is neither a Unicode general category nor a
    /// Java POSIX class.
    #[error("unknown property \\p{{{0}}}")]
    UnknownProperty(String),
    /// Syntax that ECMA-262 and Java read differently, which the models do
    /// not use, so no side was chosen.
    #[error("{0:?} means different things in ECMA-262 and Java")]
    Ambiguous(String),
    /// Valid syntax this translator does not implement.
    #[error("unsupported: {0}")]
    Unsupported(&'static str),
}

/// A translated regular expression that the engine refused. The test suite
/// compiles every pattern of the models, so this signals a bug.
#[derive(Debug, thiserror::Error)]
pub enum CompileError {
    /// Refused by the regex crate.
    #[error("regex {regex:?} does not compile: {source}")]
    Regex {
        /// The translated regular expression.
        regex: String,
        /// The engine's error.
        source: regex::Error,
    },
    /// Refused by fancy-regex.
    #[error("fancy-regex {regex:?} does not compile: {source}")]
    Fancy {
        /// The translated regular expression.
        regex: String,
        /// The engine's error.
        source: Box<fancy_regex::Error>,
    },
}
