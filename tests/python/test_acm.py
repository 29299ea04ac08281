"""ACM against the real binary, with boto3, the AWS CLI and Python's `cryptography` as the
independent reader of the certificates and keys it hands out.

The server runs on a manual clock: a requested certificate is `PENDING_VALIDATION` until the
clock passes its validation delay (5 seconds), then `ISSUED`.
"""

import datetime
import json
import os
import subprocess
import sys
import uuid

import pytest
from botocore.exceptions import ClientError
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from conftest import Stratus

AWS = os.path.join(os.path.dirname(sys.executable), "aws")
VALIDATION_SECONDS = 6


@pytest.fixture(scope="module")
def stratus():
    server = Stratus("--ephemeral", "--clock", "manual")
    yield server
    server.stop()


@pytest.fixture
def acm(stratus):
    return stratus.client("acm")


def domain():
    return f"site-{uuid.uuid4().hex[:8]}.example.org"


def error_code(excinfo):
    return excinfo.value.response["Error"]["Code"]


def self_signed(key=None, names=("localhost", "www.localhost"), days=30, serial=1001):
    """A certificate and key of our own, as a user would import them."""
    key = key or rsa.generate_private_key(public_exponent=65537, key_size=2048)
    subject = x509.Name(
        [
            x509.NameAttribute(NameOID.COUNTRY_NAME, "AU"),
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Test Org"),
            x509.NameAttribute(NameOID.COMMON_NAME, names[0]),
        ]
    )
    now = datetime.datetime.now(datetime.timezone.utc)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(serial)
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=days))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(n) for n in names]), critical=False)
        .add_extension(
            x509.KeyUsage(True, True, True, False, False, False, False, False, False), critical=True
        )
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .sign(key, hashes.SHA256())
    )
    cert_pem = certificate.public_bytes(serialization.Encoding.PEM)
    key_pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL, serialization.NoEncryption()
    )
    return cert_pem, key_pem


def test_a_requested_certificate_waits_for_validation_then_is_issued_by_the_local_ca(acm, stratus):
    name = domain()
    arn = acm.request_certificate(DomainName=name, SubjectAlternativeNames=[f"*.{name}"])["CertificateArn"]
    assert arn.startswith("arn:aws:acm:us-east-1:000000000000:certificate/")

    pending = acm.describe_certificate(CertificateArn=arn)["Certificate"]
    assert pending["Status"] == "PENDING_VALIDATION"
    assert pending["Type"] == "AMAZON_ISSUED"
    assert pending["KeyAlgorithm"] == "RSA-2048"
    assert pending["Issuer"] == "Amazon"
    assert pending["Subject"] == f"CN={name}"
    assert pending["SubjectAlternativeNames"] == [name, f"*.{name}"]
    assert pending["KeyUsages"] == [] and pending["ExtendedKeyUsages"] == []
    assert "Serial" not in pending and "NotAfter" not in pending
    assert pending["Options"] == {"CertificateTransparencyLoggingPreference": "ENABLED", "Export": "DISABLED"}
    # Without ValidationMethod ACM validates by email (AWS's recorded answer).
    assert pending["DomainValidationOptions"][0] == {
        "DomainName": name,
        "ValidationDomain": name,
        "ValidationEmails": [],
        "ValidationMethod": "EMAIL",
        "ValidationStatus": "PENDING_VALIDATION",
    }
    with pytest.raises(ClientError) as excinfo:
        acm.get_certificate(CertificateArn=arn)
    assert error_code(excinfo) == "RequestInProgressException"

    stratus.advance(VALIDATION_SECONDS)
    issued = acm.describe_certificate(CertificateArn=arn)["Certificate"]
    assert issued["Status"] == "ISSUED"
    assert {o["ValidationStatus"] for o in issued["DomainValidationOptions"]} == {"SUCCESS"}
    assert [u["Name"] for u in issued["KeyUsages"]] == ["DIGITAL_SIGNATURE", "KEY_ENCIPHERMENT"]
    assert issued["ExtendedKeyUsages"][0] == {"Name": "TLS_WEB_SERVER_AUTHENTICATION", "OID": "1.3.6.1.5.5.7.3.1"}
    assert issued["SignatureAlgorithm"] == "SHA256WITHRSA"

    got = acm.get_certificate(CertificateArn=arn)
    leaf = x509.load_pem_x509_certificate(got["Certificate"].encode())
    root = x509.load_pem_x509_certificate(got["CertificateChain"].encode())
    sans = leaf.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert sans.get_values_for_type(x509.DNSName) == [name, f"*.{name}"]
    assert leaf.issuer == root.subject
    root.public_key().verify(
        leaf.signature, leaf.tbs_certificate_bytes, padding.PKCS1v15(), leaf.signature_hash_algorithm
    )
    assert root.extensions.get_extension_for_class(x509.BasicConstraints).value.ca
    serial = ":".join(f"{b:02x}" for b in leaf.serial_number.to_bytes((leaf.serial_number.bit_length() + 7) // 8, "big"))
    assert issued["Serial"] == serial
    assert (leaf.not_valid_after_utc - leaf.not_valid_before_utc).days == 395


def test_dns_validation_asks_for_one_cname_per_domain(acm):
    name = domain()
    arn = acm.request_certificate(DomainName=name, ValidationMethod="DNS", SubjectAlternativeNames=[f"*.{name}"])[
        "CertificateArn"
    ]
    options = acm.describe_certificate(CertificateArn=arn)["Certificate"]["DomainValidationOptions"]
    plain, wildcard = options
    record = plain["ResourceRecord"]
    assert record["Type"] == "CNAME"
    assert record["Name"].startswith("_") and record["Name"].endswith(f".{name}.")
    assert record["Value"].endswith(".acm-validations.aws.")
    assert wildcard["ResourceRecord"] == record, "a wildcard is validated by its base domain's record"
    assert "ValidationEmails" not in plain and plain["ValidationMethod"] == "DNS"
    again = acm.request_certificate(DomainName=name, ValidationMethod="DNS")["CertificateArn"]
    other = acm.describe_certificate(CertificateArn=again)["Certificate"]["DomainValidationOptions"][0]
    assert other["ResourceRecord"] == record


def test_key_algorithms_of_requests(acm, stratus):
    arn = acm.request_certificate(DomainName=domain(), KeyAlgorithm="EC_prime256v1")["CertificateArn"]
    stratus.advance(VALIDATION_SECONDS)
    got = acm.get_certificate(CertificateArn=arn)
    key = x509.load_pem_x509_certificate(got["Certificate"].encode()).public_key()
    assert isinstance(key, ec.EllipticCurvePublicKey) and key.curve.name == "secp256r1"
    assert acm.describe_certificate(CertificateArn=arn)["Certificate"]["KeyAlgorithm"] == "EC-prime256v1"
    # RSA_4096 is for imported certificates only (the API reference, RequestCertificate).
    with pytest.raises(ClientError) as excinfo:
        acm.request_certificate(DomainName=domain(), KeyAlgorithm="RSA_4096")
    assert error_code(excinfo) == "InvalidParameterException"


def test_an_idempotency_token_answers_the_same_certificate(acm):
    name = domain()
    first = acm.request_certificate(DomainName=name, IdempotencyToken="token1")["CertificateArn"]
    assert acm.request_certificate(DomainName=name, IdempotencyToken="token1")["CertificateArn"] == first
    assert acm.request_certificate(DomainName=name, IdempotencyToken="token2")["CertificateArn"] != first


def test_import_reads_the_certificate_and_checks_its_key(acm):
    with pytest.raises(ClientError) as excinfo:
        acm.import_certificate(Certificate=b"CERT123", PrivateKey=b"KEY123")
    assert error_code(excinfo) == "ValidationException"

    cert_pem, key_pem = self_signed()
    arn = acm.import_certificate(Certificate=cert_pem, PrivateKey=key_pem)["CertificateArn"]
    detail = acm.describe_certificate(CertificateArn=arn)["Certificate"]
    assert detail["Type"] == "IMPORTED" and detail["Status"] == "ISSUED"
    assert detail["DomainName"] == "localhost"
    assert detail["SubjectAlternativeNames"] == ["localhost", "www.localhost"]
    assert detail["DomainValidationOptions"] == [{"DomainName": "localhost"}, {"DomainName": "www.localhost"}]
    assert detail["Subject"] == "C=AU,O=Test Org,CN=localhost"
    assert detail["Issuer"] == "Test Org"
    assert detail["Serial"] == "03:e9"
    assert detail["KeyAlgorithm"] == "RSA-2048"
    assert [u["Name"] for u in detail["KeyUsages"]] == ["DIGITAL_SIGNATURE", "NON_REPUDIATION", "KEY_ENCIPHERMENT"]
    assert detail["Options"]["CertificateTransparencyLoggingPreference"] == "DISABLED"
    assert "ImportedAt" in detail and "IssuedAt" not in detail

    _, other_key = self_signed()
    with pytest.raises(ClientError) as excinfo:
        acm.import_certificate(Certificate=cert_pem, PrivateKey=other_key)
    assert error_code(excinfo) == "ValidationException"
    assert "does not match" in excinfo.value.response["Error"]["Message"]

    # Importing again to the ARN replaces the certificate there.
    new_cert, new_key = self_signed(names=("renewed.localhost",), serial=7)
    assert acm.import_certificate(CertificateArn=arn, Certificate=new_cert, PrivateKey=new_key)["CertificateArn"] == arn
    assert acm.describe_certificate(CertificateArn=arn)["Certificate"]["DomainName"] == "renewed.localhost"
    assert acm.get_certificate(CertificateArn=arn)["Certificate"].encode() == new_cert


def test_import_takes_ec_keys_in_pkcs8_and_a_chain(acm):
    key = ec.generate_private_key(ec.SECP384R1())
    cert_pem, _ = self_signed(key=key)
    pkcs8 = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    chain, _ = self_signed(names=("ca.localhost",))
    arn = acm.import_certificate(Certificate=cert_pem, PrivateKey=pkcs8, CertificateChain=chain)["CertificateArn"]
    assert acm.describe_certificate(CertificateArn=arn)["Certificate"]["KeyAlgorithm"] == "EC-secp384r1"
    assert acm.get_certificate(CertificateArn=arn)["CertificateChain"].encode() == chain
    # An encrypted key is refused: ACM needs it in the clear.
    encrypted = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.BestAvailableEncryption(b"pw")
    )
    with pytest.raises(ClientError) as excinfo:
        acm.import_certificate(Certificate=cert_pem, PrivateKey=encrypted)
    assert error_code(excinfo) == "ValidationException"


def test_an_exportable_certificate_exports_its_key_encrypted(acm, stratus):
    arn = acm.request_certificate(DomainName=domain(), Options={"Export": "ENABLED"})["CertificateArn"]
    with pytest.raises(ClientError) as excinfo:
        acm.export_certificate(CertificateArn=arn, Passphrase=b"secret-pass")
    assert error_code(excinfo) == "RequestInProgressException"
    stratus.advance(VALIDATION_SECONDS)
    exported = acm.export_certificate(CertificateArn=arn, Passphrase=b"secret-pass")
    assert exported["PrivateKey"].startswith("-----BEGIN ENCRYPTED PRIVATE KEY-----")
    with pytest.raises(TypeError):
        serialization.load_pem_private_key(exported["PrivateKey"].encode(), password=None)
    key = serialization.load_pem_private_key(exported["PrivateKey"].encode(), password=b"secret-pass")
    leaf = x509.load_pem_x509_certificate(exported["Certificate"].encode())
    assert key.public_key().public_numbers() == leaf.public_key().public_numbers()
    summary = next(
        s for s in acm.list_certificates()["CertificateSummaryList"] if s["CertificateArn"] == arn
    )
    assert summary["Exported"] is True and summary["ExportOption"] == "ENABLED"

    plain = acm.request_certificate(DomainName=domain())["CertificateArn"]
    stratus.advance(VALIDATION_SECONDS)
    with pytest.raises(ClientError) as excinfo:
        acm.export_certificate(CertificateArn=plain, Passphrase=b"secret-pass")
    assert error_code(excinfo) == "ValidationException"


def test_listing_filters_by_status_and_key_type_and_pages(acm, stratus):
    ec_arn = acm.request_certificate(DomainName=domain(), KeyAlgorithm="EC_secp384r1")["CertificateArn"]
    rsa_arn = acm.request_certificate(DomainName=domain())["CertificateArn"]

    def arns(**kwargs):
        listed, token = [], None
        while True:
            page = acm.list_certificates(**kwargs, **({"NextToken": token} if token else {}))
            listed += [s["CertificateArn"] for s in page["CertificateSummaryList"]]
            token = page.get("NextToken")
            if not token:
                return listed

    # Without keyTypes only RSA_2048 certificates are listed (the API reference).
    assert rsa_arn in arns() and ec_arn not in arns()
    assert ec_arn in arns(Includes={"keyTypes": ["EC_secp384r1"]})
    assert rsa_arn in arns(CertificateStatuses=["PENDING_VALIDATION"])
    assert rsa_arn not in arns(CertificateStatuses=["ISSUED"])
    everything = arns(Includes={"keyTypes": ["RSA_2048", "EC_prime256v1", "EC_secp384r1"]})
    assert arns(MaxItems=1, Includes={"keyTypes": ["RSA_2048", "EC_prime256v1", "EC_secp384r1"]}) == everything
    summary = acm.list_certificates(MaxItems=1000)["CertificateSummaryList"]
    pending = next(s for s in summary if s["CertificateArn"] == rsa_arn)
    assert pending["Status"] == "PENDING_VALIDATION" and pending["KeyAlgorithm"] == "RSA-2048"
    assert pending["Exported"] is False and "ExportOption" not in pending
    stratus.advance(VALIDATION_SECONDS)
    assert rsa_arn in arns(CertificateStatuses=["ISSUED"])
    assert rsa_arn in arns(Includes={"extendedKeyUsage": ["TLS_WEB_SERVER_AUTHENTICATION"]})
    assert rsa_arn not in arns(Includes={"extendedKeyUsage": ["CODE_SIGNING"]})
    with pytest.raises(ClientError) as excinfo:
        acm.list_certificates(NextToken="bogus")
    assert error_code(excinfo) == "ValidationException"


def test_tags(acm):
    arn = acm.request_certificate(DomainName=domain(), Tags=[{"Key": "team", "Value": "web"}])["CertificateArn"]
    acm.add_tags_to_certificate(CertificateArn=arn, Tags=[{"Key": "env", "Value": "dev"}, {"Key": "flag"}])
    assert acm.list_tags_for_certificate(CertificateArn=arn)["Tags"] == [
        {"Key": "team", "Value": "web"},
        {"Key": "env", "Value": "dev"},
        {"Key": "flag"},
    ]
    acm.remove_tags_from_certificate(CertificateArn=arn, Tags=[{"Key": "team", "Value": "other"}, {"Key": "env"}])
    assert [t["Key"] for t in acm.list_tags_for_certificate(CertificateArn=arn)["Tags"]] == ["team", "flag"]
    with pytest.raises(ClientError) as excinfo:
        acm.add_tags_to_certificate(CertificateArn=arn, Tags=[{"Key": "aws:owner", "Value": "x"}])
    assert error_code(excinfo) == "InvalidTagException"
    with pytest.raises(ClientError) as excinfo:
        acm.add_tags_to_certificate(CertificateArn=arn, Tags=[{"Key": f"k{i}", "Value": "v"} for i in range(50)])
    assert error_code(excinfo) == "TooManyTagsException"


def test_missing_and_malformed_arns(acm):
    missing = "arn:aws:acm:us-east-1:000000000000:certificate/00000000-0000-0000-0000-000000000000"
    with pytest.raises(ClientError) as excinfo:
        acm.describe_certificate(CertificateArn=missing)
    assert error_code(excinfo) == "ResourceNotFoundException"
    assert excinfo.value.response["Error"]["Message"] == f"Could not find certificate {missing}."
    with pytest.raises(ClientError) as excinfo:
        acm.delete_certificate(CertificateArn="arn:aws:sqs:us-east-1:000000000000:queue")
    assert error_code(excinfo) in ("InvalidArnException", "ValidationException")


def test_delete_renew_revoke_and_options(acm, stratus):
    arn = acm.request_certificate(DomainName=domain(), Options={"Export": "ENABLED"})["CertificateArn"]
    with pytest.raises(ClientError) as excinfo:
        acm.renew_certificate(CertificateArn=arn)
    assert error_code(excinfo) == "InvalidStateException"
    stratus.advance(VALIDATION_SECONDS)
    before = acm.describe_certificate(CertificateArn=arn)["Certificate"]["Serial"]
    acm.renew_certificate(CertificateArn=arn)
    renewed = acm.describe_certificate(CertificateArn=arn)["Certificate"]
    assert renewed["Serial"] != before
    assert renewed["RenewalSummary"]["RenewalStatus"] == "SUCCESS"

    acm.update_certificate_options(CertificateArn=arn, Options={"CertificateTransparencyLoggingPreference": "DISABLED"})
    options = acm.describe_certificate(CertificateArn=arn)["Certificate"]["Options"]
    assert options == {"CertificateTransparencyLoggingPreference": "DISABLED", "Export": "ENABLED"}

    assert acm.revoke_certificate(CertificateArn=arn, RevocationReason="KEY_COMPROMISE")["CertificateArn"] == arn
    revoked = acm.describe_certificate(CertificateArn=arn)["Certificate"]
    assert revoked["Status"] == "REVOKED" and revoked["RevocationReason"] == "KEY_COMPROMISE"

    acm.delete_certificate(CertificateArn=arn)
    with pytest.raises(ClientError) as excinfo:
        acm.describe_certificate(CertificateArn=arn)
    assert error_code(excinfo) == "ResourceNotFoundException"


def test_resend_validation_email_only_while_email_validation_waits(acm, stratus):
    name = domain()
    arn = acm.request_certificate(DomainName=name)["CertificateArn"]
    acm.resend_validation_email(CertificateArn=arn, Domain=name, ValidationDomain=name)
    stratus.advance(VALIDATION_SECONDS)
    with pytest.raises(ClientError) as excinfo:
        acm.resend_validation_email(CertificateArn=arn, Domain=name, ValidationDomain=name)
    assert error_code(excinfo) == "InvalidStateException"


def test_account_configuration(acm):
    assert acm.get_account_configuration()["ExpiryEvents"] == {"DaysBeforeExpiry": 45}
    acm.put_account_configuration(ExpiryEvents={"DaysBeforeExpiry": 30}, IdempotencyToken="t")
    assert acm.get_account_configuration()["ExpiryEvents"] == {"DaysBeforeExpiry": 30}


def cli(stratus, *args):
    env = {
        **os.environ,
        "AWS_ACCESS_KEY_ID": "AKIAIOSFODNN7EXAMPLE",
        "AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_CONFIG_FILE": os.devnull,
        "AWS_SHARED_CREDENTIALS_FILE": os.devnull,
        "AWS_PAGER": "",
    }
    done = subprocess.run(
        [AWS, "--endpoint-url", stratus.endpoint, "--output", "json", "acm", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout) if done.stdout.strip() else None


def test_aws_cli_requests_describes_and_lists(stratus):
    name = domain()
    arn = cli(stratus, "request-certificate", "--domain-name", name, "--validation-method", "DNS")["CertificateArn"]
    detail = cli(stratus, "describe-certificate", "--certificate-arn", arn)["Certificate"]
    assert detail["DomainValidationOptions"][0]["ResourceRecord"]["Type"] == "CNAME"
    listed = cli(stratus, "list-certificates", "--certificate-statuses", "PENDING_VALIDATION")
    assert arn in [s["CertificateArn"] for s in listed["CertificateSummaryList"]]


def test_the_local_ca_survives_a_restart(tmp_path):
    server = Stratus("--data-dir", str(tmp_path), "--clock", "manual")
    try:
        acm = server.client("acm")
        arn = acm.request_certificate(DomainName=domain())["CertificateArn"]
        server.advance(VALIDATION_SECONDS)
        chain = acm.get_certificate(CertificateArn=arn)["CertificateChain"]
    finally:
        server.stop()
    server = Stratus("--data-dir", str(tmp_path), "--clock", "manual")
    try:
        acm = server.client("acm")
        # A manual clock starts again from the system's time.
        server.advance(VALIDATION_SECONDS)
        assert acm.get_certificate(CertificateArn=arn)["CertificateChain"] == chain
        later = acm.request_certificate(DomainName=domain())["CertificateArn"]
        server.advance(VALIDATION_SECONDS)
        assert acm.get_certificate(CertificateArn=later)["CertificateChain"] == chain
    finally:
        server.stop()
