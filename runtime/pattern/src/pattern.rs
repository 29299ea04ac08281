//! Compiled patterns: [`Matcher`], and [`Pattern`], the lazily compiled
//! `static` that generated code declares.

use crate::error::CompileError;
use crate::plan::{Check, Translation};
use crate::Engine;
use std::fmt;
use std::sync::OnceLock;

/// A translated pattern compiled and ready to match.
#[derive(Debug)]
pub struct Matcher(Compiled);

#[derive(Debug)]
enum Compiled {
    Regex(regex::Regex),
    Fancy(fancy_regex::Regex),
    AnyOf(Vec<Vec<Test>>),
}

#[derive(Debug)]
enum Test {
    Matches(regex::Regex),
    Rejects(regex::Regex),
    CharCount { min: u32, max: Option<u32> },
}

impl Matcher {
    fn single(regex: &str, engine: Engine) -> Result<Self, CompileError> {
        Ok(Self(match engine {
            Engine::Regex => Compiled::Regex(compile(regex)?),
            Engine::Fancy => Compiled::Fancy(fancy_regex::Regex::new(regex).map_err(|source| CompileError::Fancy {
                regex: regex.to_owned(),
                source: Box::new(source),
            })?),
        }))
    }

    fn any_of<'a, C>(clauses: impl IntoIterator<Item = C>) -> Result<Self, CompileError>
    where
        C: IntoIterator<Item = Check<&'a str>>,
    {
        let test = |check| {
            Ok(match check {
                Check::Matches(regex) => Test::Matches(compile(regex)?),
                Check::Rejects(regex) => Test::Rejects(compile(regex)?),
                Check::CharCount { min, max } => Test::CharCount { min, max },
            })
        };
        let clauses = clauses
            .into_iter()
            .map(|clause| clause.into_iter().map(test).collect())
            .collect::<Result<_, _>>()?;
        Ok(Self(Compiled::AnyOf(clauses)))
    }

    /// Whether `value` satisfies the pattern. With the regex crate this
    /// allocates nothing once the thread's cache has seen such a value (its
    /// lazy DFA adds states as it meets new ones); fancy-regex allocates on
    /// every call. Should fancy-regex give up (its backtracking limit), the
    /// value is accepted: a validator must never reject valid input.
    pub fn is_match(&self, value: &str) -> bool {
        match &self.0 {
            Compiled::Regex(regex) => regex.is_match(value),
            Compiled::Fancy(regex) => regex.is_match(value).unwrap_or(true),
            Compiled::AnyOf(clauses) => clauses.iter().any(|clause| {
                clause.iter().all(|test| match test {
                    Test::Matches(regex) => regex.is_match(value),
                    Test::Rejects(regex) => !regex.is_match(value),
                    Test::CharCount { min, max } => {
                        let count = value.chars().count();
                        count >= *min as usize && max.is_none_or(|max| count <= max as usize)
                    }
                })
            }),
        }
    }
}

fn compile(regex: &str) -> Result<regex::Regex, CompileError> {
    regex::Regex::new(regex).map_err(|source| CompileError::Regex {
        regex: regex.to_owned(),
        source,
    })
}

impl Translation {
    /// Compiles the translation, as [`Pattern`] does on first use; code
    /// generators call it to prove that the output compiles.
    ///
    /// # Errors
    ///
    /// When an engine refuses a regex, which is a bug of this crate.
    pub fn compile(&self) -> Result<Matcher, CompileError> {
        match self {
            Translation::Single { regex, engine } => Matcher::single(regex, *engine),
            Translation::AnyOf(clauses) => {
                Matcher::any_of(clauses.iter().map(|clause| clause.iter().map(Check::as_deref)))
            }
        }
    }
}

/// A pattern constraint of a generated model: the original ECMA-262 text and
/// its translation, compiled on the first [`is_match`](Self::is_match).
///
/// ```
/// use stratus_pattern::{Check, Engine, Pattern};
///
/// static NAME: Pattern = Pattern::new("^[a-z]+$", "^[a-z]+$", Engine::Regex);
/// static TAG: Pattern = Pattern::any_of("^(?!aws:).*$", &[&[Check::Matches("^.*$"), Check::Rejects("^aws:")]]);
///
/// assert!(NAME.is_match("abc"));
/// assert!(!TAG.is_match("aws:x"));
/// assert_eq!(TAG.source(), "^(?!aws:).*$");
/// ```
pub struct Pattern {
    source: &'static str,
    plan: Plan,
    matcher: OnceLock<Option<Matcher>>,
}

#[derive(Debug)]
enum Plan {
    Single(&'static str, Engine),
    AnyOf(&'static [&'static [Check]]),
}

impl Pattern {
    /// A pattern decided by one regex, from [`Translation::Single`].
    pub const fn new(source: &'static str, regex: &'static str, engine: Engine) -> Self {
        Self {
            source,
            plan: Plan::Single(regex, engine),
            matcher: OnceLock::new(),
        }
    }

    /// A pattern decided by checks, from [`Translation::AnyOf`].
    pub const fn any_of(source: &'static str, clauses: &'static [&'static [Check]]) -> Self {
        Self {
            source,
            plan: Plan::AnyOf(clauses),
            matcher: OnceLock::new(),
        }
    }

    /// The ECMA-262 text from the model, as AWS quotes it in validation
    /// errors ("Member must satisfy regular expression pattern: …").
    pub const fn source(&self) -> &'static str {
        self.source
    }

    /// Whether `value` satisfies the pattern, compiling it first if this is
    /// the first call. If it does not compile (a bug: the test suite compiles
    /// every pattern of the models) every value is accepted, because a
    /// validator must never reject valid input; [`compile_check`]
    /// (Self::compile_check) reports such failures.
    pub fn is_match(&self, value: &str) -> bool {
        match self.matcher.get_or_init(|| self.compile().ok()) {
            Some(matcher) => matcher.is_match(value),
            None => true,
        }
    }

    /// Compiles the pattern afresh and reports whether that worked.
    ///
    /// # Errors
    ///
    /// The engine's error for the regex it refused.
    pub fn compile_check(&self) -> Result<(), CompileError> {
        self.compile().map(drop)
    }

    fn compile(&self) -> Result<Matcher, CompileError> {
        match self.plan {
            Plan::Single(regex, engine) => Matcher::single(regex, engine),
            Plan::AnyOf(clauses) => Matcher::any_of(clauses.iter().map(|clause| clause.iter().copied())),
        }
    }
}

impl fmt::Debug for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Pattern")
            .field("source", &self.source)
            .field("plan", &self.plan)
            .field("compiled", &self.matcher.get().is_some())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static BROKEN: Pattern = Pattern::new("(", "(", Engine::Regex);
    static BROKEN_FANCY: Pattern = Pattern::new("(", "(?<!a+)", Engine::Fancy);
    static LENGTH: Pattern = Pattern::any_of(
        "^.{2,3}$|^x$",
        &[
            &[Check::CharCount { min: 2, max: Some(3) }, Check::Matches("^.*$")],
            &[Check::Matches("^x$")],
        ],
    );

    #[test]
    fn compile_failure_accepts_and_is_reported() {
        assert!(BROKEN.is_match("anything"));
        assert!(matches!(BROKEN.compile_check(), Err(CompileError::Regex { .. })));
        assert!(BROKEN_FANCY.is_match("anything"));
        let err = BROKEN_FANCY.compile_check().unwrap_err();
        assert!(
            err.to_string().starts_with("fancy-regex \"(?<!a+)\" does not compile"),
            "{err}"
        );
    }

    #[test]
    fn clauses() {
        assert!(LENGTH.compile_check().is_ok());
        assert!(!LENGTH.is_match("é"));
        assert!(LENGTH.is_match("éé"));
        assert!(LENGTH.is_match("ééé"));
        assert!(!LENGTH.is_match("éééé"));
        assert!(LENGTH.is_match("x"));
    }

    #[test]
    fn fancy_matcher() {
        let matcher = Matcher::single(r"a(?!b)", Engine::Fancy).unwrap();
        assert!(matcher.is_match("ac"));
        assert!(!matcher.is_match("ab"));
    }

    #[test]
    fn debug_shows_source_and_state() {
        let pattern = Pattern::new("^a$", "^a$", Engine::Regex);
        assert!(format!("{pattern:?}").ends_with("compiled: false }"));
        pattern.is_match("a");
        assert!(format!("{pattern:?}").ends_with("compiled: true }"));
    }
}
