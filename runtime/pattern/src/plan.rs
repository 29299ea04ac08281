//! From a parsed pattern to a [`Translation`]: one plain regex when
//! possible, otherwise a few plain regexes combined, and fancy-regex only as
//! the last resort (fancy-regex allocates on every match).
//!
//! Look-arounds are removed in two general ways:
//!
//! * **Absorption.** A one-character look-ahead in front of a sequence that
//!   consumes at least one character only restricts that sequence's first
//!   character: `(?!-)[a-z-]{1,63}` is `[a-z][a-z-]{0,62}`. Likewise a
//!   one-character look-behind restricts the last character of the sequence
//!   before it.
//! * **Hoisting.** A look-ahead at the start of a top-level alternative that
//!   can only match at the start of the input is a test of the whole input:
//!   `^(?!aws:)[a-z:]*$` holds when `^[a-z:]*$` matches and `^(?:aws:)` does
//!   not. A look-behind at the end of an alternative anchored at the end is a
//!   test of the end of the input. A negative look-ahead whose own body is
//!   anchored with `^` holds trivially after the first character, which
//!   makes it a test of the whole input too.
//!
//! A top-level alternative that is just a huge counted repetition of one
//! character class, such as `^.{1,100000}$`, becomes a class regex plus a
//! length check: the regex crate would build 100 000 copies of the class.

use crate::ast::{Assertion, Node};
use crate::charset::CharSet;
use crate::emit::emit;
use crate::error::TranslateError;
use crate::parse::parse;
use crate::Engine;

/// Repetition counts above this are checked by length instead of by regex.
const HUGE_COUNT: u32 = 1000;

/// Where a pattern must match.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Anchoring {
    /// Anywhere in the value, like ECMA-262's `RegExp.prototype.test` (what
    /// Smithy specifies: patterns are not implicitly anchored).
    Search,
    /// The whole value, like Java's `Matcher.matches`, as if the pattern were
    /// written `^(?:…)$`.
    FullMatch,
}

/// One condition on a whole value, part of [`Translation::AnyOf`] and of
/// [`Pattern::any_of`](crate::Pattern::any_of).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Check<S = &'static str> {
    /// The regex (regex-crate syntax) matches somewhere in the value.
    Matches(S),
    /// The regex (regex-crate syntax) matches nowhere in the value.
    Rejects(S),
    /// The value has at least `min` and at most `max` characters (Unicode
    /// scalar values).
    CharCount {
        /// Fewest characters.
        min: u32,
        /// Most characters, `None` for no limit.
        max: Option<u32>,
    },
}

impl<S: AsRef<str>> Check<S> {
    /// The check borrowing its regex.
    pub fn as_deref(&self) -> Check<&str> {
        match self {
            Check::Matches(regex) => Check::Matches(regex.as_ref()),
            Check::Rejects(regex) => Check::Rejects(regex.as_ref()),
            Check::CharCount { min, max } => Check::CharCount { min: *min, max: *max },
        }
    }
}

/// An ECMA-262 pattern translated for the regex crate or fancy-regex.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Translation {
    /// One regular expression decides. It is fancy-regex syntax only when
    /// the pattern needs back-references or look-arounds that could not be
    /// removed.
    Single {
        /// The regular expression.
        regex: String,
        /// The engine that runs it.
        engine: Engine,
    },
    /// A value matches when every check of at least one clause holds. All
    /// regexes are regex-crate syntax.
    AnyOf(Vec<Vec<Check<String>>>),
}

impl Translation {
    /// A Rust expression building a [`Pattern`](crate::Pattern) for this
    /// translation of `source`, for generated code: usable in a `static`.
    ///
    /// ```
    /// use stratus_pattern::{translate, Anchoring, Pattern};
    ///
    /// let source = "^(?!a)b*$";
    /// assert_eq!(
    ///     translate(source, Anchoring::Search)?.rust_expr(source),
    ///     r#"::stratus_pattern::Pattern::any_of("^(?!a)b*$", &[&[::stratus_pattern::Check::Matches("^b*$"), ::stratus_pattern::Check::Rejects("^a")]])"#,
    /// );
    /// // The same text, compiled:
    /// static P: Pattern = ::stratus_pattern::Pattern::any_of("^(?!a)b*$", &[&[::stratus_pattern::Check::Matches("^b*$"), ::stratus_pattern::Check::Rejects("^a")]]);
    /// assert!(P.is_match("bb") && !P.is_match("a"));
    /// # Ok::<(), stratus_pattern::TranslateError>(())
    /// ```
    pub fn rust_expr(&self, source: &str) -> String {
        const KRATE: &str = "::stratus_pattern";
        match self {
            Translation::Single { regex, engine } => {
                format!("{KRATE}::Pattern::new({source:?}, {regex:?}, {KRATE}::Engine::{engine:?})")
            }
            Translation::AnyOf(clauses) => {
                let clauses: Vec<String> = clauses
                    .iter()
                    .map(|clause| {
                        let checks: Vec<String> = clause
                            .iter()
                            .map(|check| match check {
                                Check::Matches(regex) => format!("{KRATE}::Check::Matches({regex:?})"),
                                Check::Rejects(regex) => format!("{KRATE}::Check::Rejects({regex:?})"),
                                Check::CharCount { min, max } => {
                                    format!("{KRATE}::Check::CharCount {{ min: {min}, max: {max:?} }}")
                                }
                            })
                            .collect();
                        format!("&[{}]", checks.join(", "))
                    })
                    .collect();
                format!("{KRATE}::Pattern::any_of({source:?}, &[{}])", clauses.join(", "))
            }
        }
    }
}

/// Translates an ECMA-262 pattern (with the Java-isms of AWS models) for
/// matching with the given anchoring.
///
/// # Errors
///
/// When the pattern is not valid ECMA-262, or uses syntax whose meaning
/// differs between ECMA-262 and Java, or that this translator does not
/// support; the error names the pattern and the byte offset.
pub fn translate(ecma: &str, anchoring: Anchoring) -> Result<Translation, TranslateError> {
    let parsed = parse(ecma)?;
    if parsed.has_backrefs {
        return Ok(fancy(parsed.root, anchoring));
    }
    let root = absorb(parsed.root.without_captures());
    Ok(split(root.clone(), anchoring).unwrap_or_else(|| fancy(root, anchoring)))
}

fn fancy(root: Node, anchoring: Anchoring) -> Translation {
    Translation::Single {
        regex: emit(&anchored(root, anchoring), Engine::Fancy),
        engine: Engine::Fancy,
    }
}

fn anchored(node: Node, anchoring: Anchoring) -> Node {
    match anchoring {
        Anchoring::Search => node,
        Anchoring::FullMatch => Node::Concat(vec![Node::Assert(Assertion::Start), node, Node::Assert(Assertion::End)]),
    }
}

fn plain(node: &Node) -> String {
    emit(node, Engine::Regex)
}

/// The translation without fancy-regex, or `None` if a look-around stays.
fn split(root: Node, anchoring: Anchoring) -> Option<Translation> {
    let mut simple = Vec::new();
    let mut clauses = Vec::new();
    for alt in root.into_alternatives() {
        let mut items = alt.clone().into_items();
        if anchoring == Anchoring::FullMatch {
            items.insert(0, Node::Assert(Assertion::Start));
            items.push(Node::Assert(Assertion::End));
        }
        if alt.has_look() || char_count(&items).is_some() {
            clauses.extend(alternative_clauses(items)?);
        } else {
            simple.push(alt);
        }
    }
    let simple = match simple.len() {
        0 => None,
        1 => simple.pop(),
        _ => Some(Node::Alt(simple)),
    }
    .map(|node| plain(&anchored(node, anchoring)));
    Some(match simple {
        Some(regex) if clauses.is_empty() => Translation::Single {
            regex,
            engine: Engine::Regex,
        },
        Some(regex) => {
            clauses.insert(0, vec![Check::Matches(regex)]);
            Translation::AnyOf(clauses)
        }
        None => Translation::AnyOf(clauses),
    })
}

/// The clauses equivalent to one top-level alternative, given as items
/// (anchors included), or `None` if a look-around cannot be hoisted.
fn alternative_clauses(items: Vec<Node>) -> Option<Vec<Vec<Check<String>>>> {
    let first = items.iter().position(|n| !n.is_zero_width()).unwrap_or(items.len());
    let after_last = items.iter().rposition(|n| !n.is_zero_width()).map_or(first, |i| i + 1);
    let at_start = items[..first].contains(&Node::Assert(Assertion::Start));
    let at_end = items[after_last..].contains(&Node::Assert(Assertion::End));

    let (mut rest, mut aheads, mut behinds) = (Vec::new(), Vec::new(), Vec::new());
    for (i, item) in items.into_iter().enumerate() {
        match item {
            Node::Look {
                behind: false,
                negated,
                node,
            } if i < first => aheads.push((negated, *node)),
            Node::Look {
                behind: true,
                negated,
                node,
            } if i >= after_last && at_end => behinds.push((negated, *node)),
            other => rest.push(other),
        }
    }
    if rest
        .iter()
        .chain(aheads.iter().map(|a| &a.1))
        .chain(behinds.iter().map(|b| &b.1))
        .any(Node::has_look)
    {
        return None;
    }

    let test = |negated: bool, regex: String| {
        if negated {
            Check::Rejects(regex)
        } else {
            Check::Matches(regex)
        }
    };
    let behind_checks: Vec<_> = behinds
        .into_iter()
        .map(|(negated, body)| test(negated, plain(&Node::concat(vec![body, Node::Assert(Assertion::End)]))))
        .collect();

    let mut clauses = Vec::new();
    if !at_start && !aheads.is_empty() {
        // Unanchored: look-aheads that only hold at the start of the input
        // can still be hoisted; negative ones hold anywhere else.
        if !aheads.iter().all(|(_, body)| starts_anchored(body)) {
            return None;
        }
        if aheads.iter().all(|(negated, _)| *negated) {
            let mut later = vec![Node::Set(CharSet::any())];
            later.extend(rest.iter().cloned());
            let mut clause = vec![Check::Matches(plain(&Node::concat(later)))];
            clause.extend(behind_checks.iter().cloned());
            clauses.push(clause);
        }
        rest.insert(0, Node::Assert(Assertion::Start));
    }
    let mut clause = match char_count(&rest) {
        Some((set, min, max)) => {
            let any_length = [
                Node::Assert(Assertion::Start),
                Node::repeat(Node::Set(set), 0, None, true),
                Node::Assert(Assertion::End),
            ];
            vec![
                Check::CharCount { min, max },
                Check::Matches(plain(&Node::concat(any_length.into()))),
            ]
        }
        None => vec![Check::Matches(plain(&Node::concat(rest)))],
    };
    clause.extend(aheads.into_iter().map(|(negated, body)| {
        test(
            negated,
            plain(&Node::concat(vec![Node::Assert(Assertion::Start), body])),
        )
    }));
    clause.extend(behind_checks);
    clauses.insert(0, clause);
    Some(clauses)
}

/// Whether every alternative of `node` asserts `^` before consuming.
fn starts_anchored(node: &Node) -> bool {
    node.clone().into_alternatives().into_iter().all(|alt| {
        alt.into_items()
            .iter()
            .take_while(|n| n.is_zero_width())
            .any(|n| *n == Node::Assert(Assertion::Start))
    })
}

/// For items `^+ class{min,max} $+` with a huge count: the class and counts.
fn char_count(items: &[Node]) -> Option<(CharSet, u32, Option<u32>)> {
    let core = items
        .iter()
        .position(|n| !matches!(n, Node::Assert(Assertion::Start)))?;
    let Node::Repeat { node, min, max, .. } = &items[core] else {
        return None;
    };
    let Node::Set(set) = &**node else { return None };
    let anchored =
        core > 0 && core + 1 < items.len() && items[core + 1..].iter().all(|n| *n == Node::Assert(Assertion::End));
    (anchored && max.unwrap_or(*min) > HUGE_COUNT).then(|| (set.clone(), *min, *max))
}

/// The node with every one-character look-around that can be absorbed into
/// its neighbours removed.
fn absorb(node: Node) -> Node {
    match node {
        Node::Concat(items) => absorb_items(items.into_iter().map(absorb).collect()),
        Node::Alt(alts) => Node::Alt(alts.into_iter().map(absorb).collect()),
        Node::Repeat { node, min, max, greedy } => Node::repeat(absorb(*node), min, max, greedy),
        Node::Look { behind, negated, node } => Node::Look {
            behind,
            negated,
            node: Box::new(absorb(*node)),
        },
        leaf => leaf,
    }
}

fn absorb_items(items: Vec<Node>) -> Node {
    let items = Node::concat(items).into_items();
    for (i, item) in items.iter().enumerate() {
        let Node::Look { behind, negated, node } = item else {
            continue;
        };
        let Node::Set(set) = &**node else { continue };
        let allowed = if *negated { set.complement() } else { Some(set.clone()) };
        let Some(allowed) = allowed else { continue };
        let (before, after) = (&items[..i], &items[i + 1..]);
        let replaced = if *behind {
            consumes(before)
                .then(|| restrict_last(before, &allowed))
                .flatten()
                .map(|node| [&[node], after].concat())
        } else {
            consumes(after)
                .then(|| restrict_first(after, &allowed))
                .flatten()
                .map(|node| [before, &[node]].concat())
        };
        if let Some(replaced) = replaced {
            return absorb(Node::concat(replaced));
        }
    }
    Node::concat(items)
}

/// Whether every match of the sequence consumes a character.
fn consumes(items: &[Node]) -> bool {
    items.iter().map(Node::min_len).sum::<u64>() > 0
}

/// The sequence restricted to matches whose first character is in
/// `allowed`; the sequence must consume a character.
fn restrict_first(items: &[Node], allowed: &CharSet) -> Option<Node> {
    let (first, rest) = items.split_first()?;
    match first {
        Node::Set(set) => Some(Node::concat([&[Node::Set(set.intersect(allowed)?)], rest].concat())),
        Node::Repeat { node, min, max, greedy } => {
            let Node::Set(set) = &**node else { return None };
            let head = Node::Set(set.intersect(allowed)?);
            let tail = Node::repeat(
                Node::Set(set.clone()),
                min.saturating_sub(1),
                max.map(|m| m - 1),
                *greedy,
            );
            let taken = Node::concat([&[head, tail], rest].concat());
            if *min > 0 {
                Some(taken)
            } else {
                Some(Node::alt(vec![taken, restrict_first(rest, allowed)?]))
            }
        }
        Node::Assert(_) => Some(Node::concat(vec![first.clone(), restrict_first(rest, allowed)?])),
        Node::Concat(inner) => restrict_first(&[inner, rest].concat(), allowed),
        Node::Alt(alts) => alts
            .iter()
            .map(|alt| restrict_first(&[&alt.clone().into_items(), rest].concat(), allowed))
            .collect::<Option<_>>()
            .map(Node::alt),
        _ => None,
    }
}

/// The sequence restricted to matches whose last character is in
/// `allowed`; the sequence must consume a character.
fn restrict_last(items: &[Node], allowed: &CharSet) -> Option<Node> {
    let (last, before) = items.split_last()?;
    match last {
        Node::Set(set) => Some(Node::concat([before, &[Node::Set(set.intersect(allowed)?)]].concat())),
        Node::Repeat { node, min, max, greedy } => {
            let Node::Set(set) = &**node else { return None };
            let head = Node::repeat(
                Node::Set(set.clone()),
                min.saturating_sub(1),
                max.map(|m| m - 1),
                *greedy,
            );
            let tail = Node::Set(set.intersect(allowed)?);
            let taken = Node::concat([before, &[head, tail]].concat());
            if *min > 0 {
                Some(taken)
            } else {
                Some(Node::alt(vec![taken, restrict_last(before, allowed)?]))
            }
        }
        Node::Assert(_) => Some(Node::concat(vec![restrict_last(before, allowed)?, last.clone()])),
        Node::Concat(inner) => restrict_last(&[before, inner].concat(), allowed),
        Node::Alt(alts) => alts
            .iter()
            .map(|alt| restrict_last(&[before, &alt.clone().into_items()].concat(), allowed))
            .collect::<Option<_>>()
            .map(Node::alt),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn single(src: &str, anchoring: Anchoring) -> (String, Engine) {
        match translate(src, anchoring).unwrap() {
            Translation::Single { regex, engine } => (regex, engine),
            other => panic!("{src}: {other:?}"),
        }
    }

    fn regex(src: &str) -> String {
        let (regex, engine) = single(src, Anchoring::Search);
        assert_eq!(engine, Engine::Regex, "{src}");
        regex
    }

    fn any_of(src: &str, anchoring: Anchoring) -> Vec<Vec<Check<String>>> {
        match translate(src, anchoring).unwrap() {
            Translation::AnyOf(clauses) => clauses,
            other => panic!("{src}: {other:?}"),
        }
    }

    fn m(regex: &str) -> Check<String> {
        Check::Matches(regex.to_owned())
    }

    fn r(regex: &str) -> Check<String> {
        Check::Rejects(regex.to_owned())
    }

    #[test]
    fn full_match_wraps_top_level_alternation() {
        assert_eq!(single("^a|b$", Anchoring::FullMatch).0, "^(?:^a|b$)$");
        assert_eq!(single("^a|b$", Anchoring::Search).0, "^a|b$");
    }

    #[test]
    fn one_character_look_ahead_is_absorbed() {
        assert_eq!(regex("(?!-)[a-z-]{1,3}x"), r"[a-z][\-a-z]{0,2}x");
        assert_eq!(regex("(?!-)[a-z-]{0,3}x"), r"[a-z][\-a-z]{0,2}x|x");
        assert_eq!(regex("(?=a)[a-z]+"), r"a[a-z]*");
        assert_eq!(regex(r"(?!-)(?:[a-z]|-)\b[a-z-]"), r"[a-z](?-u:\b)[\-a-z]");
        assert_eq!(regex(r"(?!a)a"), r"[^\x{0}-\x{10FFFF}]");
    }

    #[test]
    fn one_character_look_behind_is_absorbed() {
        assert_eq!(regex(r"[a-z-]{1,3}(?<!-)\."), r"[\-a-z]{0,2}[a-z]\.");
        assert_eq!(regex(r"x[a-z-]*(?<!-)\."), r"(?:x[\-a-z]*[a-z]|x)\.");
    }

    #[test]
    fn both_sides_absorbed() {
        assert_eq!(
            regex(r"((?!-)[A-Za-z0-9-]{1,63}(?<!-)\.)+"),
            r"(?:(?:[0-9A-Za-z][\-0-9A-Za-z]{0,61}[0-9A-Za-z]|[0-9A-Za-z])\.)+"
        );
    }

    #[test]
    fn look_ahead_at_anchored_start_is_hoisted() {
        assert_eq!(
            any_of(r"^(?!\s*$).+$", Anchoring::Search),
            vec![vec![
                m(r"^[\x{0}-\x{9}\x{B}\x{C}\x{E}-\x{2027}\x{202A}-\x{D7FF}\x{E000}-\x{10FFFF}]+$"),
                r(
                    r"^[\x{9}-\x{D}\x{20}\x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}]*$"
                )
            ]]
        );
        assert_eq!(
            any_of("^(?=.*b)a", Anchoring::Search)[0][1],
            m(r"^[\x{0}-\x{9}\x{B}\x{C}\x{E}-\x{2027}\x{202A}-\x{D7FF}\x{E000}-\x{10FFFF}]*b")
        );
    }

    #[test]
    fn full_match_anchors_look_aheads() {
        assert_eq!(
            any_of("(?!ab)[a-z]+", Anchoring::FullMatch),
            vec![vec![m("^[a-z]+$"), r("^ab")]]
        );
    }

    #[test]
    fn look_behind_at_anchored_end_is_hoisted() {
        assert_eq!(
            any_of(r"^[a-z.]*(?<!\.)$", Anchoring::Search),
            vec![vec![m(r"^[\.a-z]*$"), r(r"\.$")]]
        );
    }

    #[test]
    fn start_anchored_negative_look_ahead_without_anchor() {
        assert_eq!(
            any_of("a|(?!^[0-9]+$)[0-9a-z]+$", Anchoring::Search),
            vec![
                vec![m("a")],
                vec![m("^[0-9a-z]+$"), r("^^[0-9]+$")],
                vec![m(r"[\x{0}-\x{D7FF}\x{E000}-\x{10FFFF}][0-9a-z]+$")]
            ]
        );
    }

    #[test]
    fn unhoistable_look_arounds_need_fancy() {
        assert_eq!(
            single("(?!ab)[a-z]+", Anchoring::Search),
            ("(?!ab)[a-z]+".to_owned(), Engine::Fancy)
        );
        assert_eq!(single("^([a-z]|-(?!-))+$", Anchoring::Search).1, Engine::Fancy);
        assert_eq!(single("^a(?=b)", Anchoring::Search).1, Engine::Fancy);
    }

    #[test]
    fn back_references_need_fancy() {
        assert_eq!(
            single(r"(a)?b\1", Anchoring::FullMatch),
            (r"^(a)?b(?(1)\1|)$".to_owned(), Engine::Fancy)
        );
    }

    #[test]
    fn huge_counts_become_length_checks() {
        let dot = r"[\x{0}-\x{9}\x{B}\x{C}\x{E}-\x{2027}\x{202A}-\x{D7FF}\x{E000}-\x{10FFFF}]";
        assert_eq!(
            any_of("^.{1,100000}$", Anchoring::Search),
            vec![vec![
                Check::CharCount {
                    min: 1,
                    max: Some(100_000)
                },
                m(&format!("^{dot}*$"))
            ]]
        );
        assert_eq!(single(".{1,100000}", Anchoring::Search).0, format!("{dot}{{1,100000}}"));
        assert_eq!(single("^.{1,1000}$", Anchoring::Search).0, format!("^{dot}{{1,1000}}$"));
    }

    #[test]
    fn rust_expressions() {
        assert_eq!(
            translate("^a$", Anchoring::Search).unwrap().rust_expr("^a$"),
            r#"::stratus_pattern::Pattern::new("^a$", "^a$", ::stratus_pattern::Engine::Regex)"#
        );
        assert_eq!(
            translate("^(?!bc).{1,2000}$", Anchoring::Search)
                .unwrap()
                .rust_expr("…\"\\"),
            concat!(
                r#"::stratus_pattern::Pattern::any_of("…\"\\", &[&[::stratus_pattern::Check::CharCount { min: 1, max: Some(2000) }, "#,
                r#"::stratus_pattern::Check::Matches("^[\\x{0}-\\x{9}\\x{B}\\x{C}\\x{E}-\\x{2027}\\x{202A}-\\x{D7FF}\\x{E000}-\\x{10FFFF}]*$"), "#,
                r#"::stratus_pattern::Check::Rejects("^bc")]])"#
            )
        );
    }
}
