//! The compiled pattern and its matching, which allocates nothing.
//!
//! A pattern compiles to a tree keyed by path segments (a key `"a.b"` and a nested `{"a":
//! {"b": …}}` are one path, as AWS flattens both with dots). Matching walks the event along the
//! tree only: an event's fields the pattern does not name are never visited. Where the event
//! holds an array, one element must satisfy everything the pattern asks below that point, so
//! that two fields are never matched from two different elements of one array (AWS's "array
//! consistency").

use std::net::IpAddr;

use serde_json::{Map, Value};

use crate::compile::comparable;
use crate::Attribute;

/// One level of a pattern: what it asks of the value at its path.
#[derive(Debug, Default)]
pub(crate) struct Node {
    /// Match values for this exact path (`"path": [ … ]`).
    pub(crate) field: Option<Field>,
    /// Deeper paths, by their next segment.
    pub(crate) children: Vec<(Box<str>, Node)>,
    /// `$or` groups at this level: each needs one of its alternatives to hold.
    pub(crate) ors: Vec<Vec<Node>>,
    /// Whether the children and `$or` groups hold where the value is missing.
    absent_ok: bool,
}

/// A field's list: it holds if any of its matchers matches a value at the path.
#[derive(Debug)]
pub(crate) struct Field {
    matchers: Vec<Matcher>,
    /// Whether `{"exists": false}` is among them (the field may be missing).
    absent_ok: bool,
}

impl Field {
    pub(crate) fn new(matchers: Vec<Matcher>) -> Field {
        let absent_ok = matchers.iter().any(|m| matches!(m, Matcher::Exists(false)));
        Field { matchers, absent_ok }
    }

    pub(crate) fn len(&self) -> usize {
        self.matchers.len()
    }

    /// Whether a value at the path satisfies the field, and whether it held any leaf at all.
    fn scan(&self, value: &Value) -> (bool, bool) {
        match value {
            Value::Array(items) => {
                let mut present = false;
                for item in items {
                    let (hit, here) = self.scan(item);
                    if hit {
                        return (true, true);
                    }
                    present |= here;
                }
                (false, present)
            }
            Value::Object(_) => (false, false),
            leaf => (self.leaf(&Leaf::of(leaf)), true),
        }
    }

    fn leaf(&self, leaf: &Leaf<'_>) -> bool {
        self.matchers.iter().any(|m| m.matches(leaf))
    }

    /// Whether the field holds given what was found at its path.
    fn holds(&self, hit: bool, present: bool) -> bool {
        hit || (self.absent_ok && !present)
    }
}

/// A set of strings (small: a linear scan beats hashing at the sizes patterns have).
#[derive(Debug)]
pub(crate) struct Strings(pub(crate) Vec<Box<str>>);

/// One match value or expression.
#[derive(Debug)]
pub(crate) enum Matcher {
    Exact(Box<str>),
    /// An exact value that is an IP address: it matches the address however written.
    ExactIp(Box<str>, Cidr),
    ExactNumber(Num),
    Bool(bool),
    Null,
    Prefix(Box<str>),
    Suffix(Box<str>),
    /// Folded to lower case.
    PrefixIgnoreCase(Box<str>),
    SuffixIgnoreCase(Box<str>),
    EqualsIgnoreCase(Box<str>),
    Wildcard(Glob),
    AnythingBut(Strings),
    AnythingButNumber(Vec<i64>),
    AnythingButPrefix(Strings),
    AnythingButSuffix(Strings),
    AnythingButWildcard(Vec<Glob>),
    AnythingButIgnoreCase(Strings),
    /// Bounds in comparable form, each with whether it is inclusive.
    Numeric {
        low: Option<(i64, bool)>,
        high: Option<(i64, bool)>,
    },
    Exists(bool),
    Cidr(Cidr),
}

/// A value of the event at a pattern's path.
pub(crate) enum Leaf<'a> {
    Str(&'a str),
    Num(Num),
    Bool(bool),
    Null,
}

impl<'a> Leaf<'a> {
    fn of(v: &'a Value) -> Leaf<'a> {
        match v {
            Value::String(s) => Leaf::Str(s),
            Value::Number(n) => Leaf::Num(Num::of(n)),
            Value::Bool(b) => Leaf::Bool(*b),
            _ => Leaf::Null,
        }
    }
}

/// A number: its value and, when it is a whole number, its exact integer.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Num {
    pub(crate) f: f64,
    int: Option<i128>,
}

impl Num {
    pub(crate) fn parse(text: &str) -> Num {
        Num {
            f: text.parse().unwrap_or(f64::NAN),
            int: text.parse().ok(),
        }
    }

    fn of(n: &serde_json::Number) -> Num {
        let int = n.as_i64().map(i128::from).or_else(|| n.as_u64().map(i128::from));
        Num {
            f: n.as_f64().unwrap_or(f64::NAN),
            int,
        }
    }

    fn equals(&self, other: &Num) -> bool {
        if let (Some(a), Some(b)) = (self.int, other.int) {
            return a == b;
        }
        match (comparable(self.f), comparable(other.f)) {
            (Some(a), Some(b)) => a == b,
            _ => self.f == other.f,
        }
    }
}

impl Matcher {
    fn matches(&self, leaf: &Leaf<'_>) -> bool {
        use Matcher as M;
        match (self, leaf) {
            (M::Exists(present), _) => *present,
            (M::Exact(s), Leaf::Str(v)) => **s == **v,
            (M::ExactIp(s, ip), Leaf::Str(v)) => **s == **v || ip.contains(v),
            (M::ExactNumber(n), Leaf::Num(v)) => n.equals(v),
            (M::Bool(b), Leaf::Bool(v)) => b == v,
            (M::Null, Leaf::Null) => true,
            (M::Prefix(p), Leaf::Str(v)) => v.starts_with(&**p),
            (M::Suffix(p), Leaf::Str(v)) => v.ends_with(&**p),
            (M::PrefixIgnoreCase(p), Leaf::Str(v)) => folded_prefix(v, p),
            (M::SuffixIgnoreCase(p), Leaf::Str(v)) => folded_suffix(v, p),
            (M::EqualsIgnoreCase(p), Leaf::Str(v)) => folded_equals(v, p),
            (M::Wildcard(g), Leaf::Str(v)) => g.matches(v.as_bytes()),
            (M::Numeric { low, high }, Leaf::Num(v)) => {
                let Some(k) = comparable(v.f) else {
                    return false;
                };
                low.is_none_or(|(b, inc)| k > b || (inc && k == b))
                    && high.is_none_or(|(t, inc)| k < t || (inc && k == t))
            }
            (M::Cidr(c), Leaf::Str(v)) => c.contains(v),
            (M::AnythingBut(set), Leaf::Str(v)) => !set.0.iter().any(|s| **s == **v),
            (M::AnythingButNumber(keys), Leaf::Num(v)) => comparable(v.f).is_none_or(|k| !keys.contains(&k)),
            (M::AnythingButPrefix(set), Leaf::Str(v)) => !set.0.iter().any(|p| v.starts_with(&**p)),
            (M::AnythingButSuffix(set), Leaf::Str(v)) => !set.0.iter().any(|p| v.ends_with(&**p)),
            (M::AnythingButWildcard(globs), Leaf::Str(v)) => !globs.iter().any(|g| g.matches(v.as_bytes())),
            (M::AnythingButIgnoreCase(set), Leaf::Str(v)) => !set.0.iter().any(|p| folded_equals(v, p)),
            // Anything-but holds for a value of another type than its own.
            (M::AnythingBut(_), _)
            | (M::AnythingButPrefix(_), _)
            | (M::AnythingButSuffix(_), _)
            | (M::AnythingButWildcard(_), _)
            | (M::AnythingButIgnoreCase(_), _) => true,
            (M::AnythingButNumber(_), _) => true,
            _ => false,
        }
    }
}

fn lower(s: &str) -> impl Iterator<Item = char> + '_ {
    s.chars().flat_map(char::to_lowercase)
}

fn folded_equals(v: &str, folded: &str) -> bool {
    if v.is_ascii() {
        return v.len() == folded.len() && v.bytes().zip(folded.bytes()).all(|(a, b)| a.to_ascii_lowercase() == b);
    }
    lower(v).eq(folded.chars())
}

fn folded_prefix(v: &str, folded: &str) -> bool {
    let mut value = lower(v);
    folded.chars().all(|c| value.next() == Some(c))
}

fn folded_suffix(v: &str, folded: &str) -> bool {
    let mut value = v.chars().rev().flat_map(|c| {
        let mut l: Vec<char> = c.to_lowercase().collect();
        l.reverse();
        l
    });
    folded.chars().rev().all(|c| value.next() == Some(c))
}

/// A wildcard pattern: literal pieces between `*`s.
#[derive(Debug)]
pub(crate) struct Glob {
    pieces: Vec<Vec<u8>>,
}

impl Glob {
    /// Parses `*` and the escapes `\*` and `\\`, as AWS does (positions are byte offsets).
    pub(crate) fn parse(text: &str) -> Result<Glob, String> {
        let bytes = text.as_bytes();
        let mut pieces = vec![Vec::new()];
        let mut i = 0;
        while i < bytes.len() {
            match bytes[i] {
                b'*' => {
                    if bytes.get(i + 1) == Some(&b'*') {
                        return Err(format!("Consecutive wildcard characters at pos {}", i + 1));
                    }
                    pieces.push(Vec::new());
                }
                b'\\' => match bytes.get(i + 1) {
                    Some(&c @ (b'*' | b'\\')) => {
                        pieces.last_mut().expect("one piece").push(c);
                        i += 1;
                    }
                    _ => return Err(format!("Invalid escape character at pos {i}")),
                },
                c => pieces.last_mut().expect("one piece").push(c),
            }
            i += 1;
        }
        let glob = Glob { pieces };
        if glob.complexity() > COMPLEXITY_LIMIT {
            return Err(TOO_COMPLEX.into());
        }
        Ok(glob)
    }

    pub(crate) fn matches(&self, s: &[u8]) -> bool {
        let p = &self.pieces;
        if p.len() == 1 {
            return s == p[0].as_slice();
        }
        let (first, last) = (&p[0], &p[p.len() - 1]);
        if s.len() < first.len() + last.len() || !s.starts_with(first) || !s.ends_with(last) {
            return false;
        }
        let mut rest = &s[first.len()..s.len() - last.len()];
        for piece in &p[1..p.len() - 1] {
            if piece.is_empty() {
                continue;
            }
            match rest.windows(piece.len()).position(|w| w == piece.as_slice()) {
                Some(at) => rest = &rest[at + piece.len()..],
                None => return false,
            }
        }
        true
    }

    /// The most states a matcher following this pattern can be in at once, over all inputs
    /// (found by exploring the sets of states reachable; a pattern whose exploration runs long
    /// is complex by that fact).
    fn complexity(&self) -> usize {
        let stars = self.pieces.len() - 1;
        if stars < 2 {
            return stars;
        }
        // States: positions in the pattern, a star being a state that loops.
        let mut tokens: Vec<Option<u8>> = Vec::new();
        for (i, piece) in self.pieces.iter().enumerate() {
            if i > 0 {
                tokens.push(None);
            }
            tokens.extend(piece.iter().map(|&b| Some(b)));
        }
        let n = tokens.len();
        if n >= 128 {
            return usize::MAX;
        }
        let closure = |mut set: u128| {
            // A star may match nothing: being before it is being after it too.
            for (i, t) in tokens.iter().enumerate() {
                if set & (1 << i) != 0 && t.is_none() {
                    set |= 1 << (i + 1);
                }
            }
            set
        };
        let mut alphabet: Vec<Option<u8>> = tokens.iter().flatten().map(|&b| Some(b)).collect();
        alphabet.sort_unstable();
        alphabet.dedup();
        alphabet.push(None);
        let start = closure(1);
        let mut seen = vec![start];
        let mut queue = vec![start];
        let mut most = 0;
        while let Some(set) = queue.pop() {
            most = most.max(set.count_ones() as usize);
            for &c in &alphabet {
                let mut next = 0u128;
                for (i, t) in tokens.iter().enumerate() {
                    if set & (1 << i) == 0 {
                        continue;
                    }
                    match t {
                        None => next |= 1 << i,
                        Some(b) if Some(*b) == c => next |= 1 << (i + 1),
                        Some(_) => {}
                    }
                }
                let next = closure(next);
                if next != 0 && !seen.contains(&next) {
                    if seen.len() > 4096 {
                        return usize::MAX;
                    }
                    seen.push(next);
                    queue.push(next);
                }
            }
        }
        most
    }
}

const COMPLEXITY_LIMIT: usize = 10;
pub(crate) const TOO_COMPLEX: &str = "Rule is too complex - try using fewer wildcard characters or fewer repeating character sequences after a wildcard character";

/// An address range from a CIDR block (AWS's ranges run from the address as written, not
/// masked, to its last address in the block).
#[derive(Debug)]
pub(crate) struct Cidr {
    v6: bool,
    low: u128,
    high: u128,
}

impl Cidr {
    pub(crate) fn parse(text: &str) -> Result<Cidr, String> {
        // Split as Java splits: trailing empty parts dropped.
        let mut parts: Vec<&str> = text.split('/').collect();
        while parts.last() == Some(&"") {
            parts.pop();
        }
        if parts.len() != 2 {
            return Err("Malformed CIDR, one '/' required".into());
        }
        let bits = java_int(parts[1]).ok_or("Malformed CIDR, mask bits must be an integer")?;
        if bits < 0 {
            return Err("Malformed CIDR, mask bits must not be negative".into());
        }
        let ip = ip(parts[0]).ok_or_else(|| format!("Nonstandard IP address: {}", parts[0]))?;
        let (v6, width, low) = match ip {
            IpAddr::V4(a) => {
                if bits > 31 {
                    return Err("IPv4 mask bits must be < 32".into());
                }
                (false, 32, u128::from(u32::from(a)))
            }
            IpAddr::V6(a) => {
                if bits > 127 {
                    return Err("IPv6 mask bits must be < 128".into());
                }
                (true, 128, u128::from(a))
            }
        };
        let host = width - bits as u32;
        let mask = if host == 128 { u128::MAX } else { (1u128 << host) - 1 };
        Ok(Cidr {
            v6,
            low,
            high: low | mask,
        })
    }

    /// The one-address range of a value that is an IP address.
    pub(crate) fn single(text: &str) -> Option<Cidr> {
        let (v6, low) = match ip(text)? {
            IpAddr::V4(a) => (false, u128::from(u32::from(a))),
            IpAddr::V6(a) => (true, u128::from(a)),
        };
        Some(Cidr { v6, low, high: low })
    }

    fn contains(&self, value: &str) -> bool {
        match ip(value) {
            Some(IpAddr::V4(a)) if !self.v6 => (self.low..=self.high).contains(&u128::from(u32::from(a))),
            Some(IpAddr::V6(a)) if self.v6 => (self.low..=self.high).contains(&u128::from(a)),
            _ => false,
        }
    }
}

fn ip(text: &str) -> Option<IpAddr> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_hexdigit() || b == b'.' || b == b':') {
        return None;
    }
    text.parse().ok()
}

/// Java's `Integer.parseInt`: an optional sign and decimal digits, within 32 bits.
fn java_int(text: &str) -> Option<i32> {
    let digits = text.strip_prefix(['+', '-']).unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

impl Node {
    /// The node at a path below this one, made if missing.
    pub(crate) fn child_mut(&mut self, path: &[Box<str>]) -> &mut Node {
        let mut node = self;
        for seg in path {
            let at = match node.children.iter().position(|(k, _)| k == seg) {
                Some(at) => at,
                None => {
                    node.children.push((seg.clone(), Node::default()));
                    node.children.len() - 1
                }
            };
            node = &mut node.children[at].1;
        }
        node
    }

    /// Works out, bottom up, which levels hold where their value is missing.
    pub(crate) fn finish(&mut self) {
        for (_, child) in &mut self.children {
            child.finish();
        }
        for group in &mut self.ors {
            for alt in group.iter_mut() {
                alt.finish();
            }
        }
        self.absent_ok = self.children.iter().all(|(_, c)| c.missing_ok())
            && self.ors.iter().all(|group| group.iter().any(|alt| alt.absent_ok));
    }

    /// Whether this path may be missing from the event.
    fn missing_ok(&self) -> bool {
        self.field.as_ref().is_none_or(|f| f.absent_ok) && self.absent_ok
    }

    /// Whether a field nests below the top level (in any alternative).
    pub(crate) fn nested(&self) -> bool {
        self.children.iter().any(|(_, c)| c.has_structure()) || self.ors.iter().flatten().any(Node::nested)
    }

    fn has_structure(&self) -> bool {
        !self.children.is_empty() || !self.ors.is_empty()
    }

    /// The most top-level keys one alternative of the pattern names.
    pub(crate) fn max_keys(&self) -> usize {
        self.children.len()
            + self
                .ors
                .iter()
                .map(|g| g.iter().map(Node::max_keys).max().unwrap_or(0))
                .sum::<usize>()
    }

    /// SNS's count of combinations: over each alternative, the product of each field's
    /// values times its nesting depth.
    pub(crate) fn combinations(&self, depth: u64) -> u64 {
        let mut total: u64 = 1;
        for (_, child) in &self.children {
            if let Some(f) = &child.field {
                total = total.saturating_mul(depth.saturating_mul(f.len() as u64));
            }
            if child.has_structure() {
                total = total.saturating_mul(child.combinations(depth + 1));
            }
        }
        for group in &self.ors {
            let sum = group
                .iter()
                .map(|alt| alt.combinations(depth))
                .fold(0u64, u64::saturating_add);
            total = total.saturating_mul(sum);
        }
        total
    }

    /// Whether the pattern holds for an event (or message body).
    pub(crate) fn matches_value(&self, value: &Value) -> bool {
        match value {
            Value::Object(map) => self.matches_object(map),
            Value::Array(items) => {
                items.iter().any(|item| self.matches_value(item)) || (items.is_empty() && self.absent_ok)
            }
            _ => self.absent_ok,
        }
    }

    fn matches_object(&self, map: &Map<String, Value>) -> bool {
        self.children.iter().all(|(seg, child)| child.holds_in(seg, map))
            && self
                .ors
                .iter()
                .all(|group| group.iter().any(|alt| alt.matches_object(map)))
    }

    /// Whether this node, at key `seg` of `map`, holds.
    fn holds_in(&self, seg: &str, map: &Map<String, Value>) -> bool {
        let value = map.get(seg);
        if let Some(field) = &self.field {
            let (hit, present) = value.map_or((false, false), |v| field.scan(v));
            if !field.holds(hit, present) {
                return false;
            }
        }
        if !self.has_structure() {
            return true;
        }
        if value.map_or(self.absent_ok, |v| self.matches_value(v)) {
            return true;
        }
        // AWS joins keys with dots: an event key "a.b" is the path a → b.
        map.iter().any(|(key, v)| {
            key.strip_prefix(seg)
                .and_then(|rest| rest.strip_prefix('.'))
                .and_then(|rest| self.chain(rest))
                .is_some_and(|node| node.holds_at(v))
        })
    }

    /// The node a dotted path leads to, when this node asks for that path alone.
    fn chain(&self, path: &str) -> Option<&Node> {
        let mut node = self;
        for seg in path.split('.') {
            if node.field.is_some() || !node.ors.is_empty() || node.children.len() != 1 {
                return None;
            }
            let (key, child) = &node.children[0];
            if **key != *seg {
                return None;
            }
            node = child;
        }
        Some(node)
    }

    /// Whether this node holds for a value found at its path.
    fn holds_at(&self, value: &Value) -> bool {
        if let Some(field) = &self.field {
            let (hit, present) = field.scan(value);
            if !field.holds(hit, present) {
                return false;
            }
        }
        !self.has_structure() || self.matches_value(value)
    }

    /// Whether the pattern holds for SNS message attributes.
    pub(crate) fn matches_attributes(&self, attributes: &[Attribute<'_>]) -> bool {
        self.children.iter().all(|(name, child)| {
            let Some(field) = &child.field else {
                return false;
            };
            let found = attributes
                .iter()
                .find(|a| a.name == &**name && a.kind() != AttributeKind::Binary);
            let (hit, present) = match found {
                None => (false, false),
                Some(a) => match a.kind() {
                    AttributeKind::String => (field.leaf(&Leaf::Str(a.value)), true),
                    AttributeKind::Number => (field.leaf(&Leaf::Num(Num::parse(a.value))), true),
                    AttributeKind::StringArray => match serde_json::from_str::<Value>(a.value) {
                        Ok(v @ Value::Array(_)) => field.scan(&v),
                        _ => (false, false),
                    },
                    AttributeKind::Binary => (false, false),
                },
            };
            field.holds(hit, present)
        }) && self
            .ors
            .iter()
            .all(|group| group.iter().any(|alt| alt.matches_attributes(attributes)))
    }
}

/// How SNS reads an attribute's value, from its data type.
#[derive(Debug, PartialEq, Eq, Clone, Copy)]
pub(crate) enum AttributeKind {
    String,
    Number,
    StringArray,
    Binary,
}

impl AttributeKind {
    pub(crate) fn of(data_type: &str) -> AttributeKind {
        if data_type == "String.Array" || data_type == "Number.Array" {
            return AttributeKind::StringArray;
        }
        match data_type.split('.').next() {
            Some("Number") => AttributeKind::Number,
            Some("Binary") => AttributeKind::Binary,
            _ => AttributeKind::String,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compile::fold;

    #[test]
    fn globs_match_as_written() {
        let g = Glob::parse("a*b*c").unwrap();
        assert!(g.matches(b"abc"));
        assert!(g.matches(b"aXXbYYc"));
        assert!(!g.matches(b"acb"));
        assert!(!g.matches(b"ab"));
        let g = Glob::parse(r"a\*b").unwrap();
        assert!(g.matches(b"a*b"));
        assert!(!g.matches(b"axb"));
        assert!(Glob::parse("*").unwrap().matches(b""));
    }

    #[test]
    fn folding_compares_beyond_ascii() {
        assert!(folded_equals("ÄBC", &fold("äbc")));
        assert!(folded_prefix("Straße", &fold("STR")));
        assert!(folded_suffix("FILE.PNG", &fold(".png")));
        assert!(!folded_suffix("png", &fold(".png")));
    }
}
