//! Expression tests. Unless a test names another source, expected messages are the ones
//! dynalite records from DynamoDB (mhart/dynalite test/scan.js, query.js, updateItem.js).

use std::collections::BTreeMap;

use super::*;
use crate::{AttributeValue, Item};

fn s(text: &str) -> AttributeValue {
    AttributeValue::S(text.into())
}

fn n(text: &str) -> AttributeValue {
    AttributeValue::N(text.into())
}

fn ss(members: &[&str]) -> AttributeValue {
    AttributeValue::Ss(members.iter().map(|m| (*m).to_owned()).collect())
}

fn ns(members: &[&str]) -> AttributeValue {
    AttributeValue::Ns(members.iter().map(|m| (*m).to_owned()).collect())
}

fn list(values: Vec<AttributeValue>) -> AttributeValue {
    AttributeValue::L(values)
}

fn map(pairs: Vec<(&str, AttributeValue)>) -> AttributeValue {
    AttributeValue::M(pairs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
}

fn item(pairs: Vec<(&str, AttributeValue)>) -> Item {
    pairs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()
}

fn names(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
}

fn values(pairs: Vec<(&str, AttributeValue)>) -> BTreeMap<String, AttributeValue> {
    pairs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()
}

/// The message a filter expression is refused with.
fn filter_error(expression: &str, name_map: &[(&str, &str)], value_map: Vec<(&str, AttributeValue)>) -> String {
    let (name_map, value_map) = (names(name_map), values(value_map));
    let mut placeholders = Placeholders::new(
        (!name_map.is_empty()).then_some(&name_map),
        (!value_map.is_empty()).then_some(&value_map),
    )
    .unwrap();
    parse_condition(expression, ExpressionKind::Filter, &mut placeholders)
        .unwrap_err()
        .to_string()
}

fn update_error(expression: &str, name_map: &[(&str, &str)], value_map: Vec<(&str, AttributeValue)>) -> String {
    let (name_map, value_map) = (names(name_map), values(value_map));
    let mut placeholders = Placeholders::new(
        (!name_map.is_empty()).then_some(&name_map),
        (!value_map.is_empty()).then_some(&value_map),
    )
    .unwrap();
    parse_update(expression, &mut placeholders).unwrap_err().to_string()
}

/// The placeholders most evaluation tests share.
fn standard_values() -> BTreeMap<String, AttributeValue> {
    values(vec![
        (":s", s("abc")),
        (":prefix", s("ab")),
        (":n", n("5")),
        (":one", n("1")),
        (":ten", n("10")),
        (":b", AttributeValue::B(vec![1, 2])),
        (":t", AttributeValue::Bool(true)),
        (":null", AttributeValue::Null(true)),
        (":type_s", s("S")),
        (":type_n", s("N")),
        (":list", list(vec![n("7")])),
        (":set", ss(&["x", "y"])),
        (":nset", ns(&["2", "3"])),
    ])
}

fn evaluates(expression: &str, target: &Item) -> bool {
    let name_map = names(&[("#n", "name"), ("#dot", "a.b")]);
    let value_map = standard_values();
    let mut placeholders = Placeholders::new(Some(&name_map), Some(&value_map)).unwrap();
    parse_condition(expression, ExpressionKind::Condition, &mut placeholders)
        .unwrap()
        .evaluate(target)
}

fn sample() -> Item {
    item(vec![
        ("name", s("abc")),
        ("cnt", n("5")),
        ("bin", AttributeValue::B(vec![1, 2, 3])),
        ("flag", AttributeValue::Bool(true)),
        ("nothing", AttributeValue::Null(true)),
        ("tags", ss(&["x", "y", "z"])),
        ("nums", ns(&["1", "2.0"])),
        ("elems", list(vec![n("7"), s("abc"), map(vec![("deep", s("v"))])])),
        (
            "doc",
            map(vec![
                ("inr", map(vec![("val", n("10"))])),
                ("lst", list(vec![s("p"), s("q")])),
            ]),
        ),
        ("a.b", s("dotted")),
    ])
}

// ---- syntax ----

#[test]
fn empty_expressions_are_refused() {
    assert_eq!(
        filter_error("", &[], vec![]),
        "Invalid FilterExpression: The expression can not be empty;"
    );
    assert_eq!(
        filter_error("  ", &[], vec![]),
        "Invalid FilterExpression: The expression can not be empty;"
    );
    assert_eq!(
        update_error("", &[], vec![]),
        "Invalid UpdateExpression: The expression can not be empty;"
    );
}

#[test]
fn syntax_errors_from_dynalite() {
    for expression in [
        "things are not gonna be ok",
        "a > 4",
        "attribute_exists(Pictures-RearView)",
        "attribute_exists(\"Pictures.RearView\")",
        "attribute_exists(Pictures..RearView)",
        "attribute_exists(Pi#ctures.RearView)",
        "attribute_exists(asdf[a])",
        "a in b, c",
        "a > between",
        "a in b",
        "a in (b,c,)",
        "(a)between(b.(c.d))and(c)",
        "(a)between(b.c.d)and((c)",
        "#$.b > a",
        "a > :things.stuff",
        "b[:a] > a",
        "b[#_] > a",
        "ü > a",
        "(a)between(b.c[4.5].#d)and(:a)",
        "size(a).b > a",
        "(size(a)).b > a",
        "size(a)[0] > a",
        "(size(a))[0] > a",
        "a",
        "a = b c",
        "NOT a",
        "a = b AND",
        "a[99999999999999999999999] = b",
    ] {
        let message = filter_error(expression, &[], vec![]);
        assert!(
            message.starts_with("Invalid FilterExpression: Syntax error; "),
            "{expression}: {message}"
        );
    }
}

#[test]
fn syntax_errors_name_the_token_and_its_neighbours() {
    assert_eq!(
        filter_error("a > 4 AND b = c", &[], vec![]),
        "Invalid FilterExpression: Syntax error; token: \"4\", near: \"> 4 AND\""
    );
    assert_eq!(
        filter_error("a = ", &[], vec![]),
        "Invalid FilterExpression: Syntax error; token: \"<EOF>\", near: \"=\""
    );
    // The shape of AWS's answer for `AND __typename` (a report quoted in the issues corpus).
    assert_eq!(
        filter_error("a = b AND __typename = c", &[], vec![]),
        "Invalid FilterExpression: Syntax error; token: \"_\", near: \"AND __\""
    );
}

#[test]
fn redundant_parentheses_are_refused() {
    for expression in [
        "a=a and a > ((views))",
        "(a)between(((b.c)).d)and(c)",
        "a > whatever((:things), ((a)))",
        "a=a AND ((a=a AND a=a)) AND a=a",
        "a=a OR ((a=a OR a=a)) OR a=a",
        "a=a AND ((a=a AND (a=a AND a=a)))",
        "a=a OR ((a=a OR (a=a OR a=a)))",
    ] {
        assert_eq!(
            filter_error(expression, &[], vec![]),
            "Invalid FilterExpression: The expression has redundant parentheses;",
            "{expression}"
        );
    }
}

#[test]
fn parentheses_that_are_not_redundant_are_fine() {
    let target = sample();
    assert!(evaluates("(cnt = :n)", &target));
    assert!(evaluates("(cnt) = (:n)", &target));
    assert!(evaluates("(cnt = :n) AND (#n = :s)", &target));
    assert!(evaluates("((cnt = :n) AND (#n = :s))", &target));
}

// ---- functions ----

#[test]
fn unknown_functions_are_named() {
    assert_eq!(
        filter_error("a=a and whatever((:things)) > a", &[], vec![]),
        "Invalid FilterExpression: Invalid function name; function: whatever"
    );
    assert_eq!(
        filter_error("attRIbute_exIsts((views), #a)", &[], vec![]),
        "Invalid FilterExpression: Invalid function name; function: attRIbute_exIsts"
    );
    assert_eq!(
        filter_error("if_not_exists(a, b) = c", &[], vec![]),
        "Invalid FilterExpression: Invalid function name; function: if_not_exists"
    );
}

#[test]
fn functions_used_the_wrong_way() {
    for (expression, function) in [
        ("a=a and attribute_exists((views), (#a)) > b", "attribute_exists"),
        ("attribute_not_exists(things) > b", "attribute_not_exists"),
        ("attribute_type(things, :a) > b", "attribute_type"),
        ("begins_with(things, a) > b", "begins_with"),
        ("contains(:things, c) > b", "contains"),
        ("size(contains(a, b)) > a", "contains"),
        ("size(things)", "size"),
        ("a between b and attribute_exists(things)", "attribute_exists"),
        ("a in (b, attribute_exists(things))", "attribute_exists"),
        ("NOT size(a)", "size"),
    ] {
        assert_eq!(
            filter_error(expression, &[], vec![]),
            format!("Invalid FilterExpression: The function is not allowed to be used this way in an expression; function: {function}"),
            "{expression}"
        );
    }
}

#[test]
fn operand_counts_are_checked() {
    for (expression, function, count) in [
        ("attribute_exists(things, a) and a=a", "attribute_exists", 2),
        ("attribute_not_exists(things, b)", "attribute_not_exists", 2),
        ("attribute_type(things)", "attribute_type", 1),
        ("begins_with(things)", "begins_with", 1),
        ("begins_with(things, size(a), b)", "begins_with", 3),
        ("contains(things)", "contains", 1),
        ("size(things, a) > b", "size", 2),
    ] {
        assert_eq!(
            filter_error(expression, &[], vec![]),
            format!("Invalid FilterExpression: Incorrect number of operands for operator or function; operator or function: {function}, number of operands: {count}"),
        );
    }
}

#[test]
fn constant_operand_types_are_checked() {
    let cases: Vec<(&str, &str, AttributeValue)> = vec![
        ("attribute_type(a, size(a)) and a=a and a=:a", "attribute_type", n("1")),
        ("attribute_type(a, :a)", "attribute_type", n("1")),
        ("attribute_type(a, :a)", "attribute_type", AttributeValue::Bool(true)),
        ("attribute_type(a, :a)", "attribute_type", list(vec![])),
        ("begins_with(a, size(a)) and a=:a", "begins_with", n("1")),
        ("begins_with(a, :a)", "begins_with", n("1")),
        ("begins_with(a, :a)", "begins_with", ss(&["1"])),
        ("begins_with(:a, a)", "begins_with", AttributeValue::Null(true)),
        ("begins_with(:a, a)", "begins_with", map(vec![])),
        ("size(size(a)) > :a", "size", n("1")),
        ("attribute_not_exists(size(:a))", "size", n("1")),
        ("size(:a) > a", "size", AttributeValue::Bool(true)),
        ("size(:a) > a", "size", AttributeValue::Null(true)),
    ];
    for (expression, function, value) in cases {
        let shown = crate::value::type_name(&value);
        assert_eq!(
            filter_error(expression, &[], vec![(":a", value)]),
            format!("Invalid FilterExpression: Incorrect operand type for operator or function; operator or function: {function}, operand type: {shown}"),
            "{expression}"
        );
    }
}

#[test]
fn attribute_type_needs_a_type_name() {
    assert_eq!(
        filter_error("attribute_type(a, :a)", &[], vec![(":a", s("1"))]),
        "Invalid FilterExpression: Invalid attribute type name found; type: 1, valid types: {B,NULL,SS,BOOL,L,BS,N,NS,S,M}"
    );
}

#[test]
fn existence_functions_need_a_path() {
    for (expression, function) in [
        ("attribute_exists(:a) and a=a", "attribute_exists"),
        ("attribute_not_exists(size(:a))", "attribute_not_exists"),
        ("attribute_type(:a, :a)", "attribute_type"),
    ] {
        assert_eq!(
            filter_error(expression, &[], vec![(":a", s("S"))]),
            format!("Invalid FilterExpression: Operator or function requires a document path; operator or function: {function}")
        );
    }
}

#[test]
fn first_operand_must_differ_from_the_rest() {
    for (expression, operator, path) in [
        ("a = a AND #a = b AND :views > a", "=", "[a]"),
        ("#a <> a", "<>", "[a]"),
        ("a > #a", ">", "[a]"),
        ("((a=a) OR (a=a))", "=", "[a]"),
        ("contains(ab.bc[1].a, ab.bc[1].#a)", "contains", "[ab, bc, [1], a]"),
        (
            "attribute_type(ab.bc[1].#a, ab.bc[1].a)",
            "attribute_type",
            "[ab, bc, [1], a]",
        ),
        (
            "begins_with(ab.bc[1].a, ab.bc[1].#a)",
            "begins_with",
            "[ab, bc, [1], a]",
        ),
        ("a BETWEEN b AND a", "BETWEEN", "[a]"),
        ("a IN (b, a)", "IN", "[a]"),
    ] {
        assert_eq!(
            filter_error(expression, &[("#a", "a")], vec![]),
            format!("Invalid FilterExpression: The first operand must be distinct from the remaining operands for this operator or function; operator: {operator}, first operand: {path}"),
            "{expression}"
        );
    }
    let value_map = values(vec![(":a", n("1"))]);
    let mut placeholders = Placeholders::new(None, Some(&value_map)).unwrap();
    assert!(parse_condition(":a > :a", ExpressionKind::Filter, &mut placeholders).is_ok());
}

#[test]
fn between_bounds_must_agree() {
    assert_eq!(
        filter_error("a between :b and :a", &[], vec![(":a", s("a")), (":b", n("1"))]),
        "Invalid FilterExpression: The BETWEEN operator requires same data type for lower and upper bounds; lower bound operand: AttributeValue: {N:1}, upper bound operand: AttributeValue: {S:a}"
    );
    assert_eq!(
        filter_error("a between :b and :a", &[], vec![(":a", s("a")), (":b", s("b"))]),
        "Invalid FilterExpression: The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound operand: AttributeValue: {S:b}, upper bound operand: AttributeValue: {S:a}"
    );
}

#[test]
fn in_takes_at_most_100_operands() {
    let hundred: Vec<String> = (0..100).map(|i| format!("b{i}")).collect();
    let ok = format!("a IN ({})", hundred.join(", "));
    let too_many = format!("a IN ({}, c)", hundred.join(", "));
    let mut none = Placeholders::none();
    assert!(parse_condition(&ok, ExpressionKind::Filter, &mut none).is_ok());
    assert_eq!(
        filter_error(&too_many, &[], vec![]),
        "Invalid FilterExpression: The IN operator is provided with too many operands; number of operands: 101"
    );
}

// ---- names, values and reserved words ----

#[test]
fn reserved_words_need_placeholders() {
    assert_eq!(
        filter_error("attribute_exists(views, #a)", &[], vec![]),
        "Invalid FilterExpression: Attribute name is a reserved keyword; reserved keyword: views"
    );
    assert_eq!(
        filter_error(":a < abOrT", &[], vec![]),
        "Invalid FilterExpression: Attribute name is a reserved keyword; reserved keyword: abOrT"
    );
    assert_eq!(
        filter_error("doc.status = :a", &[], vec![(":a", n("1"))]),
        "Invalid FilterExpression: Attribute name is a reserved keyword; reserved keyword: status"
    );
    let name_map = names(&[("#s", "status")]);
    let value_map = values(vec![(":a", n("1"))]);
    let mut placeholders = Placeholders::new(Some(&name_map), Some(&value_map)).unwrap();
    assert!(parse_condition("#s = :a", ExpressionKind::Filter, &mut placeholders).is_ok());
}

#[test]
fn undefined_names_are_reported_in_order() {
    for (expression, name) in [
        ("attribute_exists(#Pictures.RearView, :a) and a=a", "#Pictures"),
        ("begins_with(Pictures.#RearView)", "#RearView"),
        ("(#P between :lo and :hi) and (#PC in (:cat1, :cat2))", "#P"),
        ("#4g > a", "#4g"),
        ("#_ > a", "#_"),
        ("(a)between(b.c[45].#d)and(:a)", "#d"),
    ] {
        assert_eq!(
            filter_error(expression, &[], vec![]),
            format!("Invalid FilterExpression: An expression attribute name used in the document path is not defined; attribute name: {name}")
        );
    }
}

#[test]
fn undefined_values_are_reported_in_order() {
    for (expression, value) in [
        ("begins_with(:hello, #a, #b)", ":hello"),
        (":a < :b", ":a"),
        (":_ > a", ":_"),
    ] {
        assert_eq!(
            filter_error(expression, &[], vec![]),
            format!("Invalid FilterExpression: An expression attribute value used in expression is not defined; attribute value: {value}")
        );
    }
}

#[test]
fn placeholder_maps_are_checked_first() {
    let empty_names = BTreeMap::new();
    assert_eq!(
        Placeholders::new(Some(&empty_names), None).unwrap_err().to_string(),
        "ExpressionAttributeNames must not be empty"
    );
    let empty_values = BTreeMap::new();
    assert_eq!(
        Placeholders::new(None, Some(&empty_values)).unwrap_err().to_string(),
        "ExpressionAttributeValues must not be empty"
    );
    let bad_name = names(&[("a", "a")]);
    assert_eq!(
        Placeholders::new(Some(&bad_name), None).unwrap_err().to_string(),
        "ExpressionAttributeNames contains invalid key: Syntax error; key: \"a\""
    );
    let bad_key = values(vec![("b", s("a"))]);
    assert_eq!(
        Placeholders::new(None, Some(&bad_key)).unwrap_err().to_string(),
        "ExpressionAttributeValues contains invalid key: Syntax error; key: \"b\""
    );
    let bad_value = values(vec![(":b", ss(&[]))]);
    assert_eq!(
        Placeholders::new(None, Some(&bad_value)).unwrap_err().to_string(),
        "ExpressionAttributeValues contains invalid value: One or more parameter values were invalid: An string set  may not be empty for key :b"
    );
    let bad_number = values(vec![(":b", n("b"))]);
    assert_eq!(
        Placeholders::new(None, Some(&bad_number)).unwrap_err().to_string(),
        "ExpressionAttributeValues contains invalid value: The parameter cannot be converted to a numeric value: b for key :b"
    );
}

#[test]
fn unused_placeholders_are_counted_across_a_requests_expressions() {
    let name_map = names(&[("#a", "a"), ("#b", "b"), ("#used", "u")]);
    let value_map = values(vec![(":a", s("a")), (":b", s("a")), (":c", s("a"))]);
    let mut placeholders = Placeholders::new(Some(&name_map), Some(&value_map)).unwrap();
    parse_update(
        "remove a set b = list_append(b, if_not_exists(#used, :a))",
        &mut placeholders,
    )
    .unwrap();
    parse_condition("a = :b", ExpressionKind::Condition, &mut placeholders).unwrap();
    assert_eq!(
        placeholders.check_unused().unwrap_err().to_string(),
        "Value provided in ExpressionAttributeNames unused in expressions: keys: {#a, #b}"
    );

    let value_map = values(vec![(":a", s("a")), (":b", s("a")), (":c", s("a"))]);
    let mut placeholders = Placeholders::new(None, Some(&value_map)).unwrap();
    parse_update("remove a", &mut placeholders).unwrap();
    parse_condition("a = :b", ExpressionKind::Condition, &mut placeholders).unwrap();
    assert_eq!(
        placeholders.check_unused().unwrap_err().to_string(),
        "Value provided in ExpressionAttributeValues unused in expressions: keys: {:a, :c}"
    );

    let value_map = values(vec![(":v", n("1"))]);
    let mut placeholders = Placeholders::new(None, Some(&value_map)).unwrap();
    parse_projection("a, b", &mut placeholders).unwrap();
    parse_condition("c = :v", ExpressionKind::Filter, &mut placeholders).unwrap();
    assert_eq!(placeholders.check_unused(), Ok(()));
}

// ---- evaluation ----

#[test]
fn comparisons_follow_dynamodb() {
    let target = sample();
    assert!(evaluates("#n = :s", &target));
    assert!(evaluates("cnt = :n", &target));
    assert!(evaluates("cnt <> :one", &target));
    assert!(evaluates(
        "cnt < :ten AND cnt <= :n AND cnt > :one AND cnt >= :n",
        &target
    ));
    assert!(!evaluates("cnt > :n", &target));
    assert!(evaluates("bin > :b", &target));
    assert!(evaluates("#n > :prefix", &target));
    assert!(evaluates("doc.inr.val = :ten", &target));
    assert!(evaluates("elems[0] = :one OR elems[0] > :n", &target));
    assert!(evaluates("#dot = :type_s OR #dot <> :type_s", &target));
}

#[test]
fn mismatched_types_and_missing_attributes_compare_false() {
    let target = sample();
    assert!(!evaluates("#n = :n", &target));
    assert!(!evaluates("#n < :n", &target));
    assert!(!evaluates("#n >= :n", &target));
    assert!(!evaluates("flag < :t", &target));
    assert!(!evaluates("absent = :n", &target));
    assert!(!evaluates("absent < :n", &target));
    assert!(!evaluates("doc.absent.deeper >= :n", &target));
    assert!(!evaluates("elems[10] = :one", &target));
    // `<>` with a missing side is true, as moto and DynamoDB Local answer.
    assert!(evaluates("absent <> :n", &target));
    assert!(evaluates("#n <> :n", &target));
}

#[test]
fn between_and_in() {
    let target = sample();
    assert!(evaluates("cnt BETWEEN :one AND :ten", &target));
    assert!(evaluates("cnt BETWEEN :n AND :n", &target));
    assert!(!evaluates("cnt BETWEEN :prefix AND :s", &target));
    assert!(!evaluates("absent BETWEEN :one AND :ten", &target));
    assert!(evaluates("cnt IN (:one, :n)", &target));
    assert!(!evaluates("cnt IN (:one, :ten)", &target));
    assert!(evaluates("tags IN (:set, :n) OR #n IN (:s)", &target));
}

#[test]
fn boolean_operators_and_precedence() {
    let target = sample();
    assert!(evaluates("NOT cnt = :one", &target));
    assert!(!evaluates("NOT NOT cnt = :one", &target));
    // AND binds tighter than OR; NOT tighter than AND.
    assert!(evaluates("cnt = :n OR cnt = :one AND cnt = :ten", &target));
    assert!(!evaluates("(cnt = :n OR cnt = :one) AND cnt = :ten", &target));
    assert!(evaluates("NOT cnt = :one AND cnt = :n", &target));
    assert!(evaluates("cnt = :n and #n = :s or cnt = :one", &target));
}

#[test]
fn existence_and_type_functions() {
    let target = sample();
    assert!(evaluates("attribute_exists(#n)", &target));
    assert!(evaluates("attribute_exists(doc.inr.val)", &target));
    assert!(evaluates("attribute_exists(elems[2].deep)", &target));
    assert!(!evaluates("attribute_exists(elems[3])", &target));
    assert!(evaluates("attribute_not_exists(absent)", &target));
    assert!(evaluates("attribute_not_exists(#n.inr)", &target));
    assert!(evaluates("attribute_exists(nothing)", &target));
    assert!(evaluates("attribute_type(#n, :type_s)", &target));
    assert!(evaluates("attribute_type(cnt, :type_n)", &target));
    assert!(!evaluates("attribute_type(cnt, :type_s)", &target));
    assert!(!evaluates("attribute_type(absent, :type_s)", &target));
}

#[test]
fn begins_with_strings_and_binaries() {
    let target = sample();
    assert!(evaluates("begins_with(#n, :prefix)", &target));
    assert!(evaluates("begins_with(#n, :s)", &target));
    assert!(!evaluates("begins_with(#n, :b)", &target));
    assert!(evaluates("begins_with(bin, :b)", &target));
    assert!(!evaluates("begins_with(cnt, :prefix)", &target));
    assert!(!evaluates("begins_with(absent, :prefix)", &target));
}

#[test]
fn contains_strings_sets_and_lists() {
    let target = sample();
    assert!(evaluates("contains(#n, :prefix)", &target));
    assert!(evaluates(
        "contains(tags, :set) OR contains(tags, :type_s) OR contains(elems, :s)",
        &target
    ));
    let with_x = item(vec![
        ("tags", ss(&["x"])),
        ("nums", ns(&["2.0"])),
        ("elems", list(vec![n("7")])),
    ]);
    let value_map = values(vec![
        (":x", s("x")),
        (":two", n("2")),
        (":seven", n("7.00")),
        (":list", list(vec![n("7")])),
    ]);
    let check = |expression: &str| {
        let mut placeholders = Placeholders::new(None, Some(&value_map)).unwrap();
        parse_condition(expression, ExpressionKind::Condition, &mut placeholders)
            .unwrap()
            .evaluate(&with_x)
    };
    assert!(check("contains(tags, :x)"));
    assert!(check("contains(nums, :two)"));
    assert!(check("contains(elems, :seven)"));
    assert!(!check("contains(elems, :list)"));
    assert!(!check("contains(tags, :two)"));
    assert!(!check("contains(absent, :x)"));
}

#[test]
fn size_of_each_type() {
    let target = sample();
    let value_map = values(vec![(":zero", n("0")), (":two", n("2")), (":three", n("3"))]);
    let name_map = names(&[("#n", "name")]);
    let check = |expression: &str| {
        let mut placeholders = Placeholders::new(Some(&name_map), Some(&value_map)).unwrap();
        parse_condition(expression, ExpressionKind::Condition, &mut placeholders)
            .unwrap()
            .evaluate(&target)
    };
    assert!(check("size(#n) = :three"));
    assert!(check("size(bin) = :three"));
    assert!(check("size(tags) = :three"));
    assert!(check("size(nums) = :two"));
    assert!(check("size(elems) = :three"));
    assert!(check("size(doc) = :two"));
    assert!(check("size(doc.lst) = :two"));
    assert!(!check("size(cnt) > :zero"));
    assert!(!check("size(flag) >= :zero"));
    assert!(!check("size(absent) >= :zero"));
    assert!(check("size(#n) > size(doc)"));
}

// ---- key conditions ----

fn key_condition<'a>(
    expression: &'a str,
    value_map: &'a BTreeMap<String, AttributeValue>,
) -> Result<KeyCondition<'a>, String> {
    let mut placeholders = Placeholders::new(None, Some(value_map)).unwrap();
    parse_key_condition(expression, &mut placeholders, &["pk"], &["sk"]).map_err(|e| e.to_string())
}

#[test]
fn key_conditions_build_partition_and_sort_conditions() {
    let value_map = values(vec![(":p", s("user")), (":a", n("1")), (":b", n("5")), (":s", s("ab"))]);
    let only = key_condition("pk = :p", &value_map).unwrap();
    assert_eq!(
        only,
        KeyCondition {
            partition: vec![&value_map[":p"]],
            sort_prefix: vec![],
            sort: None
        }
    );
    let cases = [
        ("pk = :p AND sk = :a", SortCondition::Eq(&value_map[":a"])),
        ("sk < :a AND pk = :p", SortCondition::Lt(&value_map[":a"])),
        ("pk = :p AND sk <= :a", SortCondition::Le(&value_map[":a"])),
        ("pk = :p AND sk > :a", SortCondition::Gt(&value_map[":a"])),
        ("pk = :p AND sk >= :a", SortCondition::Ge(&value_map[":a"])),
        ("pk = :p AND :a < sk", SortCondition::Gt(&value_map[":a"])),
        (
            "pk = :p AND sk BETWEEN :a AND :b",
            SortCondition::Between(&value_map[":a"], &value_map[":b"]),
        ),
        (
            "pk = :p AND begins_with(sk, :s)",
            SortCondition::BeginsWith(&value_map[":s"]),
        ),
        ("(pk = :p) AND (sk = :a)", SortCondition::Eq(&value_map[":a"])),
    ];
    for (expression, sort) in cases {
        let parsed = key_condition(expression, &value_map).unwrap();
        assert_eq!(parsed.partition, vec![&value_map[":p"]]);
        assert_eq!(parsed.sort, Some(sort), "{expression}");
    }
}

fn multi_key_condition(expression: &str, value_map: &BTreeMap<String, AttributeValue>) -> Result<String, String> {
    let mut placeholders = Placeholders::new(None, Some(value_map)).unwrap();
    parse_key_condition(expression, &mut placeholders, &["h1", "h2"], &["a", "b", "c"])
        .map(|k| format!("{} {} {:?}", k.partition.len(), k.sort_prefix.len(), k.sort.map(|_| ())))
        .map_err(|e| e.to_string())
}

// Multi-attribute keys of global indexes: AWS's rules and wording as probed against AWS
// (2026-10), e.g. `h = :h AND a = :a AND c = :c` names `b` before `c`.
#[test]
fn multi_attribute_key_conditions_take_a_leading_run_of_sort_attributes() {
    let value_map = values(vec![(":x", s("x")), (":y", s("y")), (":n", n("1"))]);
    let ok = |e: &str| multi_key_condition(e, &value_map);
    assert_eq!(ok("h1 = :x AND h2 = :y"), Ok("2 0 None".into()));
    assert_eq!(
        ok("b = :n AND h2 = :y AND a = :x AND h1 = :x"),
        Ok("2 1 Some(())".into())
    );
    assert_eq!(
        ok("h1 = :x AND h2 = :y AND a = :x AND b = :n AND c > :n"),
        Ok("2 2 Some(())".into())
    );
    assert_eq!(
        ok("h1 = :x AND h2 = :y AND begins_with(a, :x)"),
        Ok("2 0 Some(())".into())
    );
    assert_eq!(
        ok("h1 = :x AND a = :x"),
        Err("Query condition missed key schema element: h2".into())
    );
    assert_eq!(
        ok("h1 = :x AND h2 > :y"),
        Err("Query key condition not supported".into())
    );
    assert_eq!(
        ok("h1 = :x AND h2 = :y AND a = :x AND c = :n"),
        Err("RANGE key attributes b must have equality conditions specified in the query because a condition is present on key attribute c".into())
    );
    assert_eq!(
        ok("h1 = :x AND h2 = :y AND b = :n"),
        Err("RANGE key attributes a must have equality conditions specified in the query because a condition is present on key attribute b".into())
    );
    assert_eq!(
        ok("h1 = :x AND h2 = :y AND a > :x AND b = :n"),
        Err("RANGE key attributes a must have equality conditions specified in the query because a condition is present on key attribute b".into())
    );
}

#[test]
fn sort_conditions_match_values() {
    let (one, five, ab) = (n("1"), n("5"), s("ab"));
    assert!(SortCondition::Between(&one, &five).matches(&n("3")));
    assert!(!SortCondition::Between(&one, &five).matches(&n("6")));
    assert!(SortCondition::Ge(&five).matches(&n("5.0")));
    assert!(!SortCondition::Lt(&five).matches(&s("1")));
    assert!(SortCondition::BeginsWith(&ab).matches(&s("abc")));
    assert!(!SortCondition::BeginsWith(&ab).matches(&s("ba")));
    assert!(SortCondition::Eq(&one).matches(&n("1.00")));
}

#[test]
fn key_condition_errors() {
    let value_map = values(vec![(":a", n("1")), (":b", n("1")), (":s", s("1")), (":type", s("S"))]);
    let cases = [
        ("a > :a and size(b) > :a or a > :a", "Invalid operator used in KeyConditionExpression: OR"),
        ("a in (:a, :b)", "Invalid operator used in KeyConditionExpression: IN"),
        ("attribute_exists(a)", "Invalid operator used in KeyConditionExpression: attribute_exists"),
        ("contains(a.d, :a)", "Invalid operator used in KeyConditionExpression: contains"),
        ("attribute_type(a, :type)", "Invalid operator used in KeyConditionExpression: attribute_type"),
        ("not a > :a", "Invalid operator used in KeyConditionExpression: NOT"),
        ("a <> :a", "Invalid operator used in KeyConditionExpression: <>"),
        (":s between :a and :b and b > :b", "Invalid condition in KeyConditionExpression: BETWEEN operator must have the key attribute as its first operand"),
        ("begins_with(:s, b) and a > :b", "Invalid condition in KeyConditionExpression: begins_with operator must have the key attribute as its first operand"),
        ("size(b) > a AND a.b > b AND b > c", "KeyConditionExpressions cannot contain nested operations"),
        ("a > size(b.d)", "KeyConditionExpressions cannot contain nested operations"),
        ("b > a.b", "Invalid condition in KeyConditionExpression: Multiple attribute names used in one condition"),
        ("b between c[1] and d", "Invalid condition in KeyConditionExpression: Multiple attribute names used in one condition"),
        ("begins_with(a, b)", "Invalid condition in KeyConditionExpression: Multiple attribute names used in one condition"),
        ("b.d > a AND c.d > e.f", "KeyConditionExpressions cannot have conditions on nested attributes"),
        ("a.d > c", "KeyConditionExpressions cannot have conditions on nested attributes"),
        ("b[0] > a", "KeyConditionExpressions cannot have conditions on nested attributes"),
        (":b > :a AND a < :b", "Invalid condition in KeyConditionExpression: No key attribute specified"),
        ("b > :a AND b < :a and c = :a and d = :a", "KeyConditionExpressions must only contain one condition per key"),
        ("(a > :a and b > :a) and (b > :a and c > :a)", "KeyConditionExpressions must only contain one condition per key"),
        ("sk = :a", "Query condition missed key schema element: pk"),
        ("pk > :a", "Query key condition not supported"),
        ("pk = :a AND attr = :b", "Query key condition not supported"),
        ("pk = :a AND begins_with(pk, :s)", "KeyConditionExpressions must only contain one condition per key"),
        ("a between :s and :a", "Invalid KeyConditionExpression: The BETWEEN operator requires same data type for lower and upper bounds; lower bound operand: AttributeValue: {S:1}, upper bound operand: AttributeValue: {N:1}"),
        ("things are not ok", "Invalid KeyConditionExpression: Syntax error; token: \"are\", near: \"things are not\""),
        ("", "Invalid KeyConditionExpression: The expression can not be empty;"),
    ];
    for (expression, message) in cases {
        assert_eq!(
            key_condition(expression, &value_map).unwrap_err(),
            message,
            "{expression}"
        );
    }
    assert_eq!(
        key_condition("attribute_type(a, :a)", &value_map).unwrap_err(),
        "Invalid KeyConditionExpression: Incorrect operand type for operator or function; operator or function: attribute_type, operand type: N"
    );
}

#[test]
fn key_conditions_use_names_and_find_reserved_words() {
    let name_map = names(&[("#k", "pk")]);
    let value_map = values(vec![(":a", n("1"))]);
    let mut placeholders = Placeholders::new(Some(&name_map), Some(&value_map)).unwrap();
    assert!(parse_key_condition("#k = :a", &mut placeholders, &["pk"], &[]).is_ok());
    let mut placeholders = Placeholders::new(None, Some(&value_map)).unwrap();
    assert_eq!(
        parse_key_condition("status = :a", &mut placeholders, &["status"], &[])
            .unwrap_err()
            .to_string(),
        "Invalid KeyConditionExpression: Attribute name is a reserved keyword; reserved keyword: status"
    );
}

// ---- projections ----

fn project(expression: &str, target: &Item) -> Item {
    let name_map = names(&[("#n", "name"), ("#dot", "a.b")]);
    let mut placeholders = Placeholders::new(Some(&name_map), None).unwrap();
    parse_projection(expression, &mut placeholders).unwrap().apply(target)
}

#[test]
fn projections_keep_named_paths() {
    let target = sample();
    assert_eq!(
        project("#n, cnt", &target),
        item(vec![("name", s("abc")), ("cnt", n("5"))])
    );
    assert_eq!(project("#dot, absent", &target), item(vec![("a.b", s("dotted"))]));
    assert_eq!(
        project("doc.inr.val", &target),
        item(vec![("doc", map(vec![("inr", map(vec![("val", n("10"))]))]))])
    );
    assert_eq!(
        project("elems[2].deep, elems[0]", &target),
        item(vec![("elems", list(vec![n("7"), map(vec![("deep", s("v"))])]))])
    );
    assert_eq!(
        project("doc.lst[1], doc.inr.nope", &target),
        item(vec![("doc", map(vec![("lst", list(vec![s("q")]))]))])
    );
    assert_eq!(project("elems[9], #n.inr, cnt[0]", &target), Item::new());
}

#[test]
fn projection_errors() {
    let check = |expression: &str| {
        let mut placeholders = Placeholders::none();
        parse_projection(expression, &mut placeholders).unwrap_err().to_string()
    };
    assert_eq!(
        check(""),
        "Invalid ProjectionExpression: The expression can not be empty;"
    );
    assert_eq!(check("a, b.c, a.d"), "Invalid ProjectionExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a], path two: [a, d]");
    assert_eq!(check("a.b, a[0]"), "Invalid ProjectionExpression: Two document paths conflict with each other; must remove or rewrite one of these paths; path one: [a, b], path two: [a, [0]]");
    assert_eq!(check("a, a"), "Invalid ProjectionExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a], path two: [a]");
    assert_eq!(
        check("name, status"),
        "Invalid ProjectionExpression: Attribute name is a reserved keyword; reserved keyword: name"
    );
    assert_eq!(check("a, #b"), "Invalid ProjectionExpression: An expression attribute name used in the document path is not defined; attribute name: #b");
    assert!(check("a b").starts_with("Invalid ProjectionExpression: Syntax error; token: \"b\""));
    assert!(check("a,").starts_with("Invalid ProjectionExpression: Syntax error; token: \"<EOF>\""));
    assert!(check("size(a)").starts_with("Invalid ProjectionExpression: Syntax error; token: \"(\""));
}

// ---- updates ----

fn apply(expression: &str, target: &Item) -> Result<Item, UpdateError> {
    let name_map = names(&[("#n", "name")]);
    let value_map = standard_values();
    let mut placeholders = Placeholders::new(Some(&name_map), Some(&value_map)).unwrap();
    parse_update(expression, &mut placeholders).unwrap().apply(target)
}

#[test]
fn set_writes_values_paths_and_arithmetic() {
    let target = sample();
    let updated = apply("SET a = :s, b = cnt, cnt = cnt + :one, neg = :one - cnt", &target).unwrap();
    assert_eq!(updated["a"], s("abc"));
    assert_eq!(updated["b"], n("5"));
    assert_eq!(updated["cnt"], n("6"));
    // Operands read the item as it was: `neg` sees count 5, not 6.
    assert_eq!(updated["neg"], n("-4"));
    let updated = apply(
        "set doc.inr.val = :one, doc.added = :t, elems[1] = :n, elems[9] = :s",
        &target,
    )
    .unwrap();
    assert_eq!(
        updated["doc"],
        map(vec![
            ("added", AttributeValue::Bool(true)),
            ("inr", map(vec![("val", n("1"))])),
            ("lst", list(vec![s("p"), s("q")])),
        ])
    );
    assert_eq!(
        updated["elems"],
        list(vec![n("7"), n("5"), map(vec![("deep", s("v"))]), s("abc")])
    );
}

#[test]
fn set_functions() {
    let target = sample();
    let updated = apply(
        "SET a = if_not_exists(absent, :n), b = if_not_exists(cnt, :ten), c = list_append(elems, :list), d = list_append(:list, :list)",
        &target,
    )
    .unwrap();
    assert_eq!(updated["a"], n("5"));
    assert_eq!(updated["b"], n("5"));
    let AttributeValue::L(appended) = &updated["c"] else {
        panic!("not a list")
    };
    assert_eq!(appended.len(), 4);
    assert_eq!(updated["d"], list(vec![n("7"), n("7")]));
    let updated = apply(
        "SET cnt = if_not_exists(cnt, :one) + :one, fresh = if_not_exists(fresh, :one) + :one",
        &target,
    )
    .unwrap();
    assert_eq!((&updated["cnt"], &updated["fresh"]), (&n("6"), &n("2")));
}

#[test]
fn remove_attributes_and_list_elements() {
    let target = sample();
    let updated = apply("REMOVE #n, doc.inr, elems[0], elems[2], absent", &target).unwrap();
    assert!(!updated.contains_key("name"));
    assert_eq!(updated["doc"], map(vec![("lst", list(vec![s("p"), s("q")]))]));
    // Indexes refer to the list before the update.
    assert_eq!(updated["elems"], list(vec![s("abc")]));
    let updated = apply("REMOVE elems[7]", &target).unwrap();
    assert_eq!(updated, target);
}

#[test]
fn add_numbers_and_sets() {
    let target = sample();
    let updated = apply("ADD cnt :one, tags :set, nums :nset, fresh :n, freshset :set", &target).unwrap();
    assert_eq!(updated["cnt"], n("6"));
    assert_eq!(updated["tags"], ss(&["x", "y", "z"]));
    assert_eq!(updated["nums"], ns(&["1", "2.0", "3"]));
    assert_eq!(updated["fresh"], n("5"));
    assert_eq!(updated["freshset"], ss(&["x", "y"]));
}

#[test]
fn delete_from_sets() {
    let target = sample();
    let updated = apply("DELETE tags :set, nums :nset, absent :set", &target).unwrap();
    assert_eq!(updated["tags"], ss(&["z"]));
    assert_eq!(updated["nums"], ns(&["1"]));
    let emptied = item(vec![("tags", ss(&["x", "y"]))]);
    assert_eq!(apply("DELETE tags :set", &emptied).unwrap(), Item::new());
}

#[test]
fn all_four_clauses_together_in_any_case() {
    let target = sample();
    let updated = apply("set a = :one remove flag add cnt :one delete tags :set", &target).unwrap();
    assert_eq!(updated["a"], n("1"));
    assert!(!updated.contains_key("flag"));
    assert_eq!(updated["cnt"], n("6"));
    assert_eq!(updated["tags"], ss(&["z"]));
}

#[test]
fn update_runtime_errors() {
    let target = sample();
    for (expression, error) in [
        ("SET a = absent", UpdateError::MissingAttribute),
        ("SET a = list_append(absent, :list)", UpdateError::MissingAttribute),
        ("SET a = #n + :one", UpdateError::WrongType),
        ("SET a = cnt - #n", UpdateError::WrongType),
        ("SET a = list_append(cnt, :list)", UpdateError::WrongType),
        ("SET absent.a = :one", UpdateError::InvalidPath),
        ("SET absent[1] = :one", UpdateError::InvalidPath),
        ("SET #n.a = :one", UpdateError::InvalidPath),
        ("SET doc[0] = :one", UpdateError::InvalidPath),
        ("SET elems.a = :one", UpdateError::InvalidPath),
        ("REMOVE absent.a", UpdateError::InvalidPath),
        ("REMOVE doc[1]", UpdateError::InvalidPath),
        ("ADD #n :one", UpdateError::WrongType),
        ("ADD cnt :set", UpdateError::WrongType),
        ("ADD tags :nset", UpdateError::WrongType),
        ("ADD absent.a :one", UpdateError::InvalidPath),
        ("DELETE cnt :set", UpdateError::WrongType),
        ("DELETE tags :nset", UpdateError::WrongType),
        ("DELETE absent.a :set", UpdateError::InvalidPath),
    ] {
        assert_eq!(apply(expression, &target), Err(error), "{expression}");
    }
    assert_eq!(
        UpdateError::WrongType.to_string(),
        "An operand in the update expression has an incorrect data type"
    );
    assert_eq!(
        UpdateError::MissingAttribute.to_string(),
        "The provided expression refers to an attribute that does not exist in the item"
    );
    assert_eq!(
        UpdateError::InvalidPath.to_string(),
        "The document path provided in the update expression is invalid for update"
    );
    let huge = item(vec![("big", n("9e125"))]);
    assert_eq!(
        apply("SET big = big + big", &huge).unwrap_err().to_string(),
        "Number overflow. Attempting to store a number with magnitude larger than supported range"
    );
}

#[test]
fn update_syntax_errors_from_dynalite() {
    for expression in [
        "whatever",
        "set a",
        "add a",
        "delete a",
        "set a=set",
        "remove a = b",
        "add a = b",
        "delete a = b",
        "delete a b",
        "delete a if_not_exist(b)",
        "add abort b",
        "add a if_not_exist(b)",
        "remove a b",
        "set a b",
        "set :a = b",
        "add :a b",
        "delete :a b",
        "remove :a",
        "set a = b / c",
        "set a = b * c",
        "set a[1] = \"eight\"",
        "set a[1] = 1",
        "SET if_not_exist(a, b) = a",
        "set (a = (b + c))",
        "set a = (b.c).d + e",
        "set a = (b.c)[0] + e",
        "set a = b + c + d",
        "set a = b,",
    ] {
        let message = update_error(expression, &[], vec![]);
        assert!(
            message.starts_with("Invalid UpdateExpression: Syntax error; "),
            "{expression}: {message}"
        );
    }
}

#[test]
fn update_validation_errors() {
    let value_map = vec![(":a", s("a")), (":b", s("a"))];
    let names_ab = [("#a", "a"), ("#b", "b")];
    assert_eq!(
        update_error(" set #c = :c set abOrt = true ", &names_ab, value_map.clone()),
        "Invalid UpdateExpression: Attribute name is a reserved keyword; reserved keyword: abOrt"
    );
    assert_eq!(
        update_error(" remove Absolute ", &names_ab, value_map.clone()),
        "Invalid UpdateExpression: Attribute name is a reserved keyword; reserved keyword: Absolute"
    );
    assert_eq!(
        update_error("set #c = if_not_exist(:c) set c = d", &names_ab, value_map.clone()),
        "Invalid UpdateExpression: Invalid function name; function: if_not_exist"
    );
    for (expression, section) in [
        ("set a = #c set c = :d", "SET"),
        ("remove #d set a = b remove e", "REMOVE"),
        ("add #d :e set a = b add e :f", "ADD"),
        ("delete #d :e set a = b delete #e :f", "DELETE"),
    ] {
        assert_eq!(
            update_error(expression, &names_ab, value_map.clone()),
            format!(
                "Invalid UpdateExpression: The \"{section}\" section can only be used once in an update expression;"
            )
        );
    }
    assert_eq!(
        update_error("SET #c = if_not_exists(:c)", &names_ab, value_map.clone()),
        "Invalid UpdateExpression: An expression attribute name used in the document path is not defined; attribute name: #c"
    );
    assert_eq!(
        update_error("SET #a = if_not_exists(:c)", &names_ab, value_map.clone()),
        "Invalid UpdateExpression: An expression attribute value used in expression is not defined; attribute value: :c"
    );
    assert_eq!(
        update_error("set a = if_not_exists(c)", &[], vec![]),
        "Invalid UpdateExpression: Incorrect number of operands for operator or function; operator or function: if_not_exists, number of operands: 1"
    );
    assert_eq!(
        update_error("set a = list_append(c)", &[], vec![]),
        "Invalid UpdateExpression: Incorrect number of operands for operator or function; operator or function: list_append, number of operands: 1"
    );
    for expression in [
        "set a = if_not_exists(:a, c)",
        "set a = if_not_exists(if_not_exists(a, b), c)",
    ] {
        assert_eq!(
            update_error(expression, &[], value_map.clone()),
            "Invalid UpdateExpression: Operator or function requires a document path; operator or function: if_not_exists"
        );
    }
    assert_eq!(
        update_error("SET a = size(b)", &[], vec![]),
        "Invalid UpdateExpression: The function is not allowed in an update expression; function: size"
    );
}

#[test]
fn update_operand_types() {
    let value_map = vec![
        (":a", s("a")),
        (":b", n("1")),
        (":c", AttributeValue::B(b"a".to_vec())),
        (":d", AttributeValue::Bool(false)),
        (":e", AttributeValue::Null(true)),
        (":f", ss(&["a"])),
        (":g", ns(&["1"])),
        (":h", AttributeValue::Bs(vec![b"a".to_vec()])),
        (":i", map(vec![])),
        (":j", list(vec![])),
    ];
    for (expression, function, shown) in [
        ("set a = list_append(:a, a)", "list_append", "S"),
        ("set a = list_append(a, :b)", "list_append", "N"),
        ("set a = list_append(:i, a)", "list_append", "M"),
        ("set a = a + :a", "+", "S"),
        ("set a = :c + a", "+", "B"),
        ("set a = a + :f", "+", "SS"),
        ("set a = a - :d", "-", "BOOL"),
        ("set a = a - :e", "-", "NULL"),
        ("set a = a - :j", "-", "L"),
    ] {
        let used: Vec<_> = value_map
            .iter()
            .filter(|(k, _)| expression.contains(k))
            .cloned()
            .collect();
        assert_eq!(
            update_error(expression, &[], used),
            format!("Invalid UpdateExpression: Incorrect operand type for operator or function; operator or function: {function}, operand type: {shown}")
        );
    }
    for (expression, value, operator, shown) in [
        ("add a.b :a", s("a"), "ADD", "STRING"),
        ("delete a.b :a", s("a"), "DELETE", "STRING"),
        ("add a.b :a", AttributeValue::Null(true), "ADD", "NULL"),
        ("add a.b :a", AttributeValue::Bool(false), "ADD", "BOOLEAN"),
        ("delete a.b :a", AttributeValue::B(vec![1]), "DELETE", "BINARY"),
        ("add a.b :a", map(vec![]), "ADD", "MAP"),
        ("delete a.b :a", list(vec![]), "DELETE", "LIST"),
        ("delete a.b :a", n("1"), "DELETE", "NUMBER"),
    ] {
        assert_eq!(
            update_error(expression, &[], vec![(":a", value)]),
            format!("Invalid UpdateExpression: Incorrect operand type for operator or function; operator: {operator}, operand type: {shown}")
        );
    }
}

#[test]
fn overlapping_and_conflicting_update_paths() {
    let names_cd = [("#c", "c"), ("#d", "[3]"), ("#b", "b")];
    assert_eq!(
        update_error("set d[1] = a, d.b = a, c[1].a = a, #c = if_not_exists(a)", &names_cd, vec![]),
        "Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [c, [1], a], path two: [c]"
    );
    assert_eq!(
        update_error("set #c[3].#d = a, #c[3] = a", &names_cd, vec![]),
        "Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [c, [3], [3]], path two: [c, [3]]"
    );
    assert_eq!(
        update_error("set #c[3].#d = a, #c.#d[3] = if_not_exists(a)", &names_cd, vec![]),
        "Invalid UpdateExpression: Two document paths conflict with each other; must remove or rewrite one of these paths; path one: [c, [3], [3]], path two: [c, [3], [3]]"
    );
    assert_eq!(
        update_error("remove a.#c set a[1] = #d", &names_cd, vec![]),
        "Invalid UpdateExpression: Two document paths conflict with each other; must remove or rewrite one of these paths; path one: [a, c], path two: [a, [1]]"
    );
    assert_eq!(
        update_error("SET a = :v REMOVE a", &[], vec![(":v", n("1"))]),
        "Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a], path two: [a]"
    );
}

// ---- robustness ----

/// Every token of the grammars, for mutation.
const TOKENS: &[&[u8]] = &[
    b"(",
    b")",
    b"[",
    b"]",
    b",",
    b".",
    b"=",
    b"<>",
    b"<",
    b"<=",
    b">",
    b">=",
    b"+",
    b"-",
    b" AND ",
    b" OR ",
    b"NOT ",
    b" BETWEEN ",
    b" IN ",
    b"SET ",
    b" REMOVE ",
    b" ADD ",
    b" DELETE ",
    b"size(",
    b"contains(",
    b"begins_with(",
    b"attribute_exists(",
    b"attribute_not_exists(",
    b"attribute_type(",
    b"if_not_exists(",
    b"list_append(",
    b"#n",
    b"#missing",
    b":s",
    b":n",
    b":list",
    b":set",
    b":missing",
    b"[0]",
    b"[99999999999999999999999]",
    b"status",
    b"\xc3\xbc",
    b"\"",
    b"_",
    b"0",
];

const SEEDS: &[&str] = &[
    "#n = :s AND (cnt BETWEEN :one AND :ten OR NOT contains(tags, :s))",
    "attribute_exists(doc.inr.val) AND size(elems) > :one",
    "begins_with(#n, :prefix) OR attribute_type(cnt, :type_n) AND cnt IN (:one, :n, :ten)",
    "SET a = if_not_exists(a, :one) + :n, b = list_append(elems, :list) REMOVE doc.lst[1] ADD cnt :one DELETE tags :set",
    "#n, doc.inr.val, elems[2].deep",
    "(a) between (b) and (c)",
];

#[test]
fn parsers_never_panic_on_mutated_input() {
    let name_map = names(&[("#n", "name")]);
    let value_map = standard_values();
    let target = sample();
    let mut rng = stratus_test_support::Rng(0x0dd_ba11);
    for round in 0..30_000 {
        let seed = SEEDS[round % SEEDS.len()];
        let bytes = stratus_test_support::mutate(&mut rng, seed.as_bytes(), TOKENS);
        let text = String::from_utf8_lossy(&bytes);
        let mut placeholders = Placeholders::new(Some(&name_map), Some(&value_map)).unwrap();
        if let Ok(condition) = parse_condition(&text, ExpressionKind::Filter, &mut placeholders) {
            condition.evaluate(&target);
        }
        if let Ok(update) = parse_update(&text, &mut placeholders) {
            let _ = update.apply(&target);
        }
        if let Ok(projection) = parse_projection(&text, &mut placeholders) {
            projection.apply(&target);
        }
        let _ = parse_key_condition(&text, &mut placeholders, &["name"], &["cnt"]);
        let _ = placeholders.check_unused();
    }
}

#[test]
fn parsers_never_panic_on_random_token_soup() {
    let name_map = names(&[("#n", "name")]);
    let value_map = standard_values();
    let mut rng = stratus_test_support::Rng(7);
    for _ in 0..20_000 {
        let soup: Vec<u8> = (0..1 + rng.below(12))
            .flat_map(|_| TOKENS[rng.below(TOKENS.len())].iter().copied())
            .collect();
        let text = String::from_utf8_lossy(&soup);
        let mut placeholders = Placeholders::new(Some(&name_map), Some(&value_map)).unwrap();
        let _ = parse_condition(&text, ExpressionKind::Condition, &mut placeholders);
        let _ = parse_update(&text, &mut placeholders);
        let _ = parse_projection(&text, &mut placeholders);
    }
}

#[test]
fn deep_nesting_does_not_overflow_the_stack() {
    let value_map = standard_values();
    let check = |expression: &str| {
        let mut placeholders = Placeholders::new(None, Some(&value_map)).unwrap();
        parse_condition(expression, ExpressionKind::Filter, &mut placeholders)
            .map(drop)
            .map_err(|e| e.to_string())
    };
    let deep = format!("{}a = :s{}", "(".repeat(2_000), ")".repeat(2_000));
    assert!(check(&deep)
        .unwrap_err()
        .starts_with("Invalid FilterExpression: Syntax error; token: \"(\""));
    let calls = format!("{}a{}", "size(".repeat(800), ")".repeat(800));
    assert!(check(&calls).is_err());
    let nots = format!("{}a = :s", "NOT ".repeat(1_000));
    assert_eq!(check(&nots), Ok(()));
    let mut updates = Placeholders::new(None, Some(&value_map)).unwrap();
    let nested = format!("SET a = {}:n{}", "(".repeat(2_000), ")".repeat(2_000));
    assert!(parse_update(&nested, &mut updates).is_err());
}

#[test]
fn expressions_over_4_kb_are_refused() {
    let long = format!("a = :s{}", " OR a = :s".repeat(500));
    assert_eq!(
        filter_error(&long, &[], vec![(":s", s("x"))]),
        format!(
            "Invalid FilterExpression: Expression size has exceeded the maximum allowed size; expression size: {}",
            long.len()
        )
    );
}
