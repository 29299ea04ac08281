//! One test per translation rule, stated as what values a pattern accepts.

use stratus_pattern::{translate, Anchoring, Engine, Reason, Translation};

fn search(pattern: &str, value: &str) -> bool {
    matches(pattern, Anchoring::Search, value)
}

fn full(pattern: &str, value: &str) -> bool {
    matches(pattern, Anchoring::FullMatch, value)
}

fn matches(pattern: &str, anchoring: Anchoring, value: &str) -> bool {
    let translation = translate(pattern, anchoring).unwrap_or_else(|err| panic!("{err}"));
    translation
        .compile()
        .unwrap_or_else(|err| panic!("{err}"))
        .is_match(value)
}

fn engine(pattern: &str) -> Option<Engine> {
    match translate(pattern, Anchoring::Search).unwrap() {
        Translation::Single { engine, .. } => Some(engine),
        Translation::AnyOf(_) => None,
    }
}

#[test]
fn digit_and_word_are_ascii() {
    assert!(full(r"\d+", "0123456789"));
    assert!(!full(r"\d", "٣"));
    assert!(full(r"\w+", "azAZ09_"));
    assert!(!full(r"\w", "é"));
    assert!(full(r"\D\W", "éé"));
}

#[test]
fn word_boundaries_are_ascii() {
    assert!(search(r"a\b", "aé"));
    assert!(!search(r"a\B", "aé"));
    assert!(search(r"arn:\b(aws|aws-cn)\b:", "arn:aws-cn:x"));
    assert!(!search(r"\bb", "ab"));
}

#[test]
fn white_space_is_ecma_white_space_and_line_terminators() {
    for c in "\t\n\u{b}\u{c}\r \u{a0}\u{1680}\u{2000}\u{2005}\u{200a}\u{2028}\u{2029}\u{202f}\u{205f}\u{3000}\u{feff}"
        .chars()
    {
        assert!(full(r"\s", &c.to_string()), "{c:?}");
        assert!(!full(r"\S", &c.to_string()), "{c:?}");
    }
    for c in ['\u{85}', '\u{200b}', 'a', '\u{180e}'] {
        assert!(!full(r"\s", &c.to_string()), "{c:?}");
    }
}

#[test]
fn dot_excludes_only_line_terminators() {
    for c in ["a", "\u{85}", "\u{feff}", "😀", "\t", "\u{b}"] {
        assert!(full(".", c), "{c:?}");
    }
    for c in ["\n", "\r", "\u{2028}", "\u{2029}"] {
        assert!(!full(".", c), "{c:?}");
    }
}

#[test]
fn character_escapes() {
    assert!(full(r"\u0041\x42\u00e9", "ABé"));
    assert!(full(r"\cJ\cj\0\t\n\r\v\f", "\n\n\0\t\n\r\u{b}\u{c}"));
    assert!(full(
        r"\/\-\:\.\@\$\(\)\{\}\[\]\|\^\*\+\?\\\x26",
        "/-:.@$(){}[]|^*+?\\&"
    ));
    assert!(!full(r"\.", "a"));
    assert!(full(r"[\b]", "\u{8}"));
}

#[test]
fn classes() {
    assert!(full("[^a-c]", "d"));
    assert!(!full("[^a-c]", "b"));
    assert!(full("[^a-c]", "\n"));
    assert!(full("[a-cx]+", "abcx"));
    assert!(!search("[]", "a"));
    assert!(full("[^]", "\n"));
    assert!(full(r"[\d-z]+", "1-z"));
    assert!(!full(r"[\d-z]", "a"));
    assert!(full(r"[+-.]+", "+,-."));
}

#[test]
fn dash_next_to_class_escape_is_literal() {
    assert!(full(r"[\w-_]+", "a-_"));
    assert!(!full(r"[\w-_]", "."));
    assert!(full(r"[a-zA-Z0-9-_]+", "a-_"));
    assert!(!full(r"[a-zA-Z0-9-_]", "^"));
    assert!(full(r"[\s-a]+", " -a"));
}

#[test]
fn quantifiers() {
    assert!(full("a{3}", "aaa") && !full("a{3}", "aa"));
    assert!(full("a{2,}", "aaaaa") && !full("a{2,}", "a"));
    assert!(full("a{1,2}", "aa") && !full("a{1,2}", "aaa"));
    assert!(full("a+?b*?c??", "aaab"));
    assert!(full("(?:ab)+", "abab"));
    assert!(full("(?<name>ab)?c", "abc"));
}

#[test]
fn braces_and_brackets_that_are_not_syntax_are_literal() {
    assert!(full("a{", "a{"));
    assert!(full("x{,5}", "x{,5}"));
    assert!(full("a}]", "a}]"));
}

#[test]
fn anchors_allow_no_trailing_newline() {
    assert!(!search("^a$", "a\n"));
    assert!(!search("^a$", "\na"));
    assert!(search("^a$", "a"));
    assert!(search("^^a", "a"));
}

#[test]
fn full_match_wraps_alternation() {
    assert!(search("^a|b$", "ab"));
    assert!(!full("^a|b$", "ab"));
    assert!(full("^a|b$", "b"));
    assert!(search("a|bc", "xbcx"));
    assert!(!full("a|bc", "xbc"));
}

#[test]
fn java_general_categories() {
    let tag = r"^[\p{L}\p{Z}\p{N}_.:/=+\-@]*$";
    assert!(search(tag, "Ünïcödé 日本 ٣ x=y@z"));
    assert!(!search(tag, "a!"));
    assert!(!search(tag, "\t"));
    assert!(full(r"\P{L}", "1"));
    assert!(!full(r"\P{L}", "é"));
}

#[test]
fn java_posix_classes_are_ascii() {
    assert!(full(r"\p{ASCII}+", "\0\u{7f}"));
    assert!(!full(r"\p{ASCII}", "é"));
    assert!(full(r"\p{Print}+", " ~"));
    assert!(!full(r"\p{Print}", "\u{7f}"));
    assert!(!full(r"\p{Print}", "é"));
    assert!(full(
        r"\p{Alnum}\p{Alpha}\p{Digit}\p{Lower}\p{Upper}\p{Punct}",
        "1a2bC!"
    ));
    assert!(!full(r"\p{Alpha}", "é"));
    assert!(full(r"\P{Digit}", "a"));
}

#[test]
fn surrogate_pair_escapes_are_one_supplementary_character() {
    let xml = r"^[\u0020-\uD7FF\uE000-\uFFFD\uD800\uDC00-\uDBFF\uDFFF\r\n\t]*$";
    assert!(search(xml, "a😀\u{10ffff}\u{10000}\t"));
    assert!(!search(xml, "\u{1}"));
    assert!(full(r"\uD83D\uDE00", "😀"));
    assert!(full(r"[\uD83D\uDE00]", "😀"));
    assert!(full(r"\uD83D\uDE00{2}", "😀😀"), "Java repeats the whole pair");
}

#[test]
fn lone_surrogates_match_nothing() {
    assert!(full(r"[\uD800a]", "a"));
    assert!(!full(r"[\uD800a]", "😀"));
    assert!(!search(r"\uD800", "😀"));
    assert!(full(r"a|\uDC00", "a"));
    assert!(full(r"[\u0001-\uFFFF]+", "a\u{ffff}"));
    assert!(!full(r"[\u0001-\uFFFF]", "😀"));
}

#[test]
fn four_hex_digits_only() {
    let class = r"^[\u10000-\u10FFFF]+$";
    assert!(search(class, "\u{1000}0F"));
    assert!(search(class, "\u{500}"));
    assert!(!search(class, "\u{10000}"));
    assert!(full(r"\u10000", "\u{1000}0"));
}

#[test]
fn inline_case_insensitivity_is_ascii_and_lasts_to_the_group_end() {
    let account = "^(?i)all|[0-9]{12}$";
    assert!(search(account, "ALL") && search(account, "aLl"));
    assert!(search(account, "123456789012"));
    assert!(!full("(?i)s", "\u{17f}"));
    assert!(!full("(?i)k", "\u{212a}"));
    assert!(full("(?:(?i)a)b", "Ab"));
    assert!(!full("(?:(?i)a)b", "AB"));
    assert!(full("(?i:[a-c])", "B"));
    assert!(full("(?i)[^a]", "b") && !full("(?i)[^a]", "A"));
}

#[test]
fn back_references_to_unset_groups_match_empty() {
    assert_eq!(engine(r"(a)?b\1"), Some(Engine::Fancy));
    assert!(full(r"(a)?b\1", "b"));
    assert!(full(r"(a)?b\1", "aba"));
    assert!(!full(r"(a)?b\1", "ab"));
    assert!(full(r"(?<x>[ab])\k<x>", "bb"));
    assert!(!full(r"(?<x>[ab])\k<x>", "ab"));
}

#[test]
fn look_arounds() {
    // Absorbed into neighbouring classes: plain regex.
    let domain = r"^(((?!-)[A-Za-z0-9-]{0,62}[A-Za-z0-9])\.)+((?!-)[A-Za-z0-9-]{1,62}[A-Za-z0-9])$";
    assert_eq!(engine(domain), Some(Engine::Regex));
    assert!(search(domain, "a-b.example.com") && search(domain, "a.bc"));
    assert!(!search(domain, "-a.example.com") && !search(domain, "a.-b") && !search(domain, "a-.b"));
    let host = r"^((?!-)[A-Za-z0-9-]{1,63}(?<!-)\.)+x$";
    assert_eq!(engine(host), Some(Engine::Regex));
    assert!(search(host, "a-b.c.x") && !search(host, "a-.x") && !search(host, "-a.x"));
    // Hoisted into checks of the whole value.
    let non_blank = r"^(?!\s*$).+$";
    assert_eq!(engine(non_blank), None);
    assert!(search(non_blank, " a") && !search(non_blank, " \t") && !search(non_blank, ""));
    let not_digits = r"^(^\$LATEST$)|((?!^[0-9]+$)([a-zA-Z0-9-_]+))$";
    assert!(search(not_digits, "$LATEST") && search(not_digits, "v1"));
    assert!(
        search(not_digits, "12"),
        "ECMA: the look-ahead does not hold at 0, but the match may start at 1"
    );
    assert!(!full(not_digits, "12"));
    let no_final_dot = r"^[0-9A-Za-z\.\-_]*(?<!\.)$";
    assert!(search(no_final_dot, "a.b") && !search(no_final_dot, "a.") && search(no_final_dot, ""));
    // Not removable: fancy-regex.
    let alias = r"^[a-z0-9]([a-z0-9]|-(?!-)){1,61}[a-z0-9]$";
    assert_eq!(engine(alias), Some(Engine::Fancy));
    assert!(search(alias, "my-alias") && !search(alias, "my--alias"));
}

#[test]
fn huge_counts_are_length_checks() {
    let pattern = "^.{1,100000}$";
    assert!(search(pattern, &"é".repeat(100_000)));
    assert!(!search(pattern, &"é".repeat(100_001)));
    assert!(!search(pattern, "a\nb"));
    assert!(!search(pattern, ""));
}

#[test]
fn ambiguous_or_invalid_syntax_is_refused() {
    let reason = |p| translate(p, Anchoring::Search).unwrap_err().reason;
    assert!(matches!(reason(r"\e"), Reason::Ambiguous(_)));
    assert_eq!(reason("a**"), Reason::NothingToRepeat);
    assert_eq!(reason("(?<=a)+"), Reason::Unsupported("quantified look-around"));
    assert_eq!(
        reason(r"(a\1)"),
        Reason::Unsupported("back-reference inside its own group")
    );
}
