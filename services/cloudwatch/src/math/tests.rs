//! Metric math against the user guide's "Metric math syntax and functions" (cited as
//! "functions page"), over two fixed series; then the search expressions; then property
//! tests that no input makes the parsers or the evaluator panic.

use stratus_test_support::{fuzz_input, Rng};

use super::{eval, parse, parse_search, Series, Source, Val};
use crate::metric::MetricId;

const MINUTE: i64 = 60_000;

struct Fixed;

fn series(label: &str, points: &[(i64, f64)]) -> Series {
    Series {
        label: label.to_owned(),
        points: points.iter().map(|(t, v)| (t * MINUTE, *v)).collect(),
    }
}

fn m1() -> Series {
    series("m1", &[(0, 1.0), (1, 2.0), (2, 3.0)])
}

fn m2() -> Series {
    series("m2", &[(0, 10.0), (2, 30.0)])
}

impl Source for Fixed {
    fn query(&mut self, id: &str) -> Result<Val, String> {
        match id {
            "m1" => Ok(Val::Series(m1())),
            "m2" => Ok(Val::Series(m2())),
            other => Err(format!("Unknown id {other}")),
        }
    }

    fn metric_queries(&mut self) -> Result<Vec<(String, Series)>, String> {
        Ok(vec![("m1".to_owned(), m1()), ("m2".to_owned(), m2())])
    }

    fn search(&mut self, _: &str, _: &str, _: i64) -> Result<Vec<Series>, String> {
        Ok(vec![m2()])
    }

    fn grid(&self) -> Vec<i64> {
        (0..4).map(|i| i * MINUTE).collect()
    }

    fn period_s(&self) -> i64 {
        60
    }
}

fn run(text: &str) -> Val {
    let expr = parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
    eval(&expr, &mut Fixed).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn points(val: Val) -> Vec<(i64, f64)> {
    match val {
        Val::Series(s) => s.points.into_iter().map(|(t, v)| (t / MINUTE, v)).collect(),
        other => panic!("not a series: {other:?}"),
    }
}

#[test]
fn arithmetic_follows_the_usual_precedence() {
    let table = [
        ("1 + 2 * 3", 7.0),
        ("(1 + 2) * 3", 9.0),
        ("2 ^ 3 ^ 2", 512.0),
        ("-2 ^ 2", -4.0),
        ("10 / 4 - 1", 1.5),
        ("1 < 2 AND 2 <= 2", 1.0),
        ("1 > 2 || 3 != 3", 0.0),
        ("!(1 == 1)", 0.0),
        ("NOT 0", 1.0),
        ("1.5e1 + .5", 15.5),
    ];
    for (text, want) in table {
        assert_eq!(run(text), Val::Scalar(want), "{text}");
    }
}

// Functions page, "Operators": two series combine at the timestamps both have; a series and
// a number at every point.
#[test]
fn series_arithmetic_meets_at_shared_timestamps() {
    assert_eq!(points(run("m1 + m2")), [(0, 11.0), (2, 33.0)]);
    assert_eq!(points(run("m1 * 2")), [(0, 2.0), (1, 4.0), (2, 6.0)]);
    assert_eq!(points(run("100 / m1")), [(0, 100.0), (1, 50.0), (2, 100.0 / 3.0)]);
    assert_eq!(points(run("m1 > 1 AND m1 < 3")), [(0, 0.0), (1, 1.0), (2, 0.0)]);
}

// Functions page: SUM, AVG, MIN, MAX and STDDEV of one series give a number; of an array
// they give the series of each timestamp's summary.
#[test]
fn summaries_reduce_a_series_over_time_and_an_array_across_members() {
    assert_eq!(run("SUM(m1)"), Val::Scalar(6.0));
    assert_eq!(run("AVG(m1)"), Val::Scalar(2.0));
    assert_eq!(run("MAX(m1)"), Val::Scalar(3.0));
    assert_eq!(run("MIN(m2)"), Val::Scalar(10.0));
    assert_eq!(run("STDDEV(m2)"), Val::Scalar(10.0));
    assert_eq!(points(run("SUM([m1, m2])")), [(0, 11.0), (1, 2.0), (2, 33.0)]);
    assert_eq!(points(run("AVG([m1, m2])")), [(0, 5.5), (1, 2.0), (2, 16.5)]);
    assert_eq!(points(run("MIN([m1, m2])")), [(0, 1.0), (1, 2.0), (2, 3.0)]);
    assert_eq!(points(run("max(METRICS())")), [(0, 10.0), (1, 2.0), (2, 30.0)]);
    assert_eq!(points(run("SUM(METRICS('2'))")), [(0, 10.0), (2, 30.0)]);
}

// Functions page, FILL: a number, REPEAT (the last value before, else the next) or LINEAR
// (interpolated between neighbours) for each period without a value.
#[test]
fn fill_completes_every_period_of_the_window() {
    assert_eq!(points(run("FILL(m2, 0)")), [(0, 10.0), (1, 0.0), (2, 30.0), (3, 0.0)]);
    assert_eq!(
        points(run("FILL(m2, REPEAT)")),
        [(0, 10.0), (1, 10.0), (2, 30.0), (3, 30.0)]
    );
    assert_eq!(
        points(run("FILL(m2, LINEAR)")),
        [(0, 10.0), (1, 20.0), (2, 30.0), (3, 30.0)]
    );
    assert_eq!(
        points(run("FILL(m2, 1 + 1)")),
        [(0, 10.0), (1, 2.0), (2, 30.0), (3, 2.0)]
    );
}

// Functions page: DIFF is each value minus the one before; RATE that per second; both start
// at the second point. DIFF_TIME is the seconds between points.
#[test]
fn diff_and_rate_compare_consecutive_points() {
    assert_eq!(points(run("DIFF(m1)")), [(1, 1.0), (2, 1.0)]);
    assert_eq!(points(run("RATE(m1)")), [(1, 1.0 / 60.0), (2, 1.0 / 60.0)]);
    assert_eq!(points(run("DIFF_TIME(m2)")), [(2, 120.0)]);
    assert_eq!(points(run("RUNNING_SUM(m1)")), [(0, 1.0), (1, 3.0), (2, 6.0)]);
}

// Functions page, IF: the second argument where the condition is true, the third (when
// given) where it is false, no point otherwise.
#[test]
fn if_chooses_per_timestamp() {
    assert_eq!(points(run("IF(m1 > 1, m1, 0)")), [(0, 0.0), (1, 2.0), (2, 3.0)]);
    assert_eq!(points(run("IF(m1 >= 2, 100)")), [(1, 100.0), (2, 100.0)]);
    assert_eq!(points(run("IF(m1 == 2, m2, m1)")), [(0, 1.0), (2, 3.0)]);
}

#[test]
fn other_functions() {
    assert_eq!(run("PERIOD(m1)"), Val::Scalar(60.0));
    assert_eq!(run("DATAPOINT_COUNT(m2)"), Val::Scalar(2.0));
    assert_eq!(run("METRIC_COUNT(METRICS())"), Val::Scalar(2.0));
    assert_eq!(points(run("ABS(-m1)")), [(0, 1.0), (1, 2.0), (2, 3.0)]);
    assert_eq!(points(run("TIME_SERIES(5)")), [(0, 5.0), (1, 5.0), (2, 5.0), (3, 5.0)]);
    assert_eq!(points(run("LAST(METRICS())")), [(0, 10.0), (2, 30.0)]);
    assert_eq!(
        points(run("SUM(SEARCH('{ns} cpu', 'Sum', 60))")),
        [(0, 10.0), (2, 30.0)]
    );
    match run("m1 * METRICS()") {
        Val::Array(a) => assert_eq!(a.len(), 2),
        other => panic!("{other:?}"),
    }
}

#[test]
fn malformed_expressions_are_refused() {
    for text in [
        "",
        "m1 +",
        "FOO(m1)",
        "SUM()",
        "(m1",
        "'open",
        "[1]",
        "m1 m2",
        "m3",
        "FILL(m1, 'x')",
        "1 $ 2",
        "METRICS() + METRICS()",
    ] {
        let result = parse(text).and_then(|e| eval(&e, &mut Fixed));
        assert!(result.is_err(), "{text} was accepted: {result:?}");
    }
}

fn metric(namespace: &str, name: &str, dims: &[(&str, &str)]) -> MetricId {
    MetricId::new(
        namespace,
        name,
        dims.iter().map(|(n, v)| (n.to_string(), v.to_string())),
    )
}

// Search expression syntax page: a schema keeps metrics with exactly its dimensions; words
// match partially, ignoring case; quoted values and Property=value narrow it.
#[test]
fn search_expressions_find_metrics() {
    let cpu = metric("AWS/EC2", "CPUUtilization", &[("InstanceId", "i-123")]);
    let net = metric("AWS/EC2", "NetworkIn", &[("InstanceId", "i-456")]);
    let bare = metric("AWS/EC2", "CPUUtilization", &[]);
    let table = [
        ("{AWS/EC2,InstanceId} cpu", [true, false, false]),
        ("{AWS/EC2} CPUUtilization", [false, false, true]),
        ("MetricName=\"CPUUtilization\"", [true, false, true]),
        ("InstanceId=i-4", [false, true, false]),
        ("cpu OR network", [true, true, true]),
        ("NOT cpu", [false, true, false]),
        ("\"i-123\"", [true, false, false]),
        ("ec2 AND (i-123 OR i-456)", [true, true, false]),
        ("{\"AWS/EC2\", \"InstanceId\"}", [true, true, false]),
    ];
    for (text, want) in table {
        let search = parse_search(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(
            [search.matches(&cpu), search.matches(&net), search.matches(&bare)],
            want,
            "{text}"
        );
    }
    for bad in ["", "{", "{}", "a =", "(a", "a)", "\"open"] {
        assert!(parse_search(bad).is_err(), "{bad}");
    }
}

const SEEDS: &[&[u8]] = &[
    b"SUM([m1, m2]) / 2",
    b"IF(m1 > 1 AND NOT m2 == 3, FILL(m2, LINEAR), -m1 ^ 2)",
    b"SEARCH('{AWS/EC2,InstanceId} MetricName=\"CPU\" OR (a AND NOT b)', 'Sum', 300)",
    b"RATE(METRICS('m')) * 100 >= 5 || DIFF(m1) != 0",
];

const TOKENS: &[&[u8]] = &[
    b"(",
    b")",
    b"[",
    b"]",
    b",",
    b"'",
    b"\"",
    b"{",
    b"}",
    b"=",
    b"^",
    b"-",
    b"!",
    b"AND",
    b"OR",
    b"NOT",
    b"m1",
    b"m2",
    b"SUM(",
    b"FILL(",
    b"METRICS()",
    b"1e999",
    b"0",
    b"\\",
    b" ",
    b"\xff",
];

#[test]
fn parsing_and_evaluating_never_panic() {
    let mut rng = Rng(0x5eed_ca11_ab1e_0001);
    let (mut parsed, mut refused) = (0, 0);
    for i in 0..20_000 {
        let bytes = fuzz_input(&mut rng, i, SEEDS, TOKENS, 40);
        let text = String::from_utf8_lossy(&bytes);
        match parse(&text) {
            Ok(expr) => {
                parsed += 1;
                let _ = eval(&expr, &mut Fixed);
            }
            Err(_) => refused += 1,
        }
        if let Ok(search) = parse_search(&text) {
            search.matches(&metric("ns", "m", &[("a", "b")]));
        }
    }
    assert!(parsed > 100 && refused > 100, "{parsed} parsed, {refused} refused");
}

#[test]
fn deep_nesting_is_refused_not_overflowed() {
    let deep = "(".repeat(10_000) + "1" + &")".repeat(10_000);
    assert!(parse(&deep).is_err());
    let negations = "-".repeat(10_000) + "1";
    assert!(parse(&negations).is_err());
    let search = "(".repeat(10_000) + "a" + &")".repeat(10_000);
    assert!(parse_search(&search).is_err());
    assert!(parse_search(&"NOT ".repeat(10_000)).is_err());
}
