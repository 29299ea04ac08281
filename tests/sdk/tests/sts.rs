//! STS through the AWS SDK for Rust against the real binary.

use aws_credential_types::Credentials;
use aws_sdk_sts::Client;
use stratus_sdk_tests::{long_term, Stratus};

fn client(stratus: &Stratus, credentials: Credentials) -> Client {
    Client::new(&stratus.config(credentials))
}

#[tokio::test]
async fn get_caller_identity_and_assumed_role() {
    let stratus = Stratus::start();
    stratus.create_role("111122223333", "app");
    let sts = client(&stratus, long_term());
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
    let as_role = client(
        &stratus,
        Credentials::new(
            creds.access_key_id(),
            creds.secret_access_key(),
            Some(creds.session_token().to_string()),
            None,
            "assumed",
        ),
    );
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
    stratus.create_role("111122223333", "app");
    let sts = client(&stratus, long_term());
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
