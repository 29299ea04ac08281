//! Parses one file's tokens into its statements, with shape ids still as written.
//!
//! Syntactic sugar that needs no knowledge of other files is removed here: documentation
//! comments become `smithy.api#documentation` traits, and inline operation input/output
//! (`input := { ... }`) becomes a separate structure named after the operation with the
//! `@input`/`@output` trait. Everything that needs the whole model set (shape id
//! resolution, `apply`, mixins, elided targets) is left to [`super::resolve`].

use super::lexer::{Tok, Token};
use super::{Failure, Pos};

pub(crate) const DOCUMENTATION: &str = "smithy.api#documentation";

/// A node value, with unquoted shape ids kept apart from strings until they are resolved.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Node {
    Null,
    Bool(bool),
    Number(serde_json::Number),
    Str(String),
    /// An unquoted shape id, resolved to an absolute id as a string.
    Id(String),
    Array(Vec<Node>),
    Object(Vec<(String, Node)>),
}

/// A trait applied to a shape or member.
#[derive(Debug, Clone)]
pub(crate) struct TraitApp {
    pub id: String,
    pub value: Node,
    pub pos: Pos,
}

/// A member as written: `name: Target`, elided `$name`, or an enum member.
#[derive(Debug, Clone)]
pub(crate) struct MemberStmt {
    pub name: String,
    /// `None` for an elided target (`$name`), or an enum member.
    pub target: Option<String>,
    pub traits: Vec<TraitApp>,
    /// The value after `=`: a structure member's default, an enum member's value.
    pub value: Option<Node>,
    pub pos: Pos,
}

/// A shape statement.
#[derive(Debug, Clone)]
pub(crate) struct ShapeStmt {
    /// The shape type keyword (`structure`, `string`, `intEnum`, …).
    pub kind: String,
    pub name: String,
    pub pos: Pos,
    pub traits: Vec<TraitApp>,
    /// The resource of `structure X for Resource`.
    pub resource: Option<String>,
    pub mixins: Vec<String>,
    pub members: Vec<MemberStmt>,
    /// Service, resource and operation properties (`version`, `operations`, `input`, …).
    pub properties: Vec<(String, Node)>,
}

/// `apply Target @trait` or `apply Target { @a @b }`.
#[derive(Debug, Clone)]
pub(crate) struct ApplyStmt {
    pub target: String,
    pub traits: Vec<TraitApp>,
    pub pos: Pos,
}

/// One parsed file.
#[derive(Debug, Default)]
pub(crate) struct Ast {
    pub version: Option<String>,
    pub namespace: Option<String>,
    pub uses: Vec<String>,
    pub metadata: Vec<(Pos, String, Node)>,
    pub shapes: Vec<ShapeStmt>,
    pub applies: Vec<ApplyStmt>,
}

const SIMPLE_TYPES: &[&str] = &[
    "blob",
    "boolean",
    "document",
    "string",
    "byte",
    "short",
    "integer",
    "long",
    "float",
    "double",
    "bigInteger",
    "bigDecimal",
    "timestamp",
];

/// Parses a file's tokens (as returned by [`super::lexer::lex`]).
pub(crate) fn parse(tokens: &[Token]) -> Result<Ast, Failure> {
    let mut p = Parser { tokens, i: 0 };
    let mut ast = Ast::default();
    let mut suffixes = ("Input".to_string(), "Output".to_string());
    while p.peek() == &Tok::Dollar {
        p.bump();
        let key = p.key()?;
        p.expect(Tok::Colon)?;
        let value = p.node()?;
        let text = match &value {
            Node::Str(s) => Some(s.clone()),
            _ => None,
        };
        match (key.as_str(), text) {
            ("version", Some(v)) => ast.version = Some(v),
            ("operationInputSuffix", Some(s)) => suffixes.0 = s,
            ("operationOutputSuffix", Some(s)) => suffixes.1 = s,
            ("version" | "operationInputSuffix" | "operationOutputSuffix", None) => {
                return Err(p.fail(format!("${key} must be a string")))
            }
            _ => {}
        }
    }
    while p.at_word("metadata") {
        let pos = p.pos();
        p.bump();
        let key = p.key()?;
        p.expect(Tok::Equals)?;
        ast.metadata.push((pos, key, p.node()?));
    }
    if p.at_word("namespace") {
        p.bump();
        ast.namespace = Some(p.ident()?);
        while p.at_word("use") {
            p.bump();
            ast.uses.push(p.ident()?);
        }
    }
    while p.peek() != &Tok::Eof {
        if ast.namespace.is_none() {
            return Err(p.fail("a namespace must be declared before shapes or apply statements"));
        }
        if p.at_word("apply") {
            ast.applies.push(p.apply()?);
        } else {
            p.shape(&suffixes, &mut ast.shapes)?;
        }
    }
    Ok(ast)
}

struct Parser<'t> {
    tokens: &'t [Token],
    i: usize,
}

impl Parser<'_> {
    fn token(&self, ahead: usize) -> &Token {
        let last = self.tokens.len() - 1;
        &self.tokens[(self.i + ahead).min(last)]
    }

    fn peek(&self) -> &Tok {
        &self.token(0).tok
    }

    fn pos(&self) -> Pos {
        self.token(0).pos
    }

    fn bump(&mut self) -> Tok {
        let tok = self.peek().clone();
        if tok != Tok::Eof {
            self.i += 1;
        }
        tok
    }

    fn fail(&self, message: impl Into<String>) -> Failure {
        Failure {
            pos: self.pos(),
            message: message.into(),
        }
    }

    fn unexpected(&self, wanted: &str) -> Failure {
        self.fail(format!("expected {wanted}, found {}", describe(self.peek())))
    }

    fn at_word(&self, word: &str) -> bool {
        matches!(self.peek(), Tok::Ident(w) if w == word)
    }

    fn expect(&mut self, tok: Tok) -> Result<(), Failure> {
        if self.peek() == &tok {
            self.bump();
            Ok(())
        } else {
            Err(self.unexpected(&describe(&tok)))
        }
    }

    fn ident(&mut self) -> Result<String, Failure> {
        match self.peek() {
            Tok::Ident(_) => match self.bump() {
                Tok::Ident(s) => Ok(s),
                _ => unreachable!("peeked an identifier"),
            },
            _ => Err(self.unexpected("an identifier or shape id")),
        }
    }

    /// An object key or control/metadata key: an identifier or a quoted string.
    fn key(&mut self) -> Result<String, Failure> {
        match self.peek() {
            Tok::Ident(_) | Tok::Str(_) => match self.bump() {
                Tok::Ident(s) | Tok::Str(s) => Ok(s),
                _ => unreachable!("peeked a key"),
            },
            _ => Err(self.unexpected("a key")),
        }
    }

    fn node(&mut self) -> Result<Node, Failure> {
        let pos = self.pos();
        Ok(match self.bump() {
            Tok::LBracket => {
                let mut items = Vec::new();
                while self.peek() != &Tok::RBracket {
                    items.push(self.node()?);
                }
                self.bump();
                Node::Array(items)
            }
            Tok::LBrace => Node::Object(self.object_entries(Tok::RBrace)?),
            Tok::Number(n) => Node::Number(n),
            Tok::Str(s) => Node::Str(s),
            Tok::Ident(word) => match word.as_str() {
                "true" => Node::Bool(true),
                "false" => Node::Bool(false),
                "null" => Node::Null,
                _ => Node::Id(word),
            },
            other => {
                return Err(Failure {
                    pos,
                    message: format!("expected a node value, found {}", describe(&other)),
                })
            }
        })
    }

    /// `key: value` pairs up to and including `close` (the opening token is consumed).
    fn object_entries(&mut self, close: Tok) -> Result<Vec<(String, Node)>, Failure> {
        let mut entries = Vec::new();
        while self.peek() != &close {
            let key = self.key()?;
            self.expect(Tok::Colon)?;
            entries.push((key, self.node()?));
        }
        self.bump();
        Ok(entries)
    }

    /// Trait statements, with the documentation comment attached to the first token.
    fn traits(&mut self) -> Result<Vec<TraitApp>, Failure> {
        let mut traits = Vec::new();
        if let Some(doc) = &self.token(0).doc {
            traits.push(TraitApp {
                id: DOCUMENTATION.into(),
                value: Node::Str(doc.clone()),
                pos: self.pos(),
            });
        }
        while self.peek() == &Tok::At {
            traits.push(self.trait_app()?);
        }
        Ok(traits)
    }

    fn trait_app(&mut self) -> Result<TraitApp, Failure> {
        let pos = self.pos();
        self.expect(Tok::At)?;
        let id = self.ident()?;
        let value = if self.peek() == &Tok::LParen {
            self.bump();
            let structured = matches!(self.peek(), Tok::Ident(_) | Tok::Str(_)) && self.token(1).tok == Tok::Colon;
            if structured || self.peek() == &Tok::RParen {
                Node::Object(self.object_entries(Tok::RParen)?)
            } else {
                let value = self.node()?;
                self.expect(Tok::RParen)?;
                value
            }
        } else {
            Node::Object(Vec::new())
        };
        Ok(TraitApp { id, value, pos })
    }

    fn apply(&mut self) -> Result<ApplyStmt, Failure> {
        let pos = self.pos();
        self.bump();
        let target = self.ident()?;
        let traits = if self.peek() == &Tok::LBrace {
            self.bump();
            let traits = self.traits()?;
            self.expect(Tok::RBrace)?;
            traits
        } else {
            vec![self.trait_app()?]
        };
        Ok(ApplyStmt { target, traits, pos })
    }

    /// The `for Resource` clause of a structure.
    fn for_resource(&mut self) -> Result<Option<String>, Failure> {
        if !self.at_word("for") {
            return Ok(None);
        }
        self.bump();
        self.ident().map(Some)
    }

    fn mixins(&mut self) -> Result<Vec<String>, Failure> {
        let mut mixins = Vec::new();
        if self.at_word("with") {
            self.bump();
            self.expect(Tok::LBracket)?;
            while self.peek() != &Tok::RBracket {
                mixins.push(self.ident()?);
            }
            self.bump();
        }
        Ok(mixins)
    }

    /// A shape statement; inline operation input/output adds further shapes to `out`.
    fn shape(&mut self, suffixes: &(String, String), out: &mut Vec<ShapeStmt>) -> Result<(), Failure> {
        let traits = self.traits()?;
        let pos = self.pos();
        let kind = self.ident()?;
        let name = self.ident()?;
        let resource = if kind == "structure" {
            self.for_resource()?
        } else {
            None
        };
        let mut shape = ShapeStmt {
            mixins: self.mixins()?,
            kind,
            name,
            pos,
            traits,
            resource,
            members: Vec::new(),
            properties: Vec::new(),
        };
        match shape.kind.as_str() {
            k if SIMPLE_TYPES.contains(&k) => {}
            "enum" | "intEnum" => shape.members = self.members(true)?,
            "list" | "set" | "map" | "structure" | "union" => shape.members = self.members(false)?,
            "service" | "resource" => {
                self.expect(Tok::LBrace)?;
                shape.properties = self.object_entries(Tok::RBrace)?;
            }
            "operation" => {
                self.expect(Tok::LBrace)?;
                while self.peek() != &Tok::RBrace {
                    let key = self.ident()?;
                    if self.peek() == &Tok::Walrus {
                        let (suffix, marker) = match key.as_str() {
                            "input" => (&suffixes.0, "smithy.api#input"),
                            "output" => (&suffixes.1, "smithy.api#output"),
                            _ => return Err(self.fail(format!("`{key} :=` is not allowed; only input and output"))),
                        };
                        let io_pos = self.pos();
                        self.bump();
                        let mut traits = self.traits()?;
                        traits.push(TraitApp {
                            id: marker.into(),
                            value: Node::Object(Vec::new()),
                            pos: io_pos,
                        });
                        let io = ShapeStmt {
                            kind: "structure".into(),
                            name: format!("{}{suffix}", shape.name),
                            pos: io_pos,
                            traits,
                            resource: self.for_resource()?,
                            mixins: self.mixins()?,
                            members: self.members(false)?,
                            properties: Vec::new(),
                        };
                        shape.properties.push((key, Node::Id(io.name.clone())));
                        out.push(io);
                    } else {
                        self.expect(Tok::Colon)?;
                        shape.properties.push((key, self.node()?));
                    }
                }
                self.bump();
            }
            other => {
                return Err(Failure {
                    pos,
                    message: format!("unknown shape type `{other}`"),
                })
            }
        }
        out.push(shape);
        Ok(())
    }

    /// A `{ ... }` block of members. Enum members have no target and take `= value`.
    fn members(&mut self, is_enum: bool) -> Result<Vec<MemberStmt>, Failure> {
        self.expect(Tok::LBrace)?;
        let mut members = Vec::new();
        while self.peek() != &Tok::RBrace {
            let traits = self.traits()?;
            let pos = self.pos();
            let (name, target) = if is_enum {
                (self.ident()?, None)
            } else if self.peek() == &Tok::Dollar {
                self.bump();
                (self.ident()?, None)
            } else {
                let name = self.ident()?;
                self.expect(Tok::Colon)?;
                (name, Some(self.ident()?))
            };
            let value = if self.peek() == &Tok::Equals {
                self.bump();
                Some(self.node()?)
            } else {
                None
            };
            members.push(MemberStmt {
                name,
                target,
                traits,
                value,
                pos,
            });
        }
        self.bump();
        Ok(members)
    }
}

fn describe(tok: &Tok) -> String {
    match tok {
        Tok::Ident(s) => format!("`{s}`"),
        Tok::Str(_) => "a string".into(),
        Tok::Number(n) => format!("number {n}"),
        Tok::LBrace => "`{`".into(),
        Tok::RBrace => "`}`".into(),
        Tok::LBracket => "`[`".into(),
        Tok::RBracket => "`]`".into(),
        Tok::LParen => "`(`".into(),
        Tok::RParen => "`)`".into(),
        Tok::Colon => "`:`".into(),
        Tok::Walrus => "`:=`".into(),
        Tok::Equals => "`=`".into(),
        Tok::At => "`@`".into(),
        Tok::Dollar => "`$`".into(),
        Tok::Eof => "the end of the file".into(),
    }
}
