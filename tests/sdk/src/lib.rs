//! Test-only crate: the integration tests in `tests/` start the real `stratus` binary and
//! drive it with the AWS SDK for Rust. The SDK is heavy, so it lives here and not in the
//! builds of the emulator itself.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
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

    /// Creates the IAM role `name`, trusting everyone, in `account`: STS issues sessions only
    /// for roles that exist. A Query request signed with the 12-digit account as its access
    /// key, which Stratus serves in that account (the SDK for IAM is not worth its build here).
    pub fn create_role(&self, account: &str, name: &str) {
        let body =
            format!("Action=CreateRole&Version=2010-05-08&RoleName={name}&AssumeRolePolicyDocument={TRUST_EVERYONE}");
        let host = self.endpoint.trim_start_matches("http://");
        let mut stream = TcpStream::connect(host).expect("connect");
        write!(
            stream,
            "POST / HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/x-www-form-urlencoded\r\n\
             Authorization: AWS4-HMAC-SHA256 Credential={account}/20260101/us-east-1/iam/aws4_request, \
             SignedHeaders=host, Signature=00\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
        .expect("send CreateRole");
        let mut answer = String::new();
        stream.read_to_string(&mut answer).expect("read CreateRole's answer");
        assert!(
            answer.starts_with("HTTP/1.1 200"),
            "CreateRole {name} in {account}: {answer}"
        );
    }
}

/// `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"*"},"Action":"sts:AssumeRole"}]}`,
/// percent-encoded for a form body.
const TRUST_EVERYONE: &str = "%7B%22Version%22%3A%222012-10-17%22%2C%22Statement%22%3A%5B%7B%22Effect%22%3A%22Allow%22%2C%22Principal%22%3A%7B%22AWS%22%3A%22%2A%22%7D%2C%22Action%22%3A%22sts%3AAssumeRole%22%7D%5D%7D";

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
