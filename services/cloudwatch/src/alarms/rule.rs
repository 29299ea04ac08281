//! Composite alarms' rules (API reference, PutCompositeAlarm `AlarmRule`): `ALARM(a)`,
//! `OK(a)`, `INSUFFICIENT_DATA(a)` — `a` an alarm's name or ARN, quoted or not — `TRUE`,
//! `FALSE`, `AND`, `OR`, `NOT` and parentheses; and their evaluation whenever an alarm they
//! name changes state.

use serde_json::json;
use stratus_storage::{Direction, KeyRange, Tx};

use super::{transition, AlarmKind, AlarmRecord, At, NewState, ALARM, ALARMS, OK};
use crate::dates;
use crate::error::Result;
use crate::service::CloudWatchService;

/// The longest rule AWS takes (API reference: 10,240 characters).
pub(crate) const MAX_RULE_CHARS: usize = 10_240;
const MAX_DEPTH: usize = 64;
/// Composites of composites are re-evaluated this many levels deep.
const MAX_LEVELS: usize = 8;

/// A parsed rule.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Rule {
    Const(bool),
    /// The state and the alarm (name or ARN).
    State(String, String),
    Not(Box<Rule>),
    And(Box<Rule>, Box<Rule>),
    Or(Box<Rule>, Box<Rule>),
}

/// The child alarm whose change a composite's state follows, for its reason and notification.
#[derive(Clone, Debug)]
pub(crate) struct Trigger {
    pub arn: String,
    pub state: String,
    pub timestamp_ms: i64,
}

struct Parser<'a> {
    text: &'a str,
    at: usize,
    depth: usize,
}

/// Parses `text`, or says why not.
pub(crate) fn parse(text: &str) -> std::result::Result<Rule, String> {
    let mut parser = Parser { text, at: 0, depth: 0 };
    let rule = parser.or()?;
    parser.skip_space();
    if parser.at != text.len() {
        return Err(format!("Unexpected text at position {}", parser.at));
    }
    Ok(rule)
}

impl Parser<'_> {
    fn rest(&self) -> &str {
        &self.text[self.at..]
    }

    fn skip_space(&mut self) {
        let trimmed = self.rest().trim_start();
        self.at = self.text.len() - trimmed.len();
    }

    fn keyword(&mut self, word: &str) -> bool {
        self.skip_space();
        let rest = self.rest();
        let matches = rest
            .get(..word.len())
            .is_some_and(|head| head.eq_ignore_ascii_case(word))
            && !rest[word.len()..].starts_with(|c: char| c.is_alphanumeric() || c == '_');
        if matches {
            self.at += word.len();
        }
        matches
    }

    fn symbol(&mut self, c: char) -> bool {
        self.skip_space();
        if self.rest().starts_with(c) {
            self.at += c.len_utf8();
            return true;
        }
        false
    }

    fn deeper(&mut self) -> std::result::Result<(), String> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err("The alarm rule is nested too deeply".to_owned());
        }
        Ok(())
    }

    fn or(&mut self) -> std::result::Result<Rule, String> {
        self.deeper()?;
        let mut left = self.and()?;
        while self.keyword("OR") {
            left = Rule::Or(Box::new(left), Box::new(self.and()?));
        }
        self.depth -= 1;
        Ok(left)
    }

    fn and(&mut self) -> std::result::Result<Rule, String> {
        let mut left = self.unary()?;
        while self.keyword("AND") {
            left = Rule::And(Box::new(left), Box::new(self.unary()?));
        }
        Ok(left)
    }

    fn unary(&mut self) -> std::result::Result<Rule, String> {
        if self.keyword("NOT") {
            self.deeper()?;
            let inner = self.unary()?;
            self.depth -= 1;
            return Ok(Rule::Not(Box::new(inner)));
        }
        if self.symbol('(') {
            let inner = self.or()?;
            if !self.symbol(')') {
                return Err("Missing ')' in the alarm rule".to_owned());
            }
            return Ok(inner);
        }
        if self.keyword("TRUE") {
            return Ok(Rule::Const(true));
        }
        if self.keyword("FALSE") {
            return Ok(Rule::Const(false));
        }
        for state in ["INSUFFICIENT_DATA", "ALARM", "OK"] {
            if self.keyword(state) {
                if !self.symbol('(') {
                    return Err(format!("Expected '(' after {state}"));
                }
                let alarm = self.alarm()?;
                if !self.symbol(')') {
                    return Err(format!("Expected ')' after the alarm of {state}"));
                }
                return Ok(Rule::State(state.to_owned(), alarm));
            }
        }
        Err(format!("Unexpected text at position {}", self.at))
    }

    fn alarm(&mut self) -> std::result::Result<String, String> {
        self.skip_space();
        let rest = self.rest();
        let (name, used) = if let Some(quoted) = rest.strip_prefix('"') {
            let end = quoted.find('"').ok_or("Unterminated alarm name in the alarm rule")?;
            (quoted[..end].to_owned(), end + 2)
        } else {
            let end = rest.find(')').unwrap_or(rest.len());
            (rest[..end].trim().to_owned(), end)
        };
        if name.is_empty() {
            return Err("Empty alarm name in the alarm rule".to_owned());
        }
        self.at += used;
        Ok(name)
    }
}

impl Rule {
    /// Every alarm the rule names.
    pub(crate) fn alarms(&self) -> Vec<&str> {
        match self {
            Rule::Const(_) => Vec::new(),
            Rule::State(_, alarm) => vec![alarm.as_str()],
            Rule::Not(inner) => inner.alarms(),
            Rule::And(a, b) | Rule::Or(a, b) => {
                let mut all = a.alarms();
                all.extend(b.alarms());
                all
            }
        }
    }

    /// The rule's value, given each named alarm's state (`None`: no such alarm, whose
    /// functions are false).
    pub(crate) fn holds(&self, state_of: &dyn Fn(&str) -> Option<String>) -> bool {
        match self {
            Rule::Const(b) => *b,
            Rule::State(state, alarm) => state_of(alarm).as_deref() == Some(state.as_str()),
            Rule::Not(inner) => !inner.holds(state_of),
            Rule::And(a, b) => a.holds(state_of) && b.holds(state_of),
            Rule::Or(a, b) => a.holds(state_of) || b.holds(state_of),
        }
    }
}

/// The alarm a rule names by `reference` (a name, or an ARN whose last part is the name).
pub(crate) fn named(reference: &str) -> &str {
    match reference.strip_prefix("arn:") {
        Some(_) => reference.rsplit_once(":alarm:").map_or(reference, |(_, name)| name),
        None => reference,
    }
}

/// Evaluates `composite` now against the alarms in `tx`, moving it when its rule's value says
/// another state; `cause` is the child whose change prompted this.
pub(crate) fn evaluate(
    cw: &CloudWatchService,
    tx: &mut Tx<'_>,
    composite: &mut AlarmRecord,
    cause: Option<&AlarmRecord>,
    at: At<'_>,
) -> Result<bool> {
    let AlarmKind::Composite(spec) = &composite.kind else {
        return Ok(false);
    };
    let Ok(rule) = parse(&spec.rule) else { return Ok(false) };
    let mut children = Vec::new();
    for name in rule.alarms() {
        if let Some(child) = ALARMS.get(&*tx, named(name).as_bytes())? {
            children.push(child);
        }
    }
    let state_of = |reference: &str| {
        children
            .iter()
            .find(|c| c.name == named(reference))
            .map(|c| c.state.clone())
    };
    let value = if rule.holds(&state_of) { ALARM } else { OK };
    if composite.state == value {
        return Ok(false);
    }
    let triggering: Vec<&AlarmRecord> = match cause {
        Some(cause) => vec![cause],
        None => children.iter().filter(|c| c.state == value).collect(),
    };
    let trigger = triggering.first().map(|c| Trigger {
        arn: c.arn.clone(),
        state: c.state.clone(),
        timestamp_ms: c.state_transitioned_ms,
    });
    let reason = match &trigger {
        Some(t) => format!(
            "{} transitioned to {} at {}",
            t.arn,
            t.state,
            dates::long(t.timestamp_ms)
        ),
        None => format!("The alarm rule evaluated to {value} at {}", dates::long(at.now_ms)),
    };
    let data = json!({
        "triggeringAlarms": triggering.iter().map(|c| json!({
            "arn": c.arn,
            "state": {"value": c.state, "timestamp": dates::iso(c.state_transitioned_ms)},
        })).collect::<Vec<_>>(),
    });
    let new = NewState {
        value: value.to_owned(),
        reason,
        reason_data: Some(data.to_string()),
    };
    transition(cw, tx, composite, new, at, trigger)
}

/// Re-evaluates the composite alarms that name `changed`, after it changed state.
pub(crate) fn reevaluate_composites(
    cw: &CloudWatchService,
    tx: &mut Tx<'_>,
    changed: &AlarmRecord,
    at: At<'_>,
) -> Result<()> {
    if at.level >= MAX_LEVELS {
        return Ok(());
    }
    let composites: Vec<AlarmRecord> = ALARMS
        .scan(&*tx, &KeyRange::all(), Direction::Forward, None)?
        .into_iter()
        .map(|(_, a)| a)
        .filter(|a| match &a.kind {
            AlarmKind::Composite(spec) => {
                a.name != changed.name
                    && parse(&spec.rule).is_ok_and(|r| r.alarms().iter().any(|n| named(n) == changed.name))
            }
            AlarmKind::Metric(_) => false,
        })
        .collect();
    let deeper = At {
        level: at.level + 1,
        ..at
    };
    for mut composite in composites {
        evaluate(cw, tx, &mut composite, Some(changed), deeper)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use stratus_test_support::{fuzz_input, Rng};

    use super::*;

    fn states(name: &str) -> Option<String> {
        match name {
            "a" => Some("ALARM".to_owned()),
            "b" => Some("OK".to_owned()),
            "c" => Some("INSUFFICIENT_DATA".to_owned()),
            _ => None,
        }
    }

    // API reference, PutCompositeAlarm AlarmRule: the functions, TRUE/FALSE, AND, OR, NOT,
    // parentheses; alarms by name or ARN, quoted or not.
    #[test]
    fn rules_evaluate_over_child_states() {
        let table = [
            ("ALARM(a)", true),
            ("ALARM(\"a\")", true),
            ("ALARM(\"arn:aws:cloudwatch:us-east-1:111111111111:alarm:a\")", true),
            ("OK(a)", false),
            ("OK(b) AND INSUFFICIENT_DATA(c)", true),
            ("ALARM(b) OR ALARM(c)", false),
            ("NOT ALARM(b)", true),
            ("(ALARM(a) OR ALARM(b)) AND NOT OK(c)", true),
            ("TRUE AND FALSE", false),
            ("alarm(a) or false", true),
            ("ALARM(missing)", false),
            ("ALARM( a )", true),
        ];
        for (text, want) in table {
            let rule = parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(rule.holds(&|n: &str| states(named(n))), want, "{text}");
        }
        assert_eq!(parse("ALARM(x) OR OK(\"y\")").unwrap().alarms(), ["x", "y"]);
    }

    #[test]
    fn malformed_rules_are_refused() {
        for text in [
            "",
            "ALARM",
            "ALARM()",
            "ALARM(a",
            "(ALARM(a)",
            "ALARM(a) OR",
            "MAYBE(a)",
            "ALARM(\"a)",
            "ALARM(a) ALARM(b)",
            "TRUEX",
        ] {
            assert!(parse(text).is_err(), "{text}");
        }
        assert!(parse(&("NOT ".repeat(5_000) + "TRUE")).is_err());
        assert!(parse(&("(".repeat(5_000) + "TRUE" + &")".repeat(5_000))).is_err());
    }

    #[test]
    fn parsing_never_panics() {
        let seeds: &[&[u8]] = &[
            b"(ALARM(\"x\") OR OK(y)) AND NOT INSUFFICIENT_DATA(z)",
            b"TRUE OR FALSE",
        ];
        let tokens: &[&[u8]] = &[
            b"(",
            b")",
            b"\"",
            b"ALARM(",
            b"NOT ",
            b" AND ",
            b" OR ",
            b"\xff",
            b"\xc3\xa9",
        ];
        let mut rng = Rng(0xa1a2_0b5e_7713_0042);
        for i in 0..10_000 {
            let bytes = fuzz_input(&mut rng, i, seeds, tokens, 30);
            if let Ok(rule) = parse(&String::from_utf8_lossy(&bytes)) {
                rule.holds(&|n: &str| states(named(n)));
            }
        }
    }
}
