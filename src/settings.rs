//! Parsers for the binary's settings that the command line and `STRATUS_*` variables share.

use std::time::Duration;

/// A positive number of seconds (fractions allowed), held to at least a millisecond, so a
/// periodic sweep cannot spin, and at most a day.
pub(crate) fn seconds(value: &str) -> Result<Duration, String> {
    value
        .trim()
        .parse::<f64>()
        .ok()
        .filter(|secs| secs.is_finite() && *secs > 0.0)
        .map(|secs| Duration::from_secs_f64(secs.clamp(0.001, 86_400.0)))
        .ok_or_else(|| format!("{value:?} is not a positive number of seconds"))
}

/// Where time comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum ClockKind {
    /// The machine's clock.
    System,
    /// Starts at the machine's time and moves only when told (`POST /_stratus/clock?advance=<seconds>`).
    Manual,
}

/// How log lines are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum LogFormat {
    /// One human-readable line per event.
    Text,
    /// One JSON object per event (`timestamp`, `level`, `target`, `fields`).
    Json,
}

/// Whether IAM's policies authorize requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum IamSetting {
    /// Serve every request, as without IAM.
    Off,
    /// Serve every request; log what IAM would refuse (target `stratus::iam`).
    Audit,
    /// Refuse what IAM refuses, with AWS's AccessDenied.
    Enforce,
}

impl From<IamSetting> for stratus_server::authorize::IamMode {
    fn from(setting: IamSetting) -> Self {
        match setting {
            IamSetting::Off => Self::Off,
            IamSetting::Audit => Self::Audit,
            IamSetting::Enforce => Self::Enforce,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_are_positive_finite_and_bounded() {
        assert_eq!(seconds("0.25"), Ok(Duration::from_millis(250)));
        assert_eq!(seconds(" 5 "), Ok(Duration::from_secs(5)));
        assert_eq!(seconds("0.0000001"), Ok(Duration::from_millis(1)));
        assert_eq!(seconds("1e9"), Ok(Duration::from_secs(86_400)));
        for bad in ["", "x", "0", "-1", "NaN", "inf"] {
            assert!(seconds(bad).is_err(), "{bad:?}");
        }
    }
}
