//! Logs Insights: a subset of its query language, parsed ([`Query::parse`]) and run over a
//! group's events ([`Query::run`]) without a server.
//!
//! Commands, joined by `|`: `fields a, b`, `display a, b`, `filter <condition>` (`=`, `!=`,
//! `<`, `<=`, `>`, `>=`, `like "text"` or `like /regex/`, `=~ /regex/`, `and`, `or`, `not`,
//! parentheses), `parse @message "glob * with * stars" as x, y`, `stats count(*)`, `count(f)`,
//! `sum`, `avg`, `min`, `max` (`as alias`) `by f, bin(5m)`, `sort f [asc|desc], …`,
//! `limit n`, `dedup a, b`. Fields are the `@timestamp`, `@message`, `@logStream`, `@log` and
//! `@ingestionTime` of each event and, for JSON messages, their members (nested ones as
//! `a.b`).

mod parse;
mod run;
#[cfg(test)]
mod tests;

pub(crate) use self::run::Event;

/// A parsed query.
#[derive(Debug, Clone)]
pub(crate) struct Query {
    pub(crate) commands: Vec<Command>,
}

#[derive(Debug, Clone)]
pub(crate) enum Command {
    Fields(Vec<String>),
    Display(Vec<String>),
    Filter(Condition),
    Parse {
        source: String,
        glob: String,
        names: Vec<String>,
    },
    Stats {
        aggregates: Vec<Aggregate>,
        by: Vec<GroupKey>,
    },
    Sort(Vec<(String, bool)>),
    Limit(usize),
    Dedup(Vec<String>),
}

#[derive(Debug, Clone)]
pub(crate) enum Condition {
    Compare(String, CmpOp, Literal),
    Like(String, Matcher),
    And(Box<Condition>, Box<Condition>),
    Or(Box<Condition>, Box<Condition>),
    Not(Box<Condition>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

#[derive(Debug, Clone)]
pub(crate) enum Literal {
    Text(String),
    Number(f64),
}

#[derive(Debug, Clone)]
pub(crate) enum Matcher {
    Substring(String),
    Regex(regex::Regex),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Function {
    Count,
    Sum,
    Avg,
    Min,
    Max,
}

#[derive(Debug, Clone)]
pub(crate) struct Aggregate {
    pub(crate) function: Function,
    /// `None` for `count(*)`.
    pub(crate) field: Option<String>,
    /// The result's column: the alias, or the call as written (`count(*)`).
    pub(crate) name: String,
}

#[derive(Debug, Clone)]
pub(crate) enum GroupKey {
    Field(String),
    /// `bin(period)`, in milliseconds, over `@timestamp`.
    Bin {
        millis: i64,
        name: String,
    },
}
