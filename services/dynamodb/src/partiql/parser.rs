//! PartiQL statements for DynamoDB: `SELECT`, `INSERT`, `UPDATE` and `DELETE`, with `?`
//! parameters replaced by the request's values as they are read.

use std::collections::BTreeMap;

use super::lexer::{tokens, Tok};
use super::{malformed, PartiqlError};
use crate::AttributeValue;

#[derive(Debug, Clone, PartialEq)]
pub enum Segment {
    Name(String),
    Index(u32),
}

/// A document path: `a.b[2]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Path(pub Vec<Segment>);

impl Path {
    /// The attribute name when the path is one.
    pub fn attribute(&self) -> Option<&str> {
        match self.0.as_slice() {
            [Segment::Name(name)] => Some(name),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Operand {
    Path(Path),
    Value(AttributeValue),
    Arith(char, Box<Operand>, Box<Operand>),
    Call(String, Vec<Operand>),
}

#[derive(Debug, Clone, PartialEq)]
pub enum Cond {
    And(Box<Cond>, Box<Cond>),
    Or(Box<Cond>, Box<Cond>),
    Not(Box<Cond>),
    Compare(&'static str, Operand, Operand),
    Between(Operand, Operand, Operand),
    In(Operand, Vec<Operand>),
    /// `path IS MISSING` (`true`) or `IS NOT MISSING`.
    Missing(Path, bool),
    Call(String, Vec<Operand>),
}

#[derive(Debug, Clone, PartialEq)]
pub enum Change {
    Set(Path, Operand),
    Remove(Path),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Returning {
    AllOld,
    ModifiedOld,
    AllNew,
    ModifiedNew,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Target {
    pub table: String,
    pub index: Option<String>,
}

/// One `ORDER BY` term: a key attribute and whether it sorts descending.
#[derive(Debug, Clone, PartialEq)]
pub struct Order {
    pub attribute: String,
    pub descending: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Statement {
    Select {
        /// `None` for `*`.
        projection: Option<Vec<Path>>,
        target: Target,
        filter: Option<Cond>,
        order: Vec<Order>,
    },
    /// `EXISTS(SELECT ... WHERE <full key> AND ...)`: a transaction's condition check.
    Exists { target: Target, filter: Option<Cond> },
    Insert {
        target: Target,
        item: BTreeMap<String, AttributeValue>,
    },
    Update {
        target: Target,
        changes: Vec<Change>,
        filter: Option<Cond>,
        returning: Option<Returning>,
    },
    Delete {
        target: Target,
        filter: Option<Cond>,
        returning: Option<Returning>,
    },
}

impl Statement {
    pub fn target(&self) -> &Target {
        match self {
            Statement::Select { target, .. }
            | Statement::Exists { target, .. }
            | Statement::Insert { target, .. }
            | Statement::Update { target, .. }
            | Statement::Delete { target, .. } => target,
        }
    }

    pub fn is_read(&self) -> bool {
        matches!(self, Statement::Select { .. })
    }
}

/// AWS's answer when the statement has more `?` than the request has parameters (extra
/// parameters are ignored, as DynamoDB Local's recorded answers show).
pub const PARAMETER_COUNT: &str = "Number of parameters in request and statement don't match.";

/// Parses `text`, taking the `?` parameters from `parameters` in order.
pub fn parse(text: &str, parameters: &[AttributeValue]) -> Result<Statement, PartiqlError> {
    let toks = tokens(text)?;
    let mut parser = Parser {
        toks,
        at: 0,
        parameters,
        used: 0,
        depth: 0,
    };
    let statement = parser.statement()?;
    if parser.at < parser.toks.len() {
        return Err(malformed("Unexpected token after expression"));
    }
    Ok(statement)
}

/// What a `SELECT` says, alone or inside `EXISTS(...)`.
struct SelectClauses {
    projection: Option<Vec<Path>>,
    target: Target,
    filter: Option<Cond>,
    order: Vec<Order>,
}

struct Parser<'p> {
    toks: Vec<Tok>,
    at: usize,
    parameters: &'p [AttributeValue],
    used: usize,
    /// How deeply nested the parser is, bounded so hostile input cannot exhaust the stack.
    depth: usize,
}

/// The deepest nesting of parentheses, documents and `NOT`s accepted.
const MAX_DEPTH: usize = 64;

impl Parser<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.at)
    }

    fn peek_word(&self, keyword: &str) -> bool {
        self.peek().is_some_and(|t| t.is_word(keyword))
    }

    fn peek_sym(&self, symbol: &str) -> bool {
        matches!(self.peek(), Some(Tok::Sym(s)) if *s == symbol)
    }

    fn eat_word(&mut self, keyword: &str) -> bool {
        let found = self.peek_word(keyword);
        self.at += usize::from(found);
        found
    }

    fn eat_sym(&mut self, symbol: &str) -> bool {
        let found = self.peek_sym(symbol);
        self.at += usize::from(found);
        found
    }

    fn expect_word(&mut self, keyword: &str) -> Result<(), PartiqlError> {
        if self.eat_word(keyword) {
            Ok(())
        } else {
            Err(malformed(format!("Expected {}", keyword.to_ascii_uppercase())))
        }
    }

    fn expect_sym(&mut self, symbol: &str) -> Result<(), PartiqlError> {
        if self.eat_sym(symbol) {
            Ok(())
        } else {
            Err(malformed(format!("Expected {symbol}")))
        }
    }

    fn statement(&mut self) -> Result<Statement, PartiqlError> {
        if self.eat_word("select") {
            let select = self.select()?;
            Ok(Statement::Select {
                projection: select.projection,
                target: select.target,
                filter: select.filter,
                order: select.order,
            })
        } else if self.eat_word("exists") {
            self.expect_sym("(")?;
            self.expect_word("select")?;
            let select = self.select()?;
            self.expect_sym(")")?;
            Ok(Statement::Exists {
                target: select.target,
                filter: select.filter,
            })
        } else if self.eat_word("insert") {
            self.expect_word("into")?;
            let target = self.target()?;
            self.expect_word("value")?;
            let AttributeValue::M(item) = self.literal()? else {
                return Err(malformed("Expected a tuple in VALUE"));
            };
            Ok(Statement::Insert { target, item })
        } else if self.eat_word("update") {
            let target = self.target()?;
            let mut changes = Vec::new();
            loop {
                if self.eat_word("set") {
                    loop {
                        let path = self.path()?;
                        self.expect_sym("=")?;
                        changes.push(Change::Set(path, self.operand()?));
                        if !self.eat_sym(",") {
                            break;
                        }
                    }
                } else if self.eat_word("remove") {
                    loop {
                        changes.push(Change::Remove(self.path()?));
                        if !self.eat_sym(",") {
                            break;
                        }
                    }
                } else {
                    break;
                }
            }
            if changes.is_empty() {
                return Err(malformed("Expected SET or REMOVE"));
            }
            let filter = self.filter()?;
            let returning = self.returning()?;
            Ok(Statement::Update {
                target,
                changes,
                filter,
                returning,
            })
        } else if self.eat_word("delete") {
            self.expect_word("from")?;
            let target = self.target()?;
            let filter = self.filter()?;
            let returning = self.returning()?;
            Ok(Statement::Delete {
                target,
                filter,
                returning,
            })
        } else {
            Err(malformed("Expected data manipulation"))
        }
    }

    /// The rest of a `SELECT` statement, after its keyword.
    fn select(&mut self) -> Result<SelectClauses, PartiqlError> {
        let projection = if self.eat_sym("*") {
            None
        } else {
            let mut paths = vec![self.path()?];
            while self.eat_sym(",") {
                paths.push(self.path()?);
            }
            Some(paths)
        };
        self.expect_word("from")?;
        let target = self.target()?;
        let filter = self.filter()?;
        let mut order = Vec::new();
        if self.eat_word("order") {
            self.expect_word("by")?;
            loop {
                let attribute = self.name()?;
                let descending = self.eat_word("desc");
                if !descending {
                    self.eat_word("asc");
                }
                order.push(Order { attribute, descending });
                if !self.eat_sym(",") {
                    break;
                }
            }
        }
        Ok(SelectClauses {
            projection,
            target,
            filter,
            order,
        })
    }

    fn name(&mut self) -> Result<String, PartiqlError> {
        match self.peek() {
            Some(Tok::Word(w)) | Some(Tok::Quoted(w)) => {
                let w = w.clone();
                self.at += 1;
                Ok(w)
            }
            _ => Err(malformed("Expected identifier for simple path")),
        }
    }

    fn target(&mut self) -> Result<Target, PartiqlError> {
        if self.peek().is_none() {
            return Err(malformed("Unexpected term"));
        }
        let table = self.name()?;
        let index = if self.eat_sym(".") { Some(self.name()?) } else { None };
        if self.peek_sym(".") {
            return Err(PartiqlError::Validation(
                "A path may contain at most 2 components in the FROM clause".into(),
            ));
        }
        if table.is_empty() || index.as_ref().is_some_and(String::is_empty) {
            return Err(PartiqlError::Validation(
                "Path component cannot be an empty string".into(),
            ));
        }
        Ok(Target { table, index })
    }

    fn filter(&mut self) -> Result<Option<Cond>, PartiqlError> {
        if self.eat_word("where") {
            Ok(Some(self.or()?))
        } else {
            Ok(None)
        }
    }

    fn returning(&mut self) -> Result<Option<Returning>, PartiqlError> {
        if !self.eat_word("returning") {
            return Ok(None);
        }
        let all = if self.eat_word("all") {
            true
        } else if self.eat_word("modified") {
            false
        } else {
            return Err(malformed("Expected ALL or MODIFIED"));
        };
        let old = if self.eat_word("old") {
            true
        } else if self.eat_word("new") {
            false
        } else {
            return Err(malformed("Expected OLD or NEW"));
        };
        self.expect_sym("*")?;
        Ok(Some(match (all, old) {
            (true, true) => Returning::AllOld,
            (false, true) => Returning::ModifiedOld,
            (true, false) => Returning::AllNew,
            (false, false) => Returning::ModifiedNew,
        }))
    }

    fn path(&mut self) -> Result<Path, PartiqlError> {
        let mut segments = vec![Segment::Name(self.name()?)];
        loop {
            if self.eat_sym(".") {
                segments.push(Segment::Name(self.name()?));
            } else if self.eat_sym("[") {
                let index = match self.peek() {
                    Some(Tok::Num(n)) => n.parse::<u32>().map_err(|_| malformed("Expected a list index"))?,
                    _ => return Err(malformed("Expected a list index")),
                };
                self.at += 1;
                self.expect_sym("]")?;
                segments.push(Segment::Index(index));
            } else {
                return Ok(Path(segments));
            }
        }
    }

    fn or(&mut self) -> Result<Cond, PartiqlError> {
        let mut left = self.and()?;
        while self.eat_word("or") {
            left = Cond::Or(Box::new(left), Box::new(self.and()?));
        }
        Ok(left)
    }

    fn and(&mut self) -> Result<Cond, PartiqlError> {
        let mut left = self.not()?;
        while self.eat_word("and") {
            left = Cond::And(Box::new(left), Box::new(self.not()?));
        }
        Ok(left)
    }

    fn nested<T>(&mut self, body: impl FnOnce(&mut Self) -> Result<T, PartiqlError>) -> Result<T, PartiqlError> {
        if self.depth >= MAX_DEPTH {
            return Err(malformed("Statement is nested too deeply"));
        }
        self.depth += 1;
        let result = body(self);
        self.depth -= 1;
        result
    }

    fn not(&mut self) -> Result<Cond, PartiqlError> {
        if self.eat_word("not") {
            return self.nested(|p| Ok(Cond::Not(Box::new(p.not()?))));
        }
        self.nested(Self::predicate)
    }

    fn predicate(&mut self) -> Result<Cond, PartiqlError> {
        if self.eat_sym("(") {
            let inner = self.or()?;
            self.expect_sym(")")?;
            return Ok(inner);
        }
        let left = self.operand()?;
        if let Operand::Call(name, args) = &left {
            if !self
                .peek()
                .is_some_and(|t| matches!(t, Tok::Sym(_)) || t.is_word("between") || t.is_word("in"))
            {
                return Ok(Cond::Call(name.clone(), args.clone()));
            }
        }
        if self.eat_word("is") {
            let negated = self.eat_word("not");
            self.expect_word("missing")?;
            let Operand::Path(path) = left else {
                return Err(malformed("Expected a path before IS MISSING"));
            };
            return Ok(Cond::Missing(path, !negated));
        }
        if self.eat_word("between") {
            let low = self.operand()?;
            self.expect_word("and")?;
            let high = self.operand()?;
            return Ok(Cond::Between(left, low, high));
        }
        if self.eat_word("in") {
            let close = if self.eat_sym("[") {
                "]"
            } else if self.eat_sym("(") {
                ")"
            } else {
                return Err(malformed("Expected a list after IN"));
            };
            let mut list = vec![self.operand()?];
            while self.eat_sym(",") {
                list.push(self.operand()?);
            }
            self.expect_sym(close)?;
            return Ok(Cond::In(left, list));
        }
        let op = match self.peek() {
            Some(Tok::Sym(s)) if ["=", "<>", "!=", "<", "<=", ">", ">="].contains(s) => {
                if *s == "!=" {
                    "<>"
                } else {
                    s
                }
            }
            _ => return Err(malformed("Expected a comparison")),
        };
        self.at += 1;
        Ok(Cond::Compare(op, left, self.operand()?))
    }

    fn operand(&mut self) -> Result<Operand, PartiqlError> {
        self.nested(Self::operand_inner)
    }

    fn operand_inner(&mut self) -> Result<Operand, PartiqlError> {
        let mut left = self.term()?;
        loop {
            let op = if self.eat_sym("+") {
                '+'
            } else if self.eat_sym("-") {
                '-'
            } else {
                return Ok(left);
            };
            left = Operand::Arith(op, Box::new(left), Box::new(self.term()?));
        }
    }

    fn term(&mut self) -> Result<Operand, PartiqlError> {
        match self.peek() {
            Some(Tok::Word(w))
                if self.toks.get(self.at + 1) == Some(&Tok::Sym("("))
                    && !["and", "or", "not"].iter().any(|k| w.eq_ignore_ascii_case(k)) =>
            {
                let name = w.to_ascii_lowercase();
                self.at += 2;
                let mut args = Vec::new();
                if !self.eat_sym(")") {
                    loop {
                        args.push(self.operand()?);
                        if self.eat_sym(")") {
                            break;
                        }
                        self.expect_sym(",")?;
                    }
                }
                Ok(Operand::Call(name, args))
            }
            Some(Tok::Word(w))
                if ["true", "false", "null", "missing"]
                    .iter()
                    .any(|k| w.eq_ignore_ascii_case(k)) =>
            {
                Ok(Operand::Value(self.literal()?))
            }
            Some(Tok::Word(_)) | Some(Tok::Quoted(_)) => Ok(Operand::Path(self.path()?)),
            _ => Ok(Operand::Value(self.literal()?)),
        }
    }

    fn literal(&mut self) -> Result<AttributeValue, PartiqlError> {
        self.nested(Self::literal_inner)
    }

    fn literal_inner(&mut self) -> Result<AttributeValue, PartiqlError> {
        let Some(tok) = self.peek().cloned() else {
            return Err(malformed("Unexpected end of statement"));
        };
        self.at += 1;
        Ok(match tok {
            Tok::Str(s) => AttributeValue::S(s),
            Tok::Num(n) => AttributeValue::N(n),
            Tok::Sym("-") => match self.peek().cloned() {
                Some(Tok::Num(n)) => {
                    self.at += 1;
                    AttributeValue::N(format!("-{n}"))
                }
                _ => return Err(malformed("Unexpected term")),
            },
            Tok::Param => {
                let value = self
                    .parameters
                    .get(self.used)
                    .cloned()
                    .ok_or_else(|| PartiqlError::Validation(PARAMETER_COUNT.into()))?;
                self.used += 1;
                value
            }
            Tok::Word(w) if w.eq_ignore_ascii_case("true") => AttributeValue::Bool(true),
            Tok::Word(w) if w.eq_ignore_ascii_case("false") => AttributeValue::Bool(false),
            Tok::Word(w) if w.eq_ignore_ascii_case("null") => AttributeValue::Null(true),
            Tok::Sym("{") => {
                let mut map = BTreeMap::new();
                if !self.eat_sym("}") {
                    loop {
                        let key = match self.peek().cloned() {
                            Some(Tok::Str(key)) => key,
                            Some(Tok::Param) => match self.literal()? {
                                AttributeValue::S(key) => {
                                    self.at -= 1;
                                    key
                                }
                                _ => return Err(malformed("Expected a string key in a tuple")),
                            },
                            _ => return Err(malformed("Expected a string key in a tuple")),
                        };
                        self.at += 1;
                        self.expect_sym(":")?;
                        let value = self.literal()?;
                        map.insert(key, value);
                        if self.eat_sym("}") {
                            break;
                        }
                        self.expect_sym(",")?;
                    }
                }
                AttributeValue::M(map)
            }
            Tok::Sym("[") => {
                let mut list = Vec::new();
                if !self.eat_sym("]") {
                    loop {
                        list.push(self.literal()?);
                        if self.eat_sym("]") {
                            break;
                        }
                        self.expect_sym(",")?;
                    }
                }
                AttributeValue::L(list)
            }
            Tok::Sym("<<") => {
                let mut members = Vec::new();
                if !self.eat_sym(">>") {
                    loop {
                        members.push(self.literal()?);
                        if self.eat_sym(">>") {
                            break;
                        }
                        self.expect_sym(",")?;
                    }
                }
                set(members)?
            }
            _ => return Err(malformed("Unexpected term")),
        })
    }
}

/// A bag literal as a DynamoDB set: all strings, all numbers or all binaries.
fn set(members: Vec<AttributeValue>) -> Result<AttributeValue, PartiqlError> {
    let mixed =
        || PartiqlError::Validation("Set must contain elements of the same type: strings, numbers or binaries".into());
    match members.first() {
        Some(AttributeValue::S(_)) => members
            .into_iter()
            .map(|m| {
                if let AttributeValue::S(s) = m {
                    Ok(s)
                } else {
                    Err(mixed())
                }
            })
            .collect::<Result<_, _>>()
            .map(AttributeValue::Ss),
        Some(AttributeValue::N(_)) => members
            .into_iter()
            .map(|m| {
                if let AttributeValue::N(n) = m {
                    Ok(n)
                } else {
                    Err(mixed())
                }
            })
            .collect::<Result<_, _>>()
            .map(AttributeValue::Ns),
        Some(AttributeValue::B(_)) => members
            .into_iter()
            .map(|m| {
                if let AttributeValue::B(b) = m {
                    Ok(b)
                } else {
                    Err(mixed())
                }
            })
            .collect::<Result<_, _>>()
            .map(AttributeValue::Bs),
        _ => Err(mixed()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use stratus_test_support::{mutate, Rng};

    fn s(text: &str) -> AttributeValue {
        AttributeValue::S(text.into())
    }

    #[test]
    fn parses_each_statement() {
        let select = parse(
            r#"SELECT a, "b".c[1] FROM "T"."byDate" WHERE pk = ? AND n > 5"#,
            &[s("x")],
        )
        .unwrap();
        let Statement::Select {
            projection,
            target,
            filter,
            order,
        } = select
        else {
            panic!()
        };
        assert_eq!(projection.unwrap().len(), 2);
        assert_eq!(target.index.as_deref(), Some("byDate"));
        assert!(matches!(filter, Some(Cond::And(..))));
        assert!(order.is_empty());

        let ordered = parse(r#"SELECT * FROM t WHERE pk = 'a' ORDER BY pk, "sk" DESC"#, &[]).unwrap();
        let Statement::Select { order, .. } = ordered else {
            panic!()
        };
        let terms: Vec<(&str, bool)> = order.iter().map(|o| (o.attribute.as_str(), o.descending)).collect();
        assert_eq!(terms, [("pk", false), ("sk", true)]);
        assert!(parse("SELECT * FROM t ORDER BY", &[]).is_err());
        assert!(parse("SELECT * FROM t ORDER sk", &[]).is_err());

        let exists = parse("EXISTS(SELECT * FROM t WHERE pk = 'a' AND sk = 1)", &[]).unwrap();
        assert!(matches!(
            exists,
            Statement::Exists {
                filter: Some(Cond::And(..)),
                ..
            }
        ));
        assert!(!exists.is_read());
        assert!(parse("EXISTS SELECT * FROM t", &[]).is_err());
        assert!(parse("EXISTS(SELECT * FROM t", &[]).is_err());

        let insert = parse(
            "INSERT INTO t VALUE {'pk': 'a', 'tags': <<'x', 'y'>>, 'l': [1, true, null]}",
            &[],
        )
        .unwrap();
        let Statement::Insert { item, .. } = insert else {
            panic!()
        };
        assert_eq!(item["tags"], AttributeValue::Ss(vec!["x".into(), "y".into()]));

        let update = parse(
            "UPDATE t SET a = a + 1, b = 'x' REMOVE c WHERE pk = 'k' RETURNING ALL NEW *",
            &[],
        )
        .unwrap();
        let Statement::Update { changes, returning, .. } = update else {
            panic!()
        };
        assert_eq!(changes.len(), 3);
        assert_eq!(returning, Some(Returning::AllNew));

        let delete = parse("delete from t where pk = 'k' and attribute_exists(x)", &[]).unwrap();
        assert!(matches!(delete, Statement::Delete { .. }));
    }

    #[test]
    fn refuses_what_aws_refuses() {
        let message = |text: &str, params: &[AttributeValue]| parse(text, params).unwrap_err().to_string();
        assert_eq!(
            message("SLECT * FROM t", &[]),
            "Statement wasn't well formed, can't be processed: Expected data manipulation"
        );
        assert_eq!(message("SELECT * FROM t WHERE a = ?", &[]), PARAMETER_COUNT);
        assert!(parse("SELECT * FROM t", &[s("x")]).is_ok());
        assert_eq!(
            message("SELECT * FROM a.b.c", &[]),
            "A path may contain at most 2 components in the FROM clause"
        );
        assert!(message("SELECT * FROM t WHERE", &[]).starts_with("Statement wasn't well formed"));
        assert!(message("INSERT INTO t VALUE 'x'", &[]).ends_with("Expected a tuple in VALUE"));
    }

    /// The parser answers every input, however mangled, with a statement or an error.
    #[test]
    fn never_panics_on_mutated_statements() {
        let seeds: [&[u8]; 7] = [
            br#"SELECT a, "b".c[1] FROM "T"."i" WHERE pk = ? AND n BETWEEN 1 AND 5 OR x IN ['a', ?]"#,
            b"INSERT INTO t VALUE {'pk': ?, 'm': {'a': [1, -2.5e3, <<'x'>>]}, 'b': true}",
            b"UPDATE t SET a = a + ?, b = list_append(b, [1]) REMOVE c[0] WHERE pk = 'k' RETURNING MODIFIED OLD *",
            b"DELETE FROM \"t\" WHERE pk = 'k' AND NOT begins_with(x, 'a') AND y IS NOT MISSING",
            b"select * from t where (a = 1 or b <> 2) and c >= 'it''s'",
            b"SELECT * FROM t WHERE pk = 'a' ORDER BY pk ASC, sk DESC",
            b"EXISTS(SELECT * FROM \"t\" WHERE pk = ? AND sk = 1 AND x <> 'y')",
        ];
        let tokens: [&[u8]; 14] = [
            b"'", b"\"", b"?", b"(", b")", b"[", b"]", b"{", b"}", b"<<", b">>", b" AND ", b".", b"-",
        ];
        let mut rng = Rng(0x9a27_1e11);
        let params = [s("a"), AttributeValue::N("1".into())];
        assert!(parse(
            &format!("SELECT * FROM t WHERE a = {}1{}", "[".repeat(5000), "]".repeat(5000)),
            &[]
        )
        .is_err());
        assert!(parse(&format!("SELECT * FROM t WHERE {}a = 1", "NOT ".repeat(5000)), &[]).is_err());
        assert!(parse(
            &format!("SELECT * FROM t WHERE {}a = 1{}", "(".repeat(5000), ")".repeat(5000)),
            &[]
        )
        .is_err());
        for _ in 0..20_000 {
            let seed = seeds[rng.below(seeds.len())];
            let bytes = mutate(&mut rng, seed, &tokens);
            let text = String::from_utf8_lossy(&bytes);
            let _ = parse(&text, &params[..rng.below(3)]);
        }
    }
}
