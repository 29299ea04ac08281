//! IAM's wildcards: `*` matches any run of characters (none included), `?` exactly one.
//! Actions match without regard to case, ARNs and `StringLike` values with it; an ARN is
//! matched segment by segment, the six parts its first five colons separate.
//! (<https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_condition_operators.html#Conditions_ARN>)

use stratus_core::arn::Arn;

/// One piece of a pattern: owned in compiled policies, borrowed (from the policy and the
/// request) when a template's variables are filled in for one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Tok<S> {
    /// Characters to match as written (variables' values and `${*}` land here too).
    Lit(S),
    /// `*`.
    Star,
    /// `?`.
    One,
    /// A colon written in the pattern: a segment boundary for ARN patterns, else `:`.
    Colon,
}

/// A piece of a compiled pattern.
pub(crate) type Token = Tok<Box<str>>;

impl<S: AsRef<str>> Tok<S> {
    /// The same piece, borrowing its text.
    pub(crate) fn borrowed(&self) -> Tok<&str> {
        match self {
            Tok::Lit(s) => Tok::Lit(s.as_ref()),
            Tok::Star => Tok::Star,
            Tok::One => Tok::One,
            Tok::Colon => Tok::Colon,
        }
    }
}

/// Tokens of `text` read as a wildcard pattern (no variables).
pub(crate) fn tokenize(text: &str, out: &mut Vec<Token>) {
    let mut lit = String::new();
    for c in text.chars() {
        let token = match c {
            '*' => Tok::Star,
            '?' => Tok::One,
            ':' => Tok::Colon,
            _ => {
                lit.push(c);
                continue;
            }
        };
        if !lit.is_empty() {
            out.push(Tok::Lit(std::mem::take(&mut lit).into_boxed_str()));
        }
        out.push(token);
    }
    if !lit.is_empty() {
        out.push(Tok::Lit(lit.into_boxed_str()));
    }
}

/// A pattern over a whole string; colons are plain characters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Glob {
    tokens: Vec<Token>,
    /// Compare ASCII letters without case (the pattern is stored lowercased).
    fold: bool,
    /// The literal when the pattern has no wildcard, for a plain comparison.
    exact: Option<Box<str>>,
}

impl Glob {
    pub(crate) fn new(tokens: Vec<Token>, fold: bool) -> Glob {
        let mut tokens: Vec<Token> = tokens
            .into_iter()
            .map(|t| match t {
                Tok::Colon => Tok::Lit(":".into()),
                Tok::Lit(s) if fold => Tok::Lit(s.to_ascii_lowercase().into_boxed_str()),
                t => t,
            })
            .collect();
        merge_literals(&mut tokens);
        let exact = match tokens.as_slice() {
            [] => Some("".into()),
            [Tok::Lit(s)] => Some(s.clone()),
            _ => None,
        };
        Glob { tokens, fold, exact }
    }

    /// `text` read as a pattern, `*` and `?` being wildcards.
    pub(crate) fn parse(text: &str, fold: bool) -> Glob {
        let mut tokens = Vec::new();
        tokenize(text, &mut tokens);
        Glob::new(tokens, fold)
    }

    pub(crate) fn is_match(&self, text: &str) -> bool {
        match &self.exact {
            Some(exact) if self.fold => exact.eq_ignore_ascii_case(text),
            Some(exact) => **exact == *text,
            None => match_tokens(&self.tokens, text, self.fold),
        }
    }
}

fn merge_literals(tokens: &mut Vec<Token>) {
    let mut merged: Vec<Token> = Vec::with_capacity(tokens.len());
    for token in tokens.drain(..) {
        match (merged.last_mut(), token) {
            (Some(Tok::Lit(prev)), Tok::Lit(next)) => {
                *prev = format!("{prev}{next}").into_boxed_str();
            }
            // `**` means what `*` does.
            (Some(Tok::Star), Tok::Star) => {}
            (_, token) => merged.push(token),
        }
    }
    *tokens = merged;
}

fn lit_at(text: &[u8], at: usize, lit: &str, fold: bool) -> bool {
    let lit = lit.as_bytes();
    text.len() - at >= lit.len()
        && if fold {
            text[at..at + lit.len()].eq_ignore_ascii_case(lit)
        } else {
            &text[at..at + lit.len()] == lit
        }
}

/// The length of the UTF-8 character that starts at `at`.
fn char_len(text: &[u8], at: usize) -> usize {
    match text[at] {
        b if b < 0x80 => 1,
        b if b >= 0xf0 => 4,
        b if b >= 0xe0 => 3,
        _ => 2,
    }
}

/// Wildcard matching without recursion: on a mismatch, the last `*` takes one more character.
fn match_tokens<S: AsRef<str>>(tokens: &[Tok<S>], text: &str, fold: bool) -> bool {
    let bytes = text.as_bytes();
    let (mut t, mut at) = (0, 0);
    let mut retry: Option<(usize, usize)> = None;
    loop {
        let step = match tokens.get(t) {
            None if at == bytes.len() => return true,
            None => false,
            Some(Tok::Star) => {
                retry = Some((t + 1, at));
                t += 1;
                continue;
            }
            Some(Tok::One) => {
                at < bytes.len() && {
                    at += char_len(bytes, at);
                    true
                }
            }
            Some(Tok::Lit(lit)) => {
                let lit = lit.as_ref();
                lit_at(bytes, at, lit, fold) && {
                    at += lit.len();
                    true
                }
            }
            Some(Tok::Colon) => {
                lit_at(bytes, at, ":", fold) && {
                    at += 1;
                    true
                }
            }
        };
        if step {
            t += 1;
            continue;
        }
        match retry {
            Some((after_star, from)) if from < bytes.len() => {
                let next = from + char_len(bytes, from);
                retry = Some((after_star, next));
                t = after_star;
                at = next;
            }
            _ => return false,
        }
    }
}

/// An ARN pattern: six globs, one per segment, or `*` alone for every resource.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ArnGlob {
    Any,
    Segments(Box<[Glob; 6]>),
    /// Fewer than six segments: matches no ARN.
    Never,
}

impl ArnGlob {
    pub(crate) fn new(tokens: Vec<Token>) -> ArnGlob {
        if tokens == [Tok::Star] {
            return ArnGlob::Any;
        }
        let mut segments: Vec<Vec<Token>> = vec![Vec::new()];
        for token in tokens {
            if token == Tok::Colon && segments.len() < 6 {
                segments.push(Vec::new());
            } else {
                segments.last_mut().expect("one segment").push(token);
            }
        }
        let Ok(segments) = <[Vec<Token>; 6]>::try_from(segments) else {
            return ArnGlob::Never;
        };
        ArnGlob::Segments(Box::new(segments.map(|s| Glob::new(s, false))))
    }

    pub(crate) fn parse(text: &str) -> ArnGlob {
        let mut tokens = Vec::new();
        tokenize(text, &mut tokens);
        ArnGlob::new(tokens)
    }

    /// Whether the ARN `text` (parsed as `arn`, when it is one) matches.
    pub(crate) fn is_match(&self, text: &str, arn: Option<&Arn>) -> bool {
        match self {
            ArnGlob::Any => true,
            ArnGlob::Never => false,
            ArnGlob::Segments(globs) => match arn {
                Some(arn) => {
                    globs[0].is_match("arn")
                        && globs[1].is_match(&arn.partition)
                        && globs[2].is_match(&arn.service)
                        && globs[3].is_match(&arn.region)
                        && globs[4].is_match(&arn.account)
                        && globs[5].is_match(&arn.resource)
                }
                None => {
                    let mut parts = text.splitn(6, ':');
                    let matched = globs.iter().all(|g| parts.next().is_some_and(|p| g.is_match(p)));
                    matched && parts.next().is_none()
                }
            },
        }
    }
}

/// Whether the ARN `text` matches a pattern whose variables were just filled in: the first
/// five written colons separate the segments, as [`ArnGlob::new`] splits them.
pub(crate) fn arn_match(tokens: &[Tok<&str>], text: &str, arn: Option<&Arn>) -> bool {
    if let [Tok::Star] = tokens {
        return true;
    }
    let mut bounds = [0usize; 7];
    let mut found = 1;
    for (i, token) in tokens.iter().enumerate() {
        if *token == Tok::Colon && found < 6 {
            bounds[found] = i;
            found += 1;
        }
    }
    if found < 6 {
        return false;
    }
    bounds[6] = tokens.len();
    let segment = |n: usize| &tokens[if n == 0 { 0 } else { bounds[n] + 1 }..bounds[n + 1]];
    let check = |n: usize, part: &str| match_tokens(segment(n), part, false);
    match arn {
        Some(arn) => {
            check(0, "arn")
                && check(1, &arn.partition)
                && check(2, &arn.service)
                && check(3, &arn.region)
                && check(4, &arn.account)
                && check(5, &arn.resource)
        }
        None => {
            let mut parts = text.splitn(6, ':');
            (0..6).all(|n| parts.next().is_some_and(|p| check(n, p))) && parts.next().is_none()
        }
    }
}

/// Whether `text` matches a whole-string pattern whose variables were just filled in.
pub(crate) fn glob_match(tokens: &[Tok<&str>], text: &str) -> bool {
    match_tokens(tokens, text, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn glob(p: &str, t: &str) -> bool {
        Glob::parse(p, false).is_match(t)
    }

    #[test]
    fn star_and_question_mark() {
        assert!(glob("*", ""));
        assert!(glob("*", "anything: at/all"));
        assert!(glob("a*c", "abbbc"));
        assert!(glob("a*c", "ac"));
        assert!(!glob("a*c", "acb"));
        assert!(glob("a?c", "abc"));
        assert!(!glob("a?c", "ac"));
        assert!(glob("a?c", "aéc"), "? is one character, not one byte");
        assert!(glob("*x*y*", "..x..x..y"));
        assert!(!glob("*x*y*", "..y..x"));
        assert!(glob("a**b", "ab"));
    }

    #[test]
    fn case_folding_is_for_actions_only() {
        assert!(Glob::parse("SQS:Send*", true).is_match("sqs:sendmessage"));
        assert!(Glob::parse("sqs:sendmessage", true).is_match("SQS:SendMessage"));
        assert!(!Glob::parse("Bucket", false).is_match("bucket"));
    }

    #[test]
    fn arn_segments_are_matched_one_by_one() {
        let arn = |p: &str, t: &str| ArnGlob::parse(p).is_match(t, Arn::parse(t).ok().as_ref());
        assert!(arn("*", "arn:aws:sqs:us-east-1:1:q"));
        assert!(arn("arn:aws:sqs:*:*:*", "arn:aws:sqs:us-east-1:1:q"));
        assert!(arn("arn:aws:s3:::bucket/*", "arn:aws:s3:::bucket/a/b:c"));
        assert!(!arn("arn:aws:s3:::bucket/*", "arn:aws:s3:::bucket"));
        assert!(arn(
            "arn:aws:lambda:*:*:function:*",
            "arn:aws:lambda:us-east-1:1:function:f:alias"
        ));
        // `*` stays inside its segment: it cannot eat the colons after the service.
        assert!(!arn("arn:aws:sqs:*", "arn:aws:sqs:us-east-1:1:q"));
        assert!(!arn("arn:aws:sqs:us-east-1:1:Q", "arn:aws:sqs:us-east-1:1:q"));
        assert!(arn("arn:aws:sqs:us-?ast-1:1:q", "arn:aws:sqs:us-east-1:1:q"));
        assert!(arn("arn:aws:s3:::b", "arn:aws:s3:::b"));
    }

    #[test]
    fn filled_in_patterns_match_as_compiled_ones_do() {
        let patterns = [
            "*",
            "arn:aws:sqs:*:*:q",
            "arn:aws:s3:::b/*:x",
            "arn:aws:sqs:*",
            "arn:*:*:*:*:*",
            "a:b:c:d:e:f?",
            "arn:aws:s3:::",
        ];
        let texts = [
            "arn:aws:sqs:us-east-1:1:q",
            "arn:aws:s3:::b/k:x",
            "arn:aws:s3:::b",
            "a:b:c:d:e:fg",
            "arn:aws:s3:::",
            "x",
        ];
        for p in patterns {
            let mut tokens = Vec::new();
            tokenize(p, &mut tokens);
            let borrowed: Vec<Tok<&str>> = tokens.iter().map(Tok::borrowed).collect();
            for t in texts {
                let parsed = Arn::parse(t).ok();
                let compiled = ArnGlob::parse(p).is_match(t, parsed.as_ref());
                assert_eq!(arn_match(&borrowed, t, parsed.as_ref()), compiled, "{p} {t}");
                assert_eq!(arn_match(&borrowed, t, None), compiled, "{p} {t} unparsed");
            }
        }
    }
}
