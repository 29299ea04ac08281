//! The query language subset against the CloudWatch Logs user guide's "CloudWatch Logs
//! Insights language query syntax" (cited as "query syntax" below), and a property test that
//! parsing and running never panic.

use stratus_test_support::{mutate, Rng};

use super::{Event, Query};

fn events() -> Vec<Event> {
    let lines = [
        r#"{"level":"ERROR","ms":120,"path":"/a"}"#,
        r#"{"level":"INFO","ms":30,"path":"/a"}"#,
        r#"{"level":"INFO","ms":60,"path":"/b"}"#,
        "user=bob action=login took 15 ms",
    ];
    lines
        .iter()
        .enumerate()
        .map(|(i, m)| Event {
            timestamp: 1_700_000_000_000 + i as i64 * 60_000,
            ingestion: 1_700_000_000_000,
            group: "g".to_owned(),
            stream: "s".to_owned(),
            message: (*m).to_owned(),
            pointer: format!("p{i}"),
        })
        .collect()
}

fn run(query: &str) -> Vec<Vec<(String, String)>> {
    Query::parse(query)
        .unwrap_or_else(|e| panic!("{query}: {e}"))
        .run("111111111111", &events(), 10_000)
        .0
}

fn column(rows: &[Vec<(String, String)>], field: &str) -> Vec<String> {
    rows.iter()
        .filter_map(|r| r.iter().find(|(f, _)| f == field).map(|(_, v)| v.clone()))
        .collect()
}

// Query syntax, "fields": the named fields, newest event first without a sort; @ptr added.
#[test]
fn fields_show_the_named_fields_newest_first() {
    let rows = run("fields @timestamp, level");
    assert_eq!(column(&rows, "level"), ["INFO", "INFO", "ERROR"]);
    assert_eq!(
        rows[0][0],
        ("@timestamp".to_owned(), "2023-11-14 22:16:20.000".to_owned())
    );
    assert!(rows[0].iter().any(|(f, _)| f == "@ptr"));
}

// Query syntax, "filter": comparisons, like, =~ and boolean operators.
#[test]
fn filters_compare_and_match() {
    assert_eq!(
        column(&run("fields path | filter ms > 50 and level = 'INFO'"), "path"),
        ["/b"]
    );
    assert_eq!(run("filter @message like /login/ | fields @message").len(), 1);
    // The line without `ms` fails the comparison, so `not` takes it.
    assert_eq!(run("filter level =~ /ERR/ or not ms >= 30 | fields level").len(), 2);
}

// Query syntax, "stats": aggregation functions, grouped by a field and by bin().
#[test]
fn stats_aggregate_by_field_and_bin() {
    let rows = run("stats count(*) as n, avg(ms), max(ms) by level | sort level");
    assert_eq!(column(&rows, "level"), ["", "ERROR", "INFO"]);
    assert_eq!(column(&rows, "n"), ["1", "1", "2"]);
    assert_eq!(column(&rows, "avg(ms)"), ["120", "45"]);
    let binned = run("filter ispresent = 1 or ms > 0 | stats sum(ms) by bin(2m)");
    assert_eq!(column(&binned, "sum(ms)"), ["120", "90"]);
}

// Query syntax, "sort" and "limit".
#[test]
fn sort_and_limit() {
    assert_eq!(column(&run("fields ms | sort ms desc | limit 2"), "ms"), ["120", "60"]);
}

// Query syntax, "parse" with a glob.
#[test]
fn parse_extracts_glob_captures() {
    let rows = run(
        "parse @message 'user=* action=* took * ms' as user, action, took | filter took < 20 | display user, action",
    );
    let expected = [("user", "bob"), ("action", "login"), ("@ptr", "p3")];
    assert_eq!(rows, vec![expected.map(|(f, v)| (f.to_owned(), v.to_owned())).to_vec()]);
}

// Query syntax, "dedup".
#[test]
fn dedup_keeps_the_first_of_each_value() {
    assert_eq!(column(&run("fields path | dedup path"), "path").len(), 2);
}

#[test]
fn malformed_queries_are_refused() {
    for bad in [
        "",
        "fields",
        "filter a >",
        "stats sum(*)",
        "limit 0",
        "parse @message 'a*' as x, y",
        "sort",
        "frobnicate x",
        "filter (a = 1",
    ] {
        assert!(Query::parse(bad).is_err(), "{bad:?} was accepted");
    }
}

const SEEDS: &[&[u8]] = &[
    b"fields @timestamp, @message | filter level = 'ERROR' and ms > 3 | sort @timestamp desc | limit 20",
    b"parse @message 'user=* action=*' as u, a | stats count(*) as n, avg(ms) by u, bin(5m)",
    b"filter @message like /x+y/ or not (a != 2) | dedup a | display a",
];

const TOKENS: &[&[u8]] = &[
    b"|",
    b",",
    b"(",
    b")",
    b"'",
    b"\"",
    b"/",
    b"`",
    b"=",
    b"!=",
    b"=~",
    b"<",
    b">=",
    b"*",
    b"and",
    b"or",
    b"not",
    b"by",
    b"as",
    b"bin(",
    b"5m",
    b"0",
    b"-1",
    b"1e999",
    b"stats",
    b"sort",
    b"limit",
    b" ",
    b"\\",
    b"\xe2\x82",
];

#[test]
fn parsing_and_running_never_panic() {
    let mut rng = Rng(0x1a51_6475_0000_0001);
    let events = events();
    let (mut parsed, mut refused) = (0, 0);
    for i in 0..10_000 {
        let bytes = if i % 5 == 0 {
            (0..rng.below(20))
                .flat_map(|_| TOKENS[rng.below(TOKENS.len())].to_vec())
                .collect()
        } else {
            mutate(&mut rng, SEEDS[i % SEEDS.len()], TOKENS)
        };
        match Query::parse(&String::from_utf8_lossy(&bytes)) {
            Ok(q) => {
                parsed += 1;
                q.run("1", &events, 100);
            }
            Err(e) => {
                refused += 1;
                assert!(!e.0.is_empty());
            }
        }
    }
    assert!(parsed > 500 && refused > 500, "parsed {parsed}, refused {refused}");
}
