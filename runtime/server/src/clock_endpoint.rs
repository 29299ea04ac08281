//! `/_stratus/clock`: the server's time, and moving a manual clock for tests.
//!
//! `GET /_stratus/clock` answers `{"manual": …, "epochMillis": …}`.
//! `POST /_stratus/clock?advance=<seconds>` (fractions allowed) moves a manual clock
//! (`stratus --clock manual`) forward and answers once the background work that became due —
//! expired items, lifecycle expirations, long polls whose wait ran out — has run, so a test can
//! look at the result at once. With the system clock it is refused with 403.

use aws_smithy_json::serialize::JsonObjectWriter;
use std::time::Duration;
use stratus_core::clock::Clock;
use stratus_protocol::{urlencoded, Response};

use crate::Gateway;

const PATH: &str = "/_stratus/clock";

/// The response for a clock request, or `None` for any other request.
pub async fn answer(gateway: &Gateway, parts: &http::request::Parts) -> Option<Response> {
    if parts.uri.path() != PATH {
        return None;
    }
    let clock = &gateway.config.clock;
    let response = match parts.method {
        http::Method::GET | http::Method::HEAD => reading(clock),
        http::Method::POST => match advance_by(parts.uri.query().unwrap_or_default()) {
            Err(message) => refusal(400, message),
            Ok(_) if !clock.is_manual() => refusal(
                403,
                "the clock is the system clock; start Stratus with `--clock manual` (STRATUS_CLOCK=manual) to move time",
            ),
            Ok(by) => {
                let moving = clock.clone();
                // Advancing waits for the scheduler's thread to run what became due.
                match tokio::task::spawn_blocking(move || moving.advance(by)).await {
                    Ok(Ok(())) => reading(clock),
                    Ok(Err(e)) => refusal(403, &e.to_string()),
                    Err(_) => refusal(500, "moving the clock failed"),
                }
            }
        },
        _ => refusal(405, "use GET to read the clock, or POST ?advance=<seconds> to move a manual clock"),
    };
    Some(response)
}

/// The `advance` query parameter: a finite, non-negative number of seconds.
fn advance_by(query: &str) -> Result<Duration, &'static str> {
    let value = urlencoded::pairs(query)
        .filter_map(Result::ok)
        .find(|(k, _)| k == "advance")
        .map(|(_, v)| v.into_owned())
        .ok_or("POST /_stratus/clock needs ?advance=<seconds>")?;
    value
        .trim()
        .parse::<f64>()
        .ok()
        .and_then(|secs| Duration::try_from_secs_f64(secs).ok())
        .ok_or("advance must be a non-negative number of seconds")
}

fn reading(clock: &Clock) -> Response {
    let body = format!(
        r#"{{"manual":{},"epochMillis":{}}}"#,
        clock.is_manual(),
        clock.epoch_millis()
    );
    json(200, body)
}

fn refusal(status: u16, message: &str) -> Response {
    let mut body = String::new();
    let mut root = JsonObjectWriter::new(&mut body);
    root.key("message").string(message);
    root.finish();
    json(status, body)
}

fn json(status: u16, body: String) -> Response {
    http::Response::builder()
        .status(status)
        .header("content-type", "application/json")
        .body(body.into_bytes())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn advance_takes_non_negative_seconds() {
        assert_eq!(advance_by("advance=86400"), Ok(Duration::from_secs(86_400)));
        assert_eq!(advance_by("x=1&advance=0.25"), Ok(Duration::from_millis(250)));
        for bad in ["", "advance=", "advance=-1", "advance=NaN", "advance=inf", "advance=x"] {
            assert!(advance_by(bad).is_err(), "{bad:?}");
        }
    }
}
