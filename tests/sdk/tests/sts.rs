//! STS through the AWS SDK for Rust against the real binary.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

use aws_credential_types::Credentials;
use aws_sdk_sts::config::{BehaviorVersion, Region};
use aws_sdk_sts::Client;

/// A running `stratus --ephemeral` on a free port, killed when dropped.
struct Stratus {
    child: Child,
    endpoint: String,
}

impl Stratus {
    fn start() -> Stratus {
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

    fn sts(&self, credentials: Credentials) -> Client {
        let config = aws_sdk_sts::Config::builder()
            .behavior_version(BehaviorVersion::latest())
            .region(Region::new("us-east-1"))
            .endpoint_url(&self.endpoint)
            .credentials_provider(credentials)
            .http_client(aws_smithy_http_client::Builder::new().build_http())
            .build();
        Client::from_conf(config)
    }
}

impl Drop for Stratus {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn long_term() -> Credentials {
    Credentials::new(
        "AKIAIOSFODNN7EXAMPLE",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        None,
        None,
        "test",
    )
}

#[tokio::test]
async fn get_caller_identity_and_assumed_role() {
    let stratus = Stratus::start();
    let sts = stratus.sts(long_term());
    let me = sts.get_caller_identity().send().await.expect("GetCallerIdentity");
    assert_eq!(me.account(), Some("000000000000"));
    assert_eq!(me.arn(), Some("arn:aws:iam::000000000000:root"));

    let assumed = sts
        .assume_role()
        .role_arn("arn:aws:iam::111122223333:role/app")
        .role_session_name("sdk-test")
        .send()
        .await
        .expect("AssumeRole");
    let creds = assumed.credentials().expect("credentials");
    assert!(creds.access_key_id().starts_with("ASIA"));
    let as_role = stratus.sts(Credentials::new(
        creds.access_key_id(),
        creds.secret_access_key(),
        Some(creds.session_token().to_string()),
        None,
        "assumed",
    ));
    let who = as_role
        .get_caller_identity()
        .send()
        .await
        .expect("GetCallerIdentity as the role");
    assert_eq!(who.arn(), Some("arn:aws:sts::111122223333:assumed-role/app/sdk-test"));
    assert_eq!(who.account(), Some("111122223333"));
}

#[tokio::test]
async fn refusals_are_typed_errors() {
    let stratus = Stratus::start();
    let sts = stratus.sts(long_term());
    let err = sts
        .assume_role()
        .role_arn("arn:aws:iam::111122223333:role/app")
        .role_session_name("ok")
        .policy("{not json")
        .send()
        .await
        .expect_err("malformed policy");
    let service_error = err.into_service_error();
    assert!(
        service_error.is_malformed_policy_document_exception(),
        "{service_error:?}"
    );
}
