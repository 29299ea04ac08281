//! The syntax tree shared by the expression languages, with placeholders already resolved:
//! a path holds attribute names (never `#name`) and a value operand borrows the
//! `ExpressionAttributeValues` entry it names.

use std::fmt;

use crate::AttributeValue;

/// One step of a document path: an attribute (or map key) name, or a list index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Element<'a> {
    Name(&'a str),
    Index(usize),
}

/// A document path such as `a.b[1].c`; never empty, and always starts with a name.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Path<'a>(pub Vec<Element<'a>>);

/// As AWS prints paths in messages: `[a, b, [1], c]`.
impl fmt::Display for Path<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[")?;
        for (i, element) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            match element {
                Element::Name(name) => f.write_str(name)?,
                Element::Index(index) => write!(f, "[{index}]")?,
            }
        }
        f.write_str("]")
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Comparator {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl Comparator {
    pub fn symbol(self) -> &'static str {
        match self {
            Comparator::Eq => "=",
            Comparator::Ne => "<>",
            Comparator::Lt => "<",
            Comparator::Le => "<=",
            Comparator::Gt => ">",
            Comparator::Ge => ">=",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Func {
    AttributeExists,
    AttributeNotExists,
    AttributeType,
    BeginsWith,
    Contains,
    Size,
    IfNotExists,
    ListAppend,
}

impl Func {
    /// Function names are case-sensitive (`attRIbute_exIsts` is refused).
    pub fn from_name(name: &str) -> Option<Func> {
        Some(match name {
            "attribute_exists" => Func::AttributeExists,
            "attribute_not_exists" => Func::AttributeNotExists,
            "attribute_type" => Func::AttributeType,
            "begins_with" => Func::BeginsWith,
            "contains" => Func::Contains,
            "size" => Func::Size,
            "if_not_exists" => Func::IfNotExists,
            "list_append" => Func::ListAppend,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Func::AttributeExists => "attribute_exists",
            Func::AttributeNotExists => "attribute_not_exists",
            Func::AttributeType => "attribute_type",
            Func::BeginsWith => "begins_with",
            Func::Contains => "contains",
            Func::Size => "size",
            Func::IfNotExists => "if_not_exists",
            Func::ListAppend => "list_append",
        }
    }

    /// Whether this function may appear in an update expression's values.
    pub fn is_update_function(self) -> bool {
        matches!(self, Func::IfNotExists | Func::ListAppend)
    }

    /// How many arguments the function takes.
    pub fn arity(self) -> usize {
        match self {
            Func::AttributeExists | Func::AttributeNotExists | Func::Size => 1,
            _ => 2,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArithOp {
    Plus,
    Minus,
}

impl ArithOp {
    pub fn symbol(self) -> &'static str {
        match self {
            ArithOp::Plus => "+",
            ArithOp::Minus => "-",
        }
    }
}

/// A node of any expression language; the parser only builds the forms its language allows.
#[derive(Debug, Clone, PartialEq)]
pub enum Expr<'a> {
    Path(Path<'a>),
    Value(&'a AttributeValue),
    /// Stands in for a node whose error has already been recorded (an undefined value, an
    /// unknown function), so parsing can go on and find any syntax error, which AWS reports
    /// first. An expression holding one is never returned to callers.
    Invalid,
    Compare(Comparator, Box<[Expr<'a>; 2]>),
    Between(Box<[Expr<'a>; 3]>),
    In(Box<Expr<'a>>, Vec<Expr<'a>>),
    And(Box<[Expr<'a>; 2]>),
    Or(Box<[Expr<'a>; 2]>),
    Not(Box<Expr<'a>>),
    Call(Func, Vec<Expr<'a>>),
    Arith(ArithOp, Box<[Expr<'a>; 2]>),
}

impl Expr<'_> {
    /// A node that yields a value rather than true or false.
    pub fn is_operand(&self) -> bool {
        match self {
            Expr::Path(_) | Expr::Value(_) | Expr::Invalid | Expr::Arith(..) => true,
            Expr::Call(func, _) => matches!(func, Func::Size | Func::IfNotExists | Func::ListAppend),
            _ => false,
        }
    }
}
