//! Sets of characters: what one "character" position of a pattern may match.
//!
//! Explicit code point ranges are kept as sorted, disjoint inclusive ranges so
//! that they can be complemented, intersected and case-folded exactly. Unicode
//! general categories (`\p{L}` …) are kept by name: the regex crate owns the
//! Unicode tables, so a set holding one is emitted as a regex class and takes
//! no part in set algebra.

use std::fmt::Write;

/// The largest Unicode code point.
const MAX: u32 = 0x10_FFFF;
/// The UTF-16 surrogate block: code units that are never a `char` of a Rust
/// string, so a set never matches them.
const SURROGATES: (u32, u32) = (0xD800, 0xDFFF);

/// ECMA-262 `\d`.
pub(crate) const DIGIT: &[(u32, u32)] = &[(0x30, 0x39)];
/// ECMA-262 `\w`: ASCII only.
pub(crate) const WORD: &[(u32, u32)] = &[(0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)];
/// ECMA-262 `\s`: WhiteSpace and LineTerminator.
pub(crate) const SPACE: &[(u32, u32)] = &[
    (0x09, 0x0D),
    (0x20, 0x20),
    (0xA0, 0xA0),
    (0x1680, 0x1680),
    (0x2000, 0x200A),
    (0x2028, 0x2029),
    (0x202F, 0x202F),
    (0x205F, 0x205F),
    (0x3000, 0x3000),
    (0xFEFF, 0xFEFF),
];
/// ECMA-262 LineTerminator: what `.` does not match.
pub(crate) const LINE_TERMINATOR: &[(u32, u32)] = &[(0x0A, 0x0A), (0x0D, 0x0D), (0x2028, 0x2029)];

/// A Unicode general category such as `L` or `Nd`, possibly negated (`\P{L}`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Category {
    pub(crate) name: &'static str,
    pub(crate) negated: bool,
}

/// A set of characters.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub(crate) struct CharSet {
    /// Sorted, disjoint, non-adjacent inclusive ranges of code points. They may
    /// include surrogates (from `\uD800`-style escapes); those never match.
    ranges: Vec<(u32, u32)>,
    /// General categories whose union with `ranges` forms the set.
    categories: Vec<Category>,
    /// Whether the set is the complement of the above (`[^…]`).
    negated: bool,
}

impl CharSet {
    /// The empty set.
    pub(crate) fn empty() -> Self {
        Self::default()
    }

    /// Every character.
    pub(crate) fn any() -> Self {
        Self::from_ranges(&[(0, MAX)])
    }

    /// The set of one code point (which may be a lone surrogate).
    pub(crate) fn single(c: u32) -> Self {
        Self::from_ranges(&[(c, c)])
    }

    /// The set of the given (not necessarily sorted) ranges.
    pub(crate) fn from_ranges(ranges: &[(u32, u32)]) -> Self {
        let mut set = Self::empty();
        for &(lo, hi) in ranges {
            set.add_range(lo, hi);
        }
        set
    }

    /// The complement of explicit ranges, such as `\D` for `\d`.
    pub(crate) fn complement_of(ranges: &[(u32, u32)]) -> Self {
        Self {
            ranges: complement(&Self::from_ranges(ranges).ranges),
            ..Self::default()
        }
    }

    /// A general category.
    pub(crate) fn category(name: &'static str, negated: bool) -> Self {
        Self {
            categories: vec![Category { name, negated }],
            ..Self::default()
        }
    }

    /// Adds `lo..=hi`, keeping the ranges sorted and merged.
    pub(crate) fn add_range(&mut self, lo: u32, hi: u32) {
        debug_assert!(lo <= hi && !self.negated);
        let at = self.ranges.partition_point(|&(_, h)| h.saturating_add(1) < lo);
        let mut merged = (lo, hi);
        let mut end = at;
        while end < self.ranges.len() && self.ranges[end].0 <= hi.saturating_add(1) {
            merged = (merged.0.min(self.ranges[end].0), merged.1.max(self.ranges[end].1));
            end += 1;
        }
        self.ranges.splice(at..end, [merged]);
    }

    /// Adds every member of `other`, which must not be negated (class items
    /// never are: complements of explicit sets are computed eagerly).
    pub(crate) fn add_set(&mut self, other: &CharSet) {
        debug_assert!(!other.negated);
        for &(lo, hi) in &other.ranges {
            self.add_range(lo, hi);
        }
        for category in &other.categories {
            if !self.categories.contains(category) {
                self.categories.push(category.clone());
            }
        }
    }

    /// Turns the set into its complement.
    pub(crate) fn negate(&mut self) {
        self.negated = !self.negated;
    }

    /// Adds the other ASCII case of every ASCII letter in the explicit
    /// ranges: Java's `(?i)` without `UNICODE_CASE`.
    pub(crate) fn add_ascii_case(&mut self) {
        let mut extra = Vec::new();
        for &(lo, hi) in &self.ranges {
            for (from, to) in [(b'a', b'A'), (b'A', b'a')] {
                let (a, z) = (u32::from(from), u32::from(from) + 25);
                let (l, h) = (lo.max(a), hi.min(z));
                if l <= h {
                    let shift = |c: u32| c - a + u32::from(to);
                    extra.push((shift(l), shift(h)));
                }
            }
        }
        for (lo, hi) in extra {
            self.add_range(lo, hi);
        }
    }

    /// The members as explicit ranges, or `None` when the set involves a
    /// general category.
    fn explicit(&self) -> Option<Vec<(u32, u32)>> {
        if !self.categories.is_empty() {
            return None;
        }
        Some(if self.negated {
            complement(&self.ranges)
        } else {
            self.ranges.clone()
        })
    }

    /// The characters in both sets, or `None` when either involves a general
    /// category.
    pub(crate) fn intersect(&self, other: &CharSet) -> Option<CharSet> {
        let (a, b) = (self.explicit()?, other.explicit()?);
        let mut out = Self::empty();
        for &(alo, ahi) in &a {
            for &(blo, bhi) in &b {
                let (lo, hi) = (alo.max(blo), ahi.min(bhi));
                if lo <= hi {
                    out.add_range(lo, hi);
                }
            }
        }
        Some(out)
    }

    /// The complement, or `None` when the set involves a general category.
    pub(crate) fn complement(&self) -> Option<CharSet> {
        Some(Self {
            ranges: complement(&self.explicit()?),
            ..Self::default()
        })
    }

    /// Whether no character is in the set.
    pub(crate) fn is_empty(&self) -> bool {
        self.explicit()
            .is_some_and(|ranges| without_surrogates(&ranges).is_empty())
    }

    /// Writes the set as one atom of regex-crate syntax (also understood by
    /// fancy-regex): a literal, or a bracketed class.
    pub(crate) fn emit(&self, out: &mut String) {
        match self.explicit() {
            Some(ranges) => {
                let ranges = without_surrogates(&ranges);
                match ranges.as_slice() {
                    [] => out.push_str(r"[^\x{0}-\x{10FFFF}]"),
                    [(lo, hi)] if lo == hi => emit_char(*lo, out),
                    _ => {
                        out.push('[');
                        emit_ranges(&ranges, out);
                        out.push(']');
                    }
                }
            }
            None => {
                out.push('[');
                if self.negated {
                    out.push('^');
                }
                emit_ranges(&without_surrogates(&self.ranges), out);
                for Category { name, negated } in &self.categories {
                    let p = if *negated { 'P' } else { 'p' };
                    let _ = write!(out, r"\{p}{{{name}}}");
                }
                out.push(']');
            }
        }
    }
}

/// The complement of sorted disjoint ranges within `0..=MAX`.
fn complement(ranges: &[(u32, u32)]) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    let mut next = 0;
    for &(lo, hi) in ranges {
        if lo > next {
            out.push((next, lo - 1));
        }
        next = hi + 1;
    }
    if next <= MAX {
        out.push((next, MAX));
    }
    out
}

/// Sorted disjoint ranges with the surrogate block cut out.
fn without_surrogates(ranges: &[(u32, u32)]) -> Vec<(u32, u32)> {
    let (slo, shi) = SURROGATES;
    let mut out = Vec::new();
    for &(lo, hi) in ranges {
        if lo < slo {
            out.push((lo, hi.min(slo - 1)));
        }
        if hi > shi {
            out.push((lo.max(shi + 1), hi));
        }
    }
    out
}

fn emit_ranges(ranges: &[(u32, u32)], out: &mut String) {
    for &(lo, hi) in ranges {
        emit_char(lo, out);
        if hi > lo {
            if hi > lo + 1 {
                out.push('-');
            }
            emit_char(hi, out);
        }
    }
}

/// Characters with a meaning of their own in regex-crate or fancy-regex
/// syntax, inside or outside a class.
const META: &str = r"\.+*?()|[]{}^$#&-~";

/// Writes one code point (never a surrogate) so that it means itself both
/// inside and outside a class.
fn emit_char(c: u32, out: &mut String) {
    match char::from_u32(c) {
        Some(ch) if META.contains(ch) => {
            out.push('\\');
            out.push(ch);
        }
        Some(ch) if ch.is_ascii_graphic() => out.push(ch),
        _ => {
            let _ = write!(out, r"\x{{{c:X}}}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn emitted(set: &CharSet) -> String {
        let mut out = String::new();
        set.emit(&mut out);
        out
    }

    #[test]
    fn ranges_merge_and_sort() {
        let set = CharSet::from_ranges(&[
            (b'x'.into(), b'z'.into()),
            (b'a'.into(), b'c'.into()),
            (b'd'.into(), b'd'.into()),
        ]);
        assert_eq!(set.ranges, vec![(0x61, 0x64), (0x78, 0x7A)]);
        assert_eq!(emitted(&set), "[a-dx-z]");
    }

    #[test]
    fn adjacent_pairs_need_no_dash() {
        assert_eq!(emitted(&CharSet::from_ranges(&[(0x61, 0x62)])), "[ab]");
    }

    #[test]
    fn single_characters_are_literals() {
        assert_eq!(emitted(&CharSet::single(u32::from('-'))), r"\-");
        assert_eq!(emitted(&CharSet::single(u32::from('q'))), "q");
        assert_eq!(emitted(&CharSet::single(0xFEFF)), r"\x{FEFF}");
        assert_eq!(emitted(&CharSet::single(u32::from(' '))), r"\x{20}");
    }

    #[test]
    fn surrogates_never_match() {
        assert_eq!(emitted(&CharSet::single(0xD800)), r"[^\x{0}-\x{10FFFF}]");
        let set = CharSet::from_ranges(&[(0x20, 0xFFFD)]);
        assert_eq!(emitted(&set), r"[\x{20}-\x{D7FF}\x{E000}-\x{FFFD}]");
    }

    #[test]
    fn negation_and_complement() {
        let mut set = CharSet::from_ranges(DIGIT);
        set.negate();
        assert_eq!(emitted(&set), r"[\x{0}-/:-\x{D7FF}\x{E000}-\x{10FFFF}]");
        assert_eq!(set.complement(), Some(CharSet::from_ranges(DIGIT)));
        assert_eq!(
            CharSet::complement_of(DIGIT),
            set.complement().unwrap().complement().unwrap()
        );
    }

    #[test]
    fn intersection() {
        let word = CharSet::from_ranges(WORD);
        let no_dash = CharSet::complement_of(&[(0x2D, 0x2D)]);
        assert_eq!(word.intersect(&no_dash), Some(word.clone()));
        assert_eq!(
            word.intersect(&CharSet::from_ranges(DIGIT)),
            Some(CharSet::from_ranges(DIGIT))
        );
        assert_eq!(word.intersect(&CharSet::category("L", false)), None);
    }

    #[test]
    fn categories_stay_symbolic() {
        let mut set = CharSet::category("L", false);
        set.add_set(&CharSet::category("N", true));
        set.add_range(0x5F, 0x5F);
        assert_eq!(emitted(&set), r"[_\p{L}\P{N}]");
        set.negate();
        assert_eq!(emitted(&set), r"[^_\p{L}\P{N}]");
        assert_eq!(set.complement(), None);
    }

    #[test]
    fn ascii_case() {
        let mut set = CharSet::from_ranges(&[(0x61, 0x63), (0x59, 0x5A), (0xE9, 0xE9)]);
        set.add_ascii_case();
        assert_eq!(emitted(&set), r"[A-CYZa-cyz\x{E9}]");
    }
}
