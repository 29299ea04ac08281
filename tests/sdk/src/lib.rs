//! Test-only crate: the integration tests in `tests/` start the real `stratus` binary and
//! drive it with the AWS SDK for Rust. The SDK is heavy, so it lives here and not in the
//! builds of the emulator itself.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

use aws_credential_types::Credentials;
use aws_smithy_http_client::Builder;
use aws_types::region::Region;
use aws_types::sdk_config::SdkConfig;

/// A running `stratus --ephemeral` on a free port, killed when dropped.
pub struct Stratus {
    child: Child,
    pub endpoint: String,
}

impl Stratus {
    pub fn start() -> Stratus {
        let bin = std::env::var_os("STRATUS_BIN")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/release/stratus"));
        let mut child = Command::new(&bin)
            .args(["--listen", "127.0.0.1:0", "--ephemeral"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| {
                panic!(
                    "cannot start {} (build it with `cargo build --release`): {e}",
                    bin.display()
                )
            });
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let endpoint = line
            .trim()
            .strip_prefix("stratus listening on ")
            .expect("listening line")
            .to_string();
        Stratus { child, endpoint }
    }

    /// The shared SDK configuration for this server, signing with `credentials`.
    pub fn config(&self, credentials: Credentials) -> SdkConfig {
        SdkConfig::builder()
            .behavior_version(aws_smithy_runtime_api::client::behavior_version::BehaviorVersion::latest())
            .region(Region::new("us-east-1"))
            .endpoint_url(&self.endpoint)
            .credentials_provider(aws_credential_types::provider::SharedCredentialsProvider::new(
                credentials,
            ))
            .http_client(Builder::new().build_http())
            .build()
    }
}

impl Drop for Stratus {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The long-term credentials every test signs with unless it assumes a role.
pub fn long_term() -> Credentials {
    Credentials::new(
        "AKIAIOSFODNN7EXAMPLE",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        None,
        None,
        "test",
    )
}
