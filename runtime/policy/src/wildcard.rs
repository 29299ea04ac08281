//! IAM's wildcards: `*` matches any run of characters (none included), `?` exactly one.
//! Actions match without regard to case, ARNs and `StringLike` values with it; an ARN is
//! matched segment by segment, the six parts its first five colons separate.
//! (<https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_condition_operators.html#Conditions_ARN>)

use stratus_core::arn::Arn;

/// One piece of a compiled pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Token {
    /// Characters to match as written (variables' values and `${*}` land here too).
    Lit(Box<str>),
    /// `*`.
    Star,
    /// `?`.
    One,
    /// A colon written in the pattern: a segment boundary for ARN patterns, else `:`.
    Colon,
}

/// Tokens of `text` read as a wildcard pattern (no variables).
pub(crate) fn tokenize(text: &str, out: &mut Vec<Token>) {
    let mut lit = String::new();
    for c in text.chars() {
        let token = match c {
            '*' => Token::Star,
            '?' => Token::One,
            ':' => Token::Colon,
            _ => {
                lit.push(c);
                continue;
            }
        };
        if !lit.is_empty() {
            out.push(Token::Lit(std::mem::take(&mut lit).into_boxed_str()));
        }
        out.push(token);
    }
    if !lit.is_empty() {
        out.push(Token::Lit(lit.into_boxed_str()));
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
                Token::Colon => Token::Lit(":".into()),
                Token::Lit(s) if fold => Token::Lit(s.to_ascii_lowercase().into_boxed_str()),
                t => t,
            })
            .collect();
        merge_literals(&mut tokens);
        let exact = match tokens.as_slice() {
            [] => Some("".into()),
            [Token::Lit(s)] => Some(s.clone()),
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
            (Some(Token::Lit(prev)), Token::Lit(next)) => {
                *prev = format!("{prev}{next}").into_boxed_str();
            }
            // `**` means what `*` does.
            (Some(Token::Star), Token::Star) => {}
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
fn match_tokens(tokens: &[Token], text: &str, fold: bool) -> bool {
    let bytes = text.as_bytes();
    let (mut t, mut at) = (0, 0);
    let mut retry: Option<(usize, usize)> = None;
    loop {
        let step = match tokens.get(t) {
            None if at == bytes.len() => return true,
            None => false,
            Some(Token::Star) => {
                retry = Some((t + 1, at));
                t += 1;
                continue;
            }
            Some(Token::One) => {
                at < bytes.len() && {
                    at += char_len(bytes, at);
                    true
                }
            }
            Some(Token::Lit(lit)) => {
                lit_at(bytes, at, lit, fold) && {
                    at += lit.len();
                    true
                }
            }
            Some(Token::Colon) => {
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
        if tokens == [Token::Star] {
            return ArnGlob::Any;
        }
        let mut segments: Vec<Vec<Token>> = vec![Vec::new()];
        for token in tokens {
            if token == Token::Colon && segments.len() < 6 {
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
}
