//! The syntax tree shared by the parser, the planner and the emitter.

use crate::charset::CharSet;

/// A zero-width assertion that every engine supports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Assertion {
    /// `^` without the multiline flag: the start of the input.
    Start,
    /// `$` without the multiline flag: the very end of the input.
    End,
    /// `\b`, with ECMA's ASCII notion of word characters.
    WordBoundary,
    /// `\B`.
    NotWordBoundary,
}

/// A node of a parsed pattern. Non-capturing groups leave no node of their
/// own: their content is an [`Node::Alt`] or [`Node::Concat`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Node {
    /// Matches the empty string.
    Empty,
    /// Matches one character of the set.
    Set(CharSet),
    /// Matches the nodes one after the other.
    Concat(Vec<Node>),
    /// Matches any one of the nodes.
    Alt(Vec<Node>),
    /// A capturing group, numbered from 1 in order of its `(`.
    Capture { index: u32, node: Box<Node> },
    /// `node{min,max}`; `max` is `None` when unbounded.
    Repeat {
        node: Box<Node>,
        min: u32,
        max: Option<u32>,
        greedy: bool,
    },
    /// A zero-width assertion.
    Assert(Assertion),
    /// `(?=…)`, `(?!…)`, `(?<=…)` or `(?<!…)`.
    Look {
        behind: bool,
        negated: bool,
        node: Box<Node>,
    },
    /// `\N`: what group N matched (the empty string if it did not take part).
    BackRef(u32),
}

impl Node {
    /// A concatenation, simplified when it has fewer than two parts.
    pub(crate) fn concat(mut items: Vec<Node>) -> Node {
        items.retain(|n| *n != Node::Empty);
        match items.len() {
            0 => Node::Empty,
            1 => items.pop().unwrap_or(Node::Empty),
            _ => Node::Concat(items),
        }
    }

    /// An alternation without the alternatives that can never match.
    pub(crate) fn alt(mut alts: Vec<Node>) -> Node {
        if alts.iter().any(Node::can_match) {
            alts.retain(Node::can_match);
        } else {
            alts.truncate(1);
        }
        match alts.len() {
            1 => alts.swap_remove(0),
            _ => Node::Alt(alts),
        }
    }

    /// Whether some input can match the node, as far as characters go (an
    /// empty class never matches).
    fn can_match(&self) -> bool {
        match self {
            Node::Set(set) => !set.is_empty(),
            Node::Concat(items) => items.iter().all(Node::can_match),
            Node::Alt(alts) => alts.iter().any(Node::can_match),
            Node::Capture { node, .. } => node.can_match(),
            Node::Repeat { node, min, .. } => *min == 0 || node.can_match(),
            Node::Empty | Node::Assert(_) | Node::Look { .. } | Node::BackRef(_) => true,
        }
    }

    /// `node{min,max}`, simplified for the trivial counts.
    pub(crate) fn repeat(node: Node, min: u32, max: Option<u32>, greedy: bool) -> Node {
        match (min, max) {
            (_, Some(0)) => Node::Empty,
            (1, Some(1)) => node,
            _ if node == Node::Empty => Node::Empty,
            _ => Node::Repeat {
                node: Box::new(node),
                min,
                max,
                greedy,
            },
        }
    }

    /// The fewest characters any match consumes.
    pub(crate) fn min_len(&self) -> u64 {
        match self {
            Node::Set(_) => 1,
            Node::Concat(items) => items.iter().map(Node::min_len).sum(),
            Node::Alt(alts) => alts.iter().map(Node::min_len).min().unwrap_or(0),
            Node::Capture { node, .. } => node.min_len(),
            Node::Repeat { node, min, .. } => u64::from(*min) * node.min_len(),
            Node::Empty | Node::Assert(_) | Node::Look { .. } | Node::BackRef(_) => 0,
        }
    }

    /// Whether a look-around occurs anywhere in the node.
    pub(crate) fn has_look(&self) -> bool {
        match self {
            Node::Look { .. } => true,
            Node::Concat(items) | Node::Alt(items) => items.iter().any(Node::has_look),
            Node::Capture { node, .. } | Node::Repeat { node, .. } => node.has_look(),
            Node::Empty | Node::Set(_) | Node::Assert(_) | Node::BackRef(_) => false,
        }
    }

    /// The node with every capturing group made non-capturing.
    pub(crate) fn without_captures(self) -> Node {
        match self {
            Node::Capture { node, .. } => node.without_captures(),
            Node::Concat(items) => Node::concat(items.into_iter().map(Node::without_captures).collect()),
            Node::Alt(alts) => Node::Alt(alts.into_iter().map(Node::without_captures).collect()),
            Node::Repeat { node, min, max, greedy } => Node::repeat(node.without_captures(), min, max, greedy),
            Node::Look { behind, negated, node } => Node::Look {
                behind,
                negated,
                node: Box::new(node.without_captures()),
            },
            leaf => leaf,
        }
    }

    /// The node as a sequence of items: nested concatenations are opened up
    /// and single-alternative groups dissolved (captures must be gone).
    pub(crate) fn into_items(self) -> Vec<Node> {
        let mut out = Vec::new();
        self.push_items(&mut out);
        out
    }

    fn push_items(self, out: &mut Vec<Node>) {
        match self {
            Node::Concat(items) => items.into_iter().for_each(|n| n.push_items(out)),
            Node::Empty => {}
            other => out.push(other),
        }
    }

    /// Whether the node consumes nothing and only tests the position.
    pub(crate) fn is_zero_width(&self) -> bool {
        matches!(self, Node::Assert(_) | Node::Look { .. })
    }

    /// The alternatives of a top-level disjunction.
    pub(crate) fn into_alternatives(self) -> Vec<Node> {
        match self {
            Node::Alt(alts) => alts,
            other => vec![other],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lit(c: char) -> Node {
        Node::Set(CharSet::single(u32::from(c)))
    }

    #[test]
    fn builders_simplify() {
        assert_eq!(Node::concat(vec![Node::Empty, lit('a')]), lit('a'));
        assert_eq!(Node::repeat(lit('a'), 1, Some(1), true), lit('a'));
        assert_eq!(Node::repeat(lit('a'), 0, Some(0), true), Node::Empty);
        assert_eq!(Node::repeat(Node::Empty, 0, None, true), Node::Empty);
    }

    #[test]
    fn min_len() {
        let node = Node::concat(vec![
            Node::Assert(Assertion::Start),
            Node::repeat(lit('a'), 2, None, true),
            Node::Alt(vec![lit('b'), Node::Empty]),
        ]);
        assert_eq!(node.min_len(), 2);
    }

    #[test]
    fn items_open_nested_concatenations() {
        let node = Node::Concat(vec![lit('a'), Node::Concat(vec![lit('b'), lit('c')])]);
        assert_eq!(node.into_items(), vec![lit('a'), lit('b'), lit('c')]);
    }
}
