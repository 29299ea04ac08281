//! Writes a syntax tree as regex-crate or fancy-regex syntax.

use crate::ast::{Assertion, Node};
use crate::Engine;
use std::fmt::Write;

/// The node in the syntax of `engine`. Look-arounds and back-references
/// require [`Engine::Fancy`].
pub(crate) fn emit(node: &Node, engine: Engine) -> String {
    let mut out = String::new();
    write(node, engine, &mut out);
    out
}

fn write(node: &Node, engine: Engine, out: &mut String) {
    match node {
        Node::Empty => {}
        Node::Set(set) => set.emit(out),
        Node::Concat(items) => {
            for item in items {
                if matches!(item, Node::Alt(_)) {
                    write_group(item, engine, out);
                } else {
                    write(item, engine, out);
                }
            }
        }
        Node::Alt(alts) => {
            for (i, alt) in alts.iter().enumerate() {
                if i > 0 {
                    out.push('|');
                }
                write(alt, engine, out);
            }
        }
        Node::Capture { node, .. } => {
            out.push('(');
            write(node, engine, out);
            out.push(')');
        }
        Node::Repeat { node, min, max, greedy } => {
            if matches!(**node, Node::Set(_) | Node::Capture { .. } | Node::BackRef(_)) {
                write(node, engine, out);
            } else {
                write_group(node, engine, out);
            }
            let _ = match (min, max) {
                (0, None) => write!(out, "*"),
                (1, None) => write!(out, "+"),
                (0, Some(1)) => write!(out, "?"),
                (min, None) => write!(out, "{{{min},}}"),
                (min, Some(max)) if min == max => write!(out, "{{{min}}}"),
                (min, Some(max)) => write!(out, "{{{min},{max}}}"),
            };
            if !greedy {
                out.push('?');
            }
        }
        Node::Assert(assertion) => out.push_str(match (assertion, engine) {
            (Assertion::Start, _) => "^",
            (Assertion::End, _) => "$",
            (Assertion::WordBoundary, Engine::Regex) => r"(?-u:\b)",
            (Assertion::NotWordBoundary, Engine::Regex) => r"(?-u:\B)",
            // fancy-regex cannot switch Unicode off; spell the ASCII boundary out.
            (Assertion::WordBoundary, Engine::Fancy) => {
                r"(?:(?<=[0-9A-Z_a-z])(?![0-9A-Z_a-z])|(?<![0-9A-Z_a-z])(?=[0-9A-Z_a-z]))"
            }
            (Assertion::NotWordBoundary, Engine::Fancy) => {
                r"(?:(?<=[0-9A-Z_a-z])(?=[0-9A-Z_a-z])|(?<![0-9A-Z_a-z])(?![0-9A-Z_a-z]))"
            }
        }),
        Node::Look { behind, negated, node } => {
            debug_assert_eq!(engine, Engine::Fancy);
            out.push_str(match (behind, negated) {
                (false, false) => "(?=",
                (false, true) => "(?!",
                (true, false) => "(?<=",
                (true, true) => "(?<!",
            });
            write(node, engine, out);
            out.push(')');
        }
        Node::BackRef(index) => {
            debug_assert_eq!(engine, Engine::Fancy);
            // ECMA: a group that did not take part matches the empty string.
            let _ = write!(out, r"(?({index})\{index}|)");
        }
    }
}

fn write_group(node: &Node, engine: Engine, out: &mut String) {
    out.push_str("(?:");
    write(node, engine, out);
    out.push(')');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse;

    fn regex(src: &str) -> String {
        emit(&parse(src).unwrap().root.without_captures(), Engine::Regex)
    }

    fn fancy(src: &str) -> String {
        emit(&parse(src).unwrap().root, Engine::Fancy)
    }

    #[test]
    fn structure() {
        assert_eq!(
            regex("^(ab|c)+d*?e{2}f{2,}g{2,3}h?$"),
            "^(?:ab|c)+d*?e{2}f{2,}g{2,3}h?$"
        );
        assert_eq!(regex("a(?:)b|"), "ab|");
        assert_eq!(regex("(a|)"), "a|");
    }

    #[test]
    fn escapes_and_classes() {
        assert_eq!(regex(r"\d\w"), "[0-9][0-9A-Z_a-z]");
        assert_eq!(regex(r"\u0041\x42\cC\0\t\/\-\:"), r"AB\x{3}\x{0}\x{9}/\-:");
        assert_eq!(regex(r"[\w-_]"), r"[\-0-9A-Z_a-z]");
        assert_eq!(regex(r"[a-zA-Z0-9-_]"), r"[\-0-9A-Z_a-z]");
        assert_eq!(regex(r"[^:*$]"), r"[\x{0}-\#%-\)\+-9;-\x{D7FF}\x{E000}-\x{10FFFF}]");
    }

    #[test]
    fn word_boundaries() {
        assert_eq!(regex(r"\ba\B"), r"(?-u:\b)a(?-u:\B)");
        assert!(fancy(r"\b").starts_with(r"(?:(?<=[0-9A-Z_a-z])(?![0-9A-Z_a-z])|"));
    }

    #[test]
    fn fancy_keeps_captures_and_looks() {
        assert_eq!(fancy(r"(a)(?!b)(?<=c)\1"), r"(a)(?!b)(?<=c)(?(1)\1|)");
    }
}
