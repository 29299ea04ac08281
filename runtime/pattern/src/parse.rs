//! Parser for ECMA-262 patterns (non-unicode mode, with Annex B), extended
//! with the Java syntax that AWS models use: `\p{…}` and `(?i)`.
//!
//! Where ECMA-262 and Java disagree on syntax the models do not use (`\a`,
//! `\x{…}`, `[a[b]]`, `&&`, legacy octal escapes …) the parser refuses with
//! [`Reason::Ambiguous`] instead of guessing.

use crate::ast::{Assertion, Node};
use crate::charset::{self, CharSet};
use crate::error::{Reason, TranslateError};

/// A parsed pattern.
#[derive(Debug)]
pub(crate) struct Parsed {
    pub(crate) root: Node,
    pub(crate) has_backrefs: bool,
}

/// Parses an ECMA-262 pattern.
pub(crate) fn parse(src: &str) -> Result<Parsed, TranslateError> {
    let mut parser = Parser::new(src);
    let root = parser.disjunction()?;
    if parser.pos < src.len() {
        return Err(parser.error(parser.pos, Reason::UnmatchedParen));
    }
    // ECMA-262 resets a group's capture at each iteration of a repetition
    // around it, fancy-regex keeps the last one: refuse where that matters.
    if let Some(&(offset, _)) = parser
        .backrefs
        .iter()
        .find(|(_, index)| parser.repeated.contains(index))
    {
        return Err(parser.error(
            offset,
            Reason::Unsupported("back-reference to a group inside a repetition"),
        ));
    }
    Ok(Parsed {
        root,
        has_backrefs: !parser.backrefs.is_empty(),
    })
}

/// A parsed term, with whether a quantifier may follow it.
enum Term {
    Repeatable(Node),
    /// A quantifier after this node is an error, for this reason.
    Fixed(Node, Reason),
}

/// What an escape sequence stands for.
enum Escape {
    Char(u32),
    Set(CharSet),
}

/// One element of a character class before ranges are formed.
enum ClassAtom {
    Char(u32),
    Set(CharSet),
}

struct Parser<'a> {
    src: &'a str,
    /// Byte offset of the next character.
    pos: usize,
    /// Java's `(?i)` is in force.
    ignore_case: bool,
    /// Number of capturing groups opened so far.
    captures: u32,
    /// Name and number of every named group, found before parsing so that
    /// `\k<name>` may refer forward.
    names: Vec<(String, u32)>,
    /// Total number of capturing groups, found before parsing.
    total_captures: u32,
    /// Capturing groups not yet closed.
    open: Vec<u32>,
    /// Capturing groups inside a repetition of more than one iteration.
    repeated: Vec<u32>,
    /// Offset and group of every back-reference.
    backrefs: Vec<(usize, u32)>,
}

impl<'a> Parser<'a> {
    fn new(src: &'a str) -> Self {
        let (total_captures, names) = scan_groups(src);
        Self {
            src,
            pos: 0,
            ignore_case: false,
            captures: 0,
            names,
            total_captures,
            open: Vec::new(),
            repeated: Vec::new(),
            backrefs: Vec::new(),
        }
    }

    fn error(&self, offset: usize, reason: Reason) -> TranslateError {
        TranslateError {
            pattern: self.src.to_owned(),
            offset,
            reason,
        }
    }

    fn peek(&self) -> Option<char> {
        self.src[self.pos..].chars().next()
    }

    fn peek_at(&self, n: usize) -> Option<char> {
        self.src[self.pos..].chars().nth(n)
    }

    fn bump(&mut self) -> Result<char, TranslateError> {
        let c = self.peek().ok_or_else(|| self.error(self.pos, Reason::UnexpectedEnd))?;
        self.pos += c.len_utf8();
        Ok(c)
    }

    fn eat(&mut self, c: char) -> bool {
        let found = self.peek() == Some(c);
        if found {
            self.pos += c.len_utf8();
        }
        found
    }

    fn expect(&mut self, c: char) -> Result<(), TranslateError> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(self.error(self.pos, Reason::UnexpectedEnd))
        }
    }

    fn disjunction(&mut self) -> Result<Node, TranslateError> {
        let mut alts = vec![self.alternative()?];
        while self.eat('|') {
            alts.push(self.alternative()?);
        }
        Ok(if alts.len() == 1 {
            alts.swap_remove(0)
        } else {
            Node::Alt(alts)
        })
    }

    fn alternative(&mut self) -> Result<Node, TranslateError> {
        let mut items = Vec::new();
        while !matches!(self.peek(), None | Some('|' | ')')) {
            if let Some(term) = self.term()? {
                items.push(term);
            }
        }
        Ok(Node::concat(items))
    }

    /// One atom or assertion with its quantifier; `None` for `(?i)`.
    fn term(&mut self) -> Result<Option<Node>, TranslateError> {
        let start = self.pos;
        let captures_before = self.captures;
        let term = match self.bump()? {
            '^' => Term::Fixed(Node::Assert(Assertion::Start), Reason::NothingToRepeat),
            '$' => Term::Fixed(Node::Assert(Assertion::End), Reason::NothingToRepeat),
            '(' => match self.group()? {
                Some(term) => term,
                None => return Ok(None),
            },
            '.' => Term::Repeatable(Node::Set(CharSet::complement_of(charset::LINE_TERMINATOR))),
            '[' => Term::Repeatable(Node::Set(self.class()?)),
            '\\' => self.atom_escape()?,
            '*' | '+' | '?' => return Err(self.error(start, Reason::NothingToRepeat)),
            '{' if braced_quantifier(&self.src[start..]).is_some() => {
                return Err(self.error(start, Reason::NothingToRepeat))
            }
            c => Term::Repeatable(self.literal(u32::from(c))),
        };
        let at = self.pos;
        let Some((min, max, greedy)) = self.quantifier()? else {
            return Ok(Some(match term {
                Term::Repeatable(node) | Term::Fixed(node, _) => node,
            }));
        };
        if max != Some(1) {
            self.repeated.extend(captures_before + 1..=self.captures);
        }
        match term {
            Term::Repeatable(node) => Ok(Some(Node::repeat(node, min, max, greedy))),
            Term::Fixed(_, reason) => Err(self.error(at, reason)),
        }
    }

    /// A one-character node, case-folded under `(?i)`.
    fn literal(&self, c: u32) -> Node {
        let mut set = CharSet::single(c);
        if self.ignore_case {
            set.add_ascii_case();
        }
        Node::Set(set)
    }

    /// `*`, `+`, `?`, `{n}`, `{n,}` or `{n,m}`, each optionally lazy.
    fn quantifier(&mut self) -> Result<Option<(u32, Option<u32>, bool)>, TranslateError> {
        let start = self.pos;
        let (min, max) = match self.peek() {
            Some('*') => (0, None),
            Some('+') => (1, None),
            Some('?') => (0, Some(1)),
            Some('{') => match braced_quantifier(&self.src[start..]) {
                Some(Ok(Braced { min, max, len })) => {
                    self.pos += len - 1;
                    (min, max)
                }
                Some(Err(reason)) => return Err(self.error(start, reason)),
                None => return Ok(None),
            },
            _ => return Ok(None),
        };
        self.pos += 1;
        let greedy = !self.eat('?');
        Ok(Some((min, max, greedy)))
    }

    /// The rest of a group after `(`; `None` for a flag group such as `(?i)`.
    fn group(&mut self) -> Result<Option<Term>, TranslateError> {
        let start = self.pos - 1;
        if !self.eat('?') {
            return self.capture().map(Some);
        }
        let (behind, negated) = match (self.peek(), self.peek_at(1)) {
            (Some(':'), _) => {
                self.pos += 1;
                return self.group_body().map(|node| Some(Term::Repeatable(node)));
            }
            (Some('='), _) => (false, false),
            (Some('!'), _) => (false, true),
            (Some('<'), Some('=')) => (true, false),
            (Some('<'), Some('!')) => (true, true),
            (Some('<'), _) => {
                let end = self.src[self.pos..]
                    .find('>')
                    .ok_or_else(|| self.error(start, Reason::UnexpectedEnd))?;
                self.pos += end + 1;
                return self.capture().map(Some);
            }
            (Some('i'), Some(')')) => {
                self.pos += 2;
                self.ignore_case = true;
                return Ok(None);
            }
            (Some('i'), Some(':')) => {
                self.pos += 2;
                let outer = std::mem::replace(&mut self.ignore_case, true);
                let body = self.group_body();
                self.ignore_case = outer;
                return body.map(|node| Some(Term::Repeatable(node)));
            }
            _ => return Err(self.error(start, Reason::Unsupported("this kind of group"))),
        };
        self.pos += if behind { 2 } else { 1 };
        let node = Node::Look {
            behind,
            negated,
            node: Box::new(self.group_body()?),
        };
        Ok(Some(Term::Fixed(node, Reason::Unsupported("quantified look-around"))))
    }

    /// A capturing group's body, after its `(` or `(?<name>`.
    fn capture(&mut self) -> Result<Term, TranslateError> {
        self.captures += 1;
        let index = self.captures;
        self.open.push(index);
        let node = self.group_body()?;
        self.open.pop();
        Ok(Term::Repeatable(Node::Capture {
            index,
            node: Box::new(node),
        }))
    }

    /// A disjunction and the `)` closing its group; `(?i)` inside it ends there.
    fn group_body(&mut self) -> Result<Node, TranslateError> {
        let outer = self.ignore_case;
        let node = self.disjunction()?;
        self.ignore_case = outer;
        self.expect(')')?;
        Ok(node)
    }

    /// An escape outside a class, after its `\`.
    fn atom_escape(&mut self) -> Result<Term, TranslateError> {
        let start = self.pos - 1;
        match self.bump()? {
            'b' => Ok(Term::Fixed(
                Node::Assert(Assertion::WordBoundary),
                Reason::NothingToRepeat,
            )),
            'B' => Ok(Term::Fixed(
                Node::Assert(Assertion::NotWordBoundary),
                Reason::NothingToRepeat,
            )),
            '1'..='9' => {
                let digits = self.src[start + 1..].bytes().take_while(u8::is_ascii_digit).count();
                self.pos = start + 1 + digits;
                let index = self.src[start + 1..self.pos].parse().unwrap_or(u32::MAX);
                self.backref(start, index)
            }
            'k' if !self.names.is_empty() => {
                self.expect('<')?;
                let end = self.src[self.pos..]
                    .find('>')
                    .ok_or_else(|| self.error(start, Reason::UnexpectedEnd))?;
                let name = &self.src[self.pos..self.pos + end];
                let index = self.names.iter().find(|(n, _)| n == name).map_or(u32::MAX, |&(_, i)| i);
                self.pos += end + 1;
                self.backref(start, index)
            }
            c => Ok(Term::Repeatable(match self.character_escape(start, c, false)? {
                Escape::Char(c) => self.literal(c),
                Escape::Set(set) => Node::Set(set),
            })),
        }
    }

    fn backref(&mut self, start: usize, index: u32) -> Result<Term, TranslateError> {
        if index > self.total_captures {
            return Err(self.error(start, Reason::UnknownGroup));
        }
        if self.open.contains(&index) {
            return Err(self.error(start, Reason::Unsupported("back-reference inside its own group")));
        }
        if self.ignore_case {
            return Err(self.error(start, Reason::Unsupported("case-insensitive back-reference")));
        }
        self.backrefs.push((start, index));
        Ok(Term::Repeatable(Node::BackRef(index)))
    }

    /// A character escape or character class escape after `\c`, inside a
    /// class or not (`\b`, `\B`, back-references are handled by the callers).
    fn character_escape(&mut self, start: usize, c: char, in_class: bool) -> Result<Escape, TranslateError> {
        let set = |ranges| Ok(Escape::Set(CharSet::from_ranges(ranges)));
        let not = |ranges| Ok(Escape::Set(CharSet::complement_of(ranges)));
        let ambiguous = |this: &Self| Err(this.error(start, Reason::Ambiguous(this.src[start..this.pos].to_owned())));
        match c {
            'd' => set(charset::DIGIT),
            'D' => not(charset::DIGIT),
            'w' => set(charset::WORD),
            'W' => not(charset::WORD),
            's' => set(charset::SPACE),
            'S' => not(charset::SPACE),
            'p' | 'P' => self.property(start, c == 'P').map(Escape::Set),
            't' => Ok(Escape::Char(0x09)),
            'n' => Ok(Escape::Char(0x0A)),
            'v' => Ok(Escape::Char(0x0B)),
            'f' => Ok(Escape::Char(0x0C)),
            'r' => Ok(Escape::Char(0x0D)),
            'b' if in_class => Ok(Escape::Char(0x08)),
            'c' => match self.peek() {
                Some(l) if l.is_ascii_alphabetic() => {
                    self.pos += 1;
                    Ok(Escape::Char(u32::from(l) % 32))
                }
                _ => ambiguous(self),
            },
            '0' if !self.peek().is_some_and(|d| d.is_ascii_digit()) => Ok(Escape::Char(0)),
            'x' => match self.hex(2) {
                Some(v) => Ok(Escape::Char(v)),
                None => ambiguous(self),
            },
            'u' => match self.hex(4) {
                Some(high @ 0xD800..=0xDBFF) if self.src[self.pos..].starts_with("\\u") => {
                    let save = self.pos;
                    self.pos += 2;
                    match self.hex(4) {
                        Some(low @ 0xDC00..=0xDFFF) => {
                            Ok(Escape::Char(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)))
                        }
                        _ => {
                            self.pos = save;
                            Ok(Escape::Char(high))
                        }
                    }
                }
                Some(v) => Ok(Escape::Char(v)),
                None => ambiguous(self),
            },
            c if c.is_ascii_alphanumeric() => ambiguous(self),
            c => Ok(Escape::Char(u32::from(c))),
        }
    }

    /// Exactly `n` hex digits, consumed only when all are there.
    fn hex(&mut self, n: usize) -> Option<u32> {
        let digits = self.src.get(self.pos..self.pos + n)?;
        if !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        self.pos += n;
        u32::from_str_radix(digits, 16).ok()
    }

    /// `{Name}` after `\p` or `\P`: a Java POSIX class (US-ASCII, as Java
    /// reads them without `UNICODE_CHARACTER_CLASS`) or a Unicode general
    /// category.
    fn property(&mut self, start: usize, negated: bool) -> Result<CharSet, TranslateError> {
        if !self.eat('{') {
            return Err(self.error(start, Reason::Ambiguous(self.src[start..self.pos].to_owned())));
        }
        let end = self.src[self.pos..]
            .find('}')
            .ok_or_else(|| self.error(start, Reason::UnexpectedEnd))?;
        let name = &self.src[self.pos..self.pos + end];
        self.pos += end + 1;
        if let Some(&(_, ranges)) = POSIX.iter().find(|(n, _)| *n == name) {
            return Ok(if negated {
                CharSet::complement_of(ranges)
            } else {
                CharSet::from_ranges(ranges)
            });
        }
        match CATEGORIES.iter().find(|&&n| n == name) {
            Some(name) => Ok(CharSet::category(name, negated)),
            None => Err(self.error(start, Reason::UnknownProperty(name.to_owned()))),
        }
    }

    /// A character class after its `[`.
    fn class(&mut self) -> Result<CharSet, TranslateError> {
        let negated = self.eat('^');
        let mut set = CharSet::empty();
        while !self.eat(']') {
            let start = self.pos;
            let first = self.class_atom()?;
            if self.peek() == Some('-') && !matches!(self.peek_at(1), Some(']') | None) {
                self.pos += 1;
                match (first, self.class_atom()?) {
                    (ClassAtom::Char(lo), ClassAtom::Char(hi)) if lo > hi => {
                        return Err(self.error(start, Reason::RangeOutOfOrder))
                    }
                    (ClassAtom::Char(lo), ClassAtom::Char(hi)) => set.add_range(lo, hi),
                    // Annex B (and Java): a dash next to a class escape is literal.
                    (a, b) => {
                        for atom in [a, ClassAtom::Char(u32::from('-')), b] {
                            add_atom(&mut set, atom);
                        }
                    }
                }
            } else {
                add_atom(&mut set, first);
            }
        }
        if self.ignore_case {
            set.add_ascii_case();
        }
        if negated {
            set.negate();
        }
        Ok(set)
    }

    fn class_atom(&mut self) -> Result<ClassAtom, TranslateError> {
        let start = self.pos;
        match self.bump()? {
            '\\' => {
                let c = self.bump()?;
                Ok(match self.character_escape(start, c, true)? {
                    Escape::Char(c) => ClassAtom::Char(c),
                    Escape::Set(set) => ClassAtom::Set(set),
                })
            }
            '[' => Err(self.error(start, Reason::Ambiguous("[".to_owned()))),
            '&' if self.peek() == Some('&') => Err(self.error(start, Reason::Ambiguous("&&".to_owned()))),
            c => Ok(ClassAtom::Char(u32::from(c))),
        }
    }
}

fn add_atom(set: &mut CharSet, atom: ClassAtom) {
    match atom {
        ClassAtom::Char(c) => set.add_range(c, c),
        ClassAtom::Set(other) => set.add_set(&other),
    }
}

/// A `{n}`, `{n,}` or `{n,m}` quantifier.
#[derive(Debug, PartialEq, Eq)]
struct Braced {
    min: u32,
    max: Option<u32>,
    /// Length in bytes, braces included.
    len: usize,
}

/// The braced quantifier at the start of `s`; `None` when `s` does not
/// start with that form, which makes the `{` a literal (Annex B).
fn braced_quantifier(s: &str) -> Option<Result<Braced, Reason>> {
    let body = s.strip_prefix('{')?;
    let end = body.find('}')?;
    let (min, max) = match body[..end].split_once(',') {
        None => (&body[..end], Some(&body[..end])),
        Some((min, "")) => (min, None),
        Some((min, max)) => (min, Some(max)),
    };
    let digits = |d: &str| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit());
    if !digits(min) || !max.is_none_or(digits) {
        return None;
    }
    let number = |d: &str| d.parse::<u32>().map_err(|_| Reason::BadCount);
    let parsed = (|| {
        let min = number(min)?;
        let max = max.map(number).transpose()?;
        if max.is_some_and(|max| max < min) {
            return Err(Reason::BadCount);
        }
        Ok(Braced { min, max, len: end + 2 })
    })();
    Some(parsed)
}

/// Counts capturing groups and collects group names, skipping escapes and
/// classes.
fn scan_groups(src: &str) -> (u32, Vec<(String, u32)>) {
    let (mut count, mut names) = (0, Vec::new());
    let mut in_class = false;
    let mut chars = src.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' => {
                chars.next();
            }
            '[' => in_class = true,
            ']' => in_class = false,
            '(' if !in_class => {
                let rest = &src[i + 1..];
                if !rest.starts_with('?') {
                    count += 1;
                } else if let Some(named) = rest.strip_prefix("?<").filter(|r| !r.starts_with(['=', '!'])) {
                    count += 1;
                    let name = named.split('>').next().unwrap_or_default();
                    names.push((name.to_owned(), count));
                }
            }
            _ => {}
        }
    }
    (count, names)
}

/// Java's POSIX character classes (US-ASCII).
const POSIX: &[(&str, &[(u32, u32)])] = &[
    ("Lower", &[(0x61, 0x7A)]),
    ("Upper", &[(0x41, 0x5A)]),
    ("ASCII", &[(0x00, 0x7F)]),
    ("Alpha", &[(0x41, 0x5A), (0x61, 0x7A)]),
    ("Digit", &[(0x30, 0x39)]),
    ("Alnum", &[(0x30, 0x39), (0x41, 0x5A), (0x61, 0x7A)]),
    ("Punct", &[(0x21, 0x2F), (0x3A, 0x40), (0x5B, 0x60), (0x7B, 0x7E)]),
    ("Graph", &[(0x21, 0x7E)]),
    ("Print", &[(0x20, 0x7E)]),
    ("Blank", &[(0x09, 0x09), (0x20, 0x20)]),
    ("Cntrl", &[(0x00, 0x1F), (0x7F, 0x7F)]),
    ("XDigit", &[(0x30, 0x39), (0x41, 0x46), (0x61, 0x66)]),
    ("Space", &[(0x09, 0x0D), (0x20, 0x20)]),
];

/// Unicode general categories, spelled as both Java and the regex crate do.
const CATEGORIES: &[&str] = &[
    "L", "Lu", "Ll", "Lt", "Lm", "Lo", "M", "Mn", "Mc", "Me", "N", "Nd", "Nl", "No", "P", "Pc", "Pd", "Ps", "Pe", "Pi",
    "Pf", "Po", "S", "Sm", "Sc", "Sk", "So", "Z", "Zs", "Zl", "Zp", "C", "Cc", "Cf", "Cs", "Co", "Cn",
];

#[cfg(test)]
mod tests {
    use super::*;

    fn reason(src: &str) -> Reason {
        parse(src).expect_err(src).reason
    }

    #[test]
    fn braced_quantifiers() {
        let braced = |min, max, len| Some(Ok(Braced { min, max, len }));
        assert_eq!(braced_quantifier("{3}x"), braced(3, Some(3), 3));
        assert_eq!(braced_quantifier("{3,}"), braced(3, None, 4));
        assert_eq!(braced_quantifier("{3,12}"), braced(3, Some(12), 6));
        assert_eq!(braced_quantifier("{,3}"), None);
        assert_eq!(braced_quantifier("{a}"), None);
        assert_eq!(braced_quantifier("{3"), None);
        assert_eq!(braced_quantifier("{4,3}"), Some(Err(Reason::BadCount)));
        assert_eq!(braced_quantifier("{99999999999}"), Some(Err(Reason::BadCount)));
    }

    #[test]
    fn group_scan() {
        assert_eq!(
            scan_groups(r"(a)(?:b)(?<n>c)[(]\((?=d)"),
            (2, vec![("n".to_owned(), 2)])
        );
    }

    #[test]
    fn syntax_errors() {
        assert_eq!(reason("a)"), Reason::UnmatchedParen);
        assert_eq!(reason("(a"), Reason::UnexpectedEnd);
        assert_eq!(reason("[a"), Reason::UnexpectedEnd);
        assert_eq!(reason("a\\"), Reason::UnexpectedEnd);
        assert_eq!(reason("*a"), Reason::NothingToRepeat);
        assert_eq!(reason("{2}"), Reason::NothingToRepeat);
        assert_eq!(reason("^*"), Reason::NothingToRepeat);
        assert_eq!(reason(r"\b+"), Reason::NothingToRepeat);
        assert_eq!(reason("a**"), Reason::NothingToRepeat);
        assert_eq!(reason("a{3,2}"), Reason::BadCount);
        assert_eq!(reason("[z-a]"), Reason::RangeOutOfOrder);
        assert_eq!(reason(r"(a)\2"), Reason::UnknownGroup);
        assert_eq!(
            reason(r"(a\1)"),
            Reason::Unsupported("back-reference inside its own group")
        );
        assert_eq!(reason(r"(?=a)*"), Reason::Unsupported("quantified look-around"));
        let repeated = Reason::Unsupported("back-reference to a group inside a repetition");
        assert_eq!(reason(r"(?:(a)|b)+\1"), repeated);
        assert_eq!(reason(r"(?:(a)|b){2}\1"), repeated);
        assert!(parse(r"(?:(a)|b)?\1").is_ok());
        assert_eq!(reason(r"(?>a)"), Reason::Unsupported("this kind of group"));
        assert_eq!(reason(r"\p{Greek}"), Reason::UnknownProperty("Greek".to_owned()));
    }

    #[test]
    fn java_and_ecma_disagree() {
        for src in [
            r"\a", r"\e", r"\z", r"\Q", r"\x{41}", r"\u{41}", r"\pL", r"\01", r"\c1", r"[\1]", "[a[b]]", "[a&&b]",
        ] {
            assert!(matches!(reason(src), Reason::Ambiguous(_)), "{src}");
        }
    }

    #[test]
    fn error_names_pattern_and_offset() {
        let err = parse("ab[z-a]").unwrap_err();
        assert_eq!((err.pattern.as_str(), err.offset), ("ab[z-a]", 3));
        assert_eq!(
            err.to_string(),
            "cannot translate pattern \"ab[z-a]\" at byte 3: range out of order in character class"
        );
    }

    #[test]
    fn captures_are_numbered_by_opening_paren() {
        let parsed = parse(r"((a)(?<x>b))\k<x>\2").unwrap();
        assert!(parsed.has_backrefs);
        let Node::Concat(items) = parsed.root else { panic!() };
        assert_eq!(items[1], Node::BackRef(3));
        assert_eq!(items[2], Node::BackRef(2));
    }

    #[test]
    fn flag_group_scope_ends_with_its_group() {
        let with_flag = parse("(?:(?i)a)a").unwrap().root;
        let Node::Concat(items) = with_flag else { panic!() };
        assert_ne!(items[0], items[1]);
        assert_eq!(parse("(?i:a)").unwrap().root, parse("(?i)a").unwrap().root);
    }
}
