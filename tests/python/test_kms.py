"""KMS through boto3 against the real binary, with Python's `cryptography` as the independent
check of the cryptography: data keys used with its AES-GCM, signatures verified with the
public key GetPublicKey hands out, RSA ciphertexts it makes decrypted by KMS, ECDH secrets
it derives matched.

The module's server runs on a manual clock, so key deletion and automatic rotation are
driven by advancing it, never by sleeping.
"""

import base64
import os

import pytest
from botocore.exceptions import ClientError
from conftest import Stratus
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

DAY = 86_400


@pytest.fixture(scope="module")
def stratus():
    server = Stratus("--ephemeral", "--clock", "manual")
    yield server
    server.stop()


@pytest.fixture(scope="module")
def kms(stratus):
    return stratus.client("kms")


def error(excinfo):
    return excinfo.value.response["Error"]["Code"], excinfo.value.response["Error"]["Message"]


def new_key(kms, **kwargs):
    return kms.create_key(**kwargs)["KeyMetadata"]


# --- symmetric keys -----------------------------------------------------------------------


def test_create_key_answers_metadata_as_aws_writes_it(kms):
    meta = new_key(kms, Description="orders")
    assert meta["KeySpec"] == meta["CustomerMasterKeySpec"] == "SYMMETRIC_DEFAULT"
    assert meta["KeyUsage"] == "ENCRYPT_DECRYPT"
    assert meta["KeyState"] == "Enabled" and meta["Enabled"] is True
    assert meta["Origin"] == "AWS_KMS" and meta["KeyManager"] == "CUSTOMER"
    assert meta["EncryptionAlgorithms"] == ["SYMMETRIC_DEFAULT"]
    assert meta["MultiRegion"] is False
    assert len(meta["CurrentKeyMaterialId"]) == 64
    assert meta["Arn"] == f"arn:aws:kms:us-east-1:000000000000:key/{meta['KeyId']}"
    described = kms.describe_key(KeyId=meta["Arn"])["KeyMetadata"]
    assert described["KeyId"] == meta["KeyId"] and described["Description"] == "orders"
    listed = [k["KeyId"] for k in kms.list_keys()["Keys"]]
    assert meta["KeyId"] in listed


def test_encrypt_then_decrypt_needs_no_key_id_and_binds_the_context(kms):
    key = new_key(kms)["KeyId"]
    context = {"tenant": "a", "purpose": "test"}
    enc = kms.encrypt(KeyId=key, Plaintext=b"secret bytes", EncryptionContext=context)
    assert enc["EncryptionAlgorithm"] == "SYMMETRIC_DEFAULT"
    assert enc["KeyId"].endswith(key)
    dec = kms.decrypt(CiphertextBlob=enc["CiphertextBlob"], EncryptionContext=dict(reversed(context.items())))
    assert dec["Plaintext"] == b"secret bytes"
    assert dec["KeyId"] == enc["KeyId"]
    assert len(dec["KeyMaterialId"]) == 64
    with pytest.raises(ClientError) as e:
        kms.decrypt(CiphertextBlob=enc["CiphertextBlob"], EncryptionContext={"tenant": "b", "purpose": "test"})
    assert error(e) == ("InvalidCiphertextException", "")
    with pytest.raises(ClientError) as e:
        kms.decrypt(CiphertextBlob=enc["CiphertextBlob"])
    assert error(e)[0] == "InvalidCiphertextException"


def test_tampered_or_random_ciphertext_is_invalid_ciphertext(kms):
    key = new_key(kms)["KeyId"]
    blob = bytearray(kms.encrypt(KeyId=key, Plaintext=b"x")["CiphertextBlob"])
    blob[-1] ^= 1
    for bad in (bytes(blob), os.urandom(64), b"\x01"):
        with pytest.raises(ClientError) as e:
            kms.decrypt(CiphertextBlob=bad)
        assert error(e) == ("InvalidCiphertextException", "")


def test_decrypt_with_another_key_id_is_incorrect_key(kms):
    a, b = new_key(kms)["KeyId"], new_key(kms)["KeyId"]
    blob = kms.encrypt(KeyId=a, Plaintext=b"x")["CiphertextBlob"]
    with pytest.raises(ClientError) as e:
        kms.decrypt(CiphertextBlob=blob, KeyId=b)
    assert error(e) == (
        "IncorrectKeyException",
        "The key ID in the request does not identify a CMK that can perform this operation.",
    )


def test_missing_and_malformed_key_ids_are_refused_in_aws_words(kms):
    with pytest.raises(ClientError) as e:
        kms.describe_key(KeyId="fake-key-id")
    assert error(e) == ("NotFoundException", "Invalid keyId 'fake-key-id'")
    missing = "0b0a6d4e-2f6c-4e8a-9d37-5e6f2a1b3c4d"
    with pytest.raises(ClientError) as e:
        kms.describe_key(KeyId=missing)
    assert error(e) == ("NotFoundException", f"Key 'arn:aws:kms:us-east-1:000000000000:key/{missing}' does not exist")
    key = new_key(kms)["KeyId"]
    # An ARN of another region names it, as AWS's recorded answer words it.
    with pytest.raises(ClientError) as e:
        kms.describe_key(KeyId=f"arn:aws:kms:eu-west-1:000000000000:key/{key}")
    assert error(e) == ("NotFoundException", "Invalid arn eu-west-1")


def test_disabled_key_refuses_cryptography_until_enabled(kms):
    meta = new_key(kms)
    blob = kms.encrypt(KeyId=meta["KeyId"], Plaintext=b"x")["CiphertextBlob"]
    kms.disable_key(KeyId=meta["KeyId"])
    assert kms.describe_key(KeyId=meta["KeyId"])["KeyMetadata"]["KeyState"] == "Disabled"
    for call in (lambda: kms.encrypt(KeyId=meta["KeyId"], Plaintext=b"x"), lambda: kms.decrypt(CiphertextBlob=blob)):
        with pytest.raises(ClientError) as e:
            call()
        assert error(e) == ("DisabledException", f"{meta['Arn']} is disabled.")
    kms.enable_key(KeyId=meta["KeyId"])
    assert kms.decrypt(CiphertextBlob=blob)["Plaintext"] == b"x"


def test_schedule_deletion_checks_the_window_and_can_be_cancelled(kms):
    meta = new_key(kms)
    for days in (6, 31):
        with pytest.raises(ClientError) as e:
            kms.schedule_key_deletion(KeyId=meta["KeyId"], PendingWindowInDays=days)
        assert error(e)[0] == "ValidationException"
    answer = kms.schedule_key_deletion(KeyId=meta["KeyId"], PendingWindowInDays=7)
    assert answer["KeyState"] == "PendingDeletion" and answer["PendingWindowInDays"] == 7
    described = kms.describe_key(KeyId=meta["KeyId"])["KeyMetadata"]
    assert described["KeyState"] == "PendingDeletion" and "DeletionDate" in described
    with pytest.raises(ClientError) as e:
        kms.encrypt(KeyId=meta["KeyId"], Plaintext=b"x")
    assert error(e) == ("KMSInvalidStateException", f"{meta['Arn']} is pending deletion.")
    kms.cancel_key_deletion(KeyId=meta["KeyId"])
    # As on AWS, a key whose deletion is cancelled is left disabled.
    assert kms.describe_key(KeyId=meta["KeyId"])["KeyMetadata"]["KeyState"] == "Disabled"


def test_a_key_is_deleted_when_its_window_has_passed(stratus, kms):
    doomed, kept = new_key(kms)["KeyId"], new_key(kms)["KeyId"]
    kms.create_alias(AliasName="alias/doomed", TargetKeyId=doomed)
    kms.schedule_key_deletion(KeyId=doomed, PendingWindowInDays=7)
    stratus.advance(6 * DAY)
    assert kms.describe_key(KeyId=doomed)["KeyMetadata"]["KeyState"] == "PendingDeletion"
    stratus.advance(DAY + 1)
    with pytest.raises(ClientError) as e:
        kms.describe_key(KeyId=doomed)
    assert error(e)[0] == "NotFoundException"
    assert kms.describe_key(KeyId=kept)["KeyMetadata"]["KeyState"] == "Enabled"
    assert "alias/doomed" not in [a["AliasName"] for a in kms.list_aliases()["Aliases"]]


def test_data_key_plaintext_works_with_cryptography_aes_gcm(kms):
    key = new_key(kms)["KeyId"]
    data_key = kms.generate_data_key(KeyId=key, KeySpec="AES_256", EncryptionContext={"file": "a"})
    assert len(data_key["Plaintext"]) == 32
    nonce = os.urandom(12)
    sealed = AESGCM(data_key["Plaintext"]).encrypt(nonce, b"file contents", b"header")
    # Later: the stored data key is decrypted by KMS and opens the data.
    recovered = kms.decrypt(CiphertextBlob=data_key["CiphertextBlob"], EncryptionContext={"file": "a"})["Plaintext"]
    assert AESGCM(recovered).decrypt(nonce, sealed, b"header") == b"file contents"
    without = kms.generate_data_key_without_plaintext(KeyId=key, NumberOfBytes=16)
    assert "Plaintext" not in without
    assert len(kms.decrypt(CiphertextBlob=without["CiphertextBlob"])["Plaintext"]) == 16
    with pytest.raises(ClientError) as e:
        kms.generate_data_key(KeyId=key)
    assert error(e)[0] == "ValidationException"


def test_generate_random(kms):
    assert len(kms.generate_random(NumberOfBytes=91)["Plaintext"]) == 91
    with pytest.raises(ClientError) as e:
        kms.generate_random()
    assert error(e) == ("ValidationException", "NumberOfBytes is required.")
    with pytest.raises(ClientError) as e:
        kms.generate_random(NumberOfBytes=1025)
    assert error(e)[0] == "ValidationException"


def test_re_encrypt_moves_a_ciphertext_to_another_key(kms):
    a, b = new_key(kms), new_key(kms)
    blob = kms.encrypt(KeyId=a["KeyId"], Plaintext=b"moving", EncryptionContext={"k": "1"})["CiphertextBlob"]
    moved = kms.re_encrypt(
        CiphertextBlob=blob,
        SourceEncryptionContext={"k": "1"},
        DestinationKeyId=b["KeyId"],
        DestinationEncryptionContext={"k": "2"},
    )
    assert moved["SourceKeyId"] == a["Arn"] and moved["KeyId"] == b["Arn"]
    dec = kms.decrypt(CiphertextBlob=moved["CiphertextBlob"], EncryptionContext={"k": "2"})
    assert dec["Plaintext"] == b"moving" and dec["KeyId"] == b["Arn"]


def test_aliases_name_keys_and_aws_ones_are_reserved(kms):
    a, b = new_key(kms), new_key(kms)
    kms.create_alias(AliasName="alias/app", TargetKeyId=a["KeyId"])
    with pytest.raises(ClientError) as e:
        kms.create_alias(AliasName="alias/app", TargetKeyId=b["KeyId"])
    assert error(e)[0] == "AlreadyExistsException"
    blob = kms.encrypt(KeyId="alias/app", Plaintext=b"x")["CiphertextBlob"]
    kms.update_alias(AliasName="alias/app", TargetKeyId=b["KeyId"])
    assert kms.describe_key(KeyId="alias/app")["KeyMetadata"]["KeyId"] == b["KeyId"]
    assert kms.describe_key(KeyId="arn:aws:kms:us-east-1:000000000000:alias/app")["KeyMetadata"]["KeyId"] == b["KeyId"]
    assert kms.decrypt(CiphertextBlob=blob)["KeyId"] == a["Arn"]
    listed = kms.list_aliases(KeyId=b["KeyId"])["Aliases"]
    assert [x["AliasName"] for x in listed] == ["alias/app"]
    assert listed[0]["AliasArn"] == "arn:aws:kms:us-east-1:000000000000:alias/app"
    kms.delete_alias(AliasName="alias/app")
    with pytest.raises(ClientError) as e:
        kms.describe_key(KeyId="alias/app")
    assert error(e) == ("NotFoundException", "Alias arn:aws:kms:us-east-1:000000000000:alias/app is not found.")
    with pytest.raises(ClientError) as e:
        kms.create_alias(AliasName="alias/aws/mine", TargetKeyId=a["KeyId"])
    assert error(e)[0] == "NotAuthorizedException"
    with pytest.raises(ClientError) as e:
        kms.create_alias(AliasName="no-prefix", TargetKeyId=a["KeyId"])
    assert error(e)[0] == "ValidationException"


def test_an_aws_managed_key_is_made_on_first_use(kms):
    blob = kms.encrypt(KeyId="alias/aws/s3", Plaintext=b"x")["CiphertextBlob"]
    meta = kms.describe_key(KeyId="alias/aws/s3")["KeyMetadata"]
    assert meta["KeyManager"] == "AWS"
    assert kms.decrypt(CiphertextBlob=blob)["KeyId"] == meta["Arn"]
    with pytest.raises(ClientError) as e:
        kms.schedule_key_deletion(KeyId=meta["KeyId"])
    assert error(e)[0] == "UnsupportedOperationException"


def test_tags_are_set_updated_removed_and_checked(kms):
    key = new_key(kms, Tags=[{"TagKey": "team", "TagValue": "a"}])["KeyId"]
    kms.tag_resource(KeyId=key, Tags=[{"TagKey": "team", "TagValue": "b"}, {"TagKey": "env", "TagValue": "dev"}])
    assert kms.list_resource_tags(KeyId=key)["Tags"] == [
        {"TagKey": "team", "TagValue": "b"},
        {"TagKey": "env", "TagValue": "dev"},
    ]
    kms.untag_resource(KeyId=key, TagKeys=["team"])
    assert kms.list_resource_tags(KeyId=key)["Tags"] == [{"TagKey": "env", "TagValue": "dev"}]
    for tags, message in (
        ([{"TagKey": "a", "TagValue": "1"}, {"TagKey": "a", "TagValue": "2"}], "Duplicate tag keys"),
        ([{"TagKey": "aws:x", "TagValue": "1"}], "Tags beginning with aws: are reserved"),
        ([{"TagKey": f"k{i}", "TagValue": "v"} for i in range(51)], "Too many tags"),
    ):
        with pytest.raises(ClientError) as e:
            kms.tag_resource(KeyId=key, Tags=tags)
        assert error(e) == ("TagException", message)


def test_default_key_policy_and_put_key_policy(kms):
    import json

    key = new_key(kms)["KeyId"]
    policy = json.loads(kms.get_key_policy(KeyId=key, PolicyName="default")["Policy"])
    assert policy["Id"] == "key-default-1"
    assert policy["Statement"] == [
        {
            "Sid": "Enable IAM User Permissions",
            "Effect": "Allow",
            "Principal": {"AWS": "arn:aws:iam::000000000000:root"},
            "Action": "kms:*",
            "Resource": "*",
        }
    ]
    assert kms.list_key_policies(KeyId=key)["PolicyNames"] == ["default"]
    mine = json.dumps({"Version": "2012-10-17", "Statement": []})
    kms.put_key_policy(KeyId=key, PolicyName="default", Policy=mine)
    assert kms.get_key_policy(KeyId=key)["Policy"] == mine
    with pytest.raises(ClientError) as e:
        kms.put_key_policy(KeyId=key, PolicyName="default", Policy="not json")
    assert error(e)[0] == "MalformedPolicyDocumentException"


# --- asymmetric and HMAC keys -------------------------------------------------------------

SIGNING = [
    ("ECC_NIST_P256", "ECDSA_SHA_256"),
    ("ECC_NIST_P384", "ECDSA_SHA_384"),
    ("ECC_NIST_P521", "ECDSA_SHA_512"),
    ("ECC_SECG_P256K1", "ECDSA_SHA_256"),
    ("RSA_2048", "RSASSA_PSS_SHA_256"),
    ("RSA_2048", "RSASSA_PKCS1_V1_5_SHA_384"),
]

HASHES = {"256": hashes.SHA256(), "384": hashes.SHA384(), "512": hashes.SHA512()}


@pytest.mark.parametrize("key_spec,algorithm", SIGNING)
def test_signatures_verify_with_cryptography_and_the_public_key(kms, key_spec, algorithm):
    key = new_key(kms, KeySpec=key_spec, KeyUsage="SIGN_VERIFY")
    assert algorithm in key["SigningAlgorithms"]
    der = kms.get_public_key(KeyId=key["KeyId"])["PublicKey"]
    public = serialization.load_der_public_key(der)
    message = b"signed by KMS"
    signature = kms.sign(KeyId=key["KeyId"], Message=message, SigningAlgorithm=algorithm)["Signature"]
    digest = HASHES[algorithm[-3:]]
    if algorithm.startswith("ECDSA"):
        public.verify(signature, message, ec.ECDSA(digest))
    elif "PSS" in algorithm:
        public.verify(signature, message, padding.PSS(padding.MGF1(digest), digest.digest_size), digest)
    else:
        public.verify(signature, message, padding.PKCS1v15(), digest)
    assert kms.verify(KeyId=key["KeyId"], Message=message, Signature=signature, SigningAlgorithm=algorithm)["SignatureValid"]
    with pytest.raises(ClientError) as e:
        kms.verify(KeyId=key["KeyId"], Message=b"other", Signature=signature, SigningAlgorithm=algorithm)
    assert error(e)[0] == "KMSInvalidSignatureException"


def test_a_digest_is_signed_as_one_and_must_have_its_length(kms):
    key = new_key(kms, KeySpec="ECC_NIST_P256", KeyUsage="SIGN_VERIFY")["KeyId"]
    h = hashes.Hash(hashes.SHA256())
    h.update(b"m")
    digest = h.finalize()
    signature = kms.sign(KeyId=key, Message=digest, MessageType="DIGEST", SigningAlgorithm="ECDSA_SHA_256")["Signature"]
    public = serialization.load_der_public_key(kms.get_public_key(KeyId=key)["PublicKey"])
    public.verify(signature, b"m", ec.ECDSA(hashes.SHA256()))
    with pytest.raises(ClientError) as e:
        kms.sign(KeyId=key, Message=b"short", MessageType="DIGEST", SigningAlgorithm="ECDSA_SHA_256")
    assert error(e) == ("ValidationException", "Digest is invalid length for algorithm ECDSA_SHA_256.")


@pytest.mark.parametrize("algorithm", ["RSAES_OAEP_SHA_1", "RSAES_OAEP_SHA_256"])
def test_rsa_ciphertext_made_by_cryptography_decrypts_in_kms(kms, algorithm):
    key = new_key(kms, KeySpec="RSA_2048", KeyUsage="ENCRYPT_DECRYPT")
    public = serialization.load_der_public_key(kms.get_public_key(KeyId=key["KeyId"])["PublicKey"])
    digest = hashes.SHA1() if algorithm.endswith("SHA_1") else hashes.SHA256()
    ciphertext = public.encrypt(b"for KMS", padding.OAEP(padding.MGF1(digest), digest, None))
    dec = kms.decrypt(KeyId=key["KeyId"], CiphertextBlob=ciphertext, EncryptionAlgorithm=algorithm)
    assert dec["Plaintext"] == b"for KMS" and dec["EncryptionAlgorithm"] == algorithm
    enc = kms.encrypt(KeyId=key["KeyId"], Plaintext=b"round", EncryptionAlgorithm=algorithm)
    assert kms.decrypt(KeyId=key["KeyId"], CiphertextBlob=enc["CiphertextBlob"], EncryptionAlgorithm=algorithm)["Plaintext"] == b"round"
    with pytest.raises(ClientError) as e:
        kms.encrypt(KeyId=key["KeyId"], Plaintext=b"x" * 300, EncryptionAlgorithm=algorithm)
    limit = 214 if algorithm.endswith("SHA_1") else 190
    assert error(e) == (
        "ValidationException",
        f"Algorithm {algorithm} and key spec RSA_2048 cannot encrypt data larger than {limit} bytes.",
    )


def test_key_usage_and_spec_are_checked(kms):
    signing = new_key(kms, KeySpec="ECC_NIST_P256", KeyUsage="SIGN_VERIFY")
    with pytest.raises(ClientError) as e:
        kms.encrypt(KeyId=signing["KeyId"], Plaintext=b"x")
    assert error(e) == ("InvalidKeyUsageException", f"{signing['Arn']} key usage is SIGN_VERIFY which is not valid for Encrypt.")
    with pytest.raises(ClientError) as e:
        kms.create_key(KeySpec="RSA_2048", KeyUsage="KEY_AGREEMENT")
    assert error(e) == ("ValidationException", "KeyUsage KEY_AGREEMENT is not compatible with KeySpec RSA_2048")
    with pytest.raises(ClientError) as e:
        kms.create_key(KeySpec="HMAC_256")
    assert error(e) == (
        "ValidationException",
        "You must specify a KeyUsage value for all KMS keys except for symmetric encryption keys.",
    )


def test_hmac_keys_generate_and_verify_macs(kms):
    key = new_key(kms, KeySpec="HMAC_384", KeyUsage="GENERATE_VERIFY_MAC")
    assert key["MacAlgorithms"] == ["HMAC_SHA_384"]
    mac = kms.generate_mac(KeyId=key["KeyId"], Message=b"m", MacAlgorithm="HMAC_SHA_384")["Mac"]
    assert len(mac) == 48
    assert kms.verify_mac(KeyId=key["KeyId"], Message=b"m", Mac=mac, MacAlgorithm="HMAC_SHA_384")["MacValid"]
    with pytest.raises(ClientError) as e:
        kms.verify_mac(KeyId=key["KeyId"], Message=b"n", Mac=mac, MacAlgorithm="HMAC_SHA_384")
    assert error(e) == ("KMSInvalidMacException", "")
    with pytest.raises(ClientError) as e:
        kms.generate_mac(KeyId=key["KeyId"], Message=b"m", MacAlgorithm="HMAC_SHA_256")
    assert error(e) == ("InvalidKeyUsageException", "Algorithm HMAC_SHA_256 is incompatible with key spec HMAC_384.")


def test_derive_shared_secret_matches_cryptography_ecdh(kms):
    key = new_key(kms, KeySpec="ECC_NIST_P384", KeyUsage="KEY_AGREEMENT")
    assert key["KeyAgreementAlgorithms"] == ["ECDH"]
    kms_public = serialization.load_der_public_key(kms.get_public_key(KeyId=key["KeyId"])["PublicKey"])
    mine = ec.generate_private_key(ec.SECP384R1())
    my_public = mine.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    answer = kms.derive_shared_secret(KeyId=key["KeyId"], KeyAgreementAlgorithm="ECDH", PublicKey=my_public)
    assert answer["SharedSecret"] == mine.exchange(ec.ECDH(), kms_public)
    with pytest.raises(ClientError) as e:
        kms.derive_shared_secret(KeyId=key["KeyId"], KeyAgreementAlgorithm="ECDH", PublicKey=b"not a key")
    assert error(e)[0] == "ValidationException"


def test_data_key_pairs_are_real_key_pairs(kms):
    key = new_key(kms)["KeyId"]
    pair = kms.generate_data_key_pair(KeyId=key, KeyPairSpec="ECC_NIST_P256")
    private = serialization.load_der_private_key(pair["PrivateKeyPlaintext"], None)
    public = serialization.load_der_public_key(pair["PublicKey"])
    assert private.public_key().public_numbers() == public.public_numbers()
    assert kms.decrypt(CiphertextBlob=pair["PrivateKeyCiphertextBlob"])["Plaintext"] == pair["PrivateKeyPlaintext"]
    without = kms.generate_data_key_pair_without_plaintext(KeyId=key, KeyPairSpec="RSA_2048")
    assert "PrivateKeyPlaintext" not in without
    rsa_private = serialization.load_der_private_key(kms.decrypt(CiphertextBlob=without["PrivateKeyCiphertextBlob"])["Plaintext"], None)
    assert rsa_private.key_size == 2048
    with pytest.raises(ClientError) as e:
        kms.generate_data_key_pair(KeyId=key, KeyPairSpec="RSA_2048", DryRun=True)
    assert error(e)[0] == "DryRunOperationException"


# --- grants, rotation, imported material, replicas ---------------------------------------


def test_grants_are_created_listed_retired_and_revoked(kms):
    key = new_key(kms)["KeyId"]
    grantee = "arn:aws:iam::000000000000:role/app"
    made = kms.create_grant(
        KeyId=key,
        GranteePrincipal=grantee,
        RetiringPrincipal=grantee,
        Operations=["Encrypt", "Decrypt"],
        Constraints={"EncryptionContextSubset": {"tenant": "a"}},
    )
    listed = kms.list_grants(KeyId=key)["Grants"]
    assert [g["GrantId"] for g in listed] == [made["GrantId"]]
    assert listed[0]["Constraints"] == {"EncryptionContextSubset": {"tenant": "a"}}
    assert listed[0]["Operations"] == ["Encrypt", "Decrypt"]
    # The grant token is accepted at once.
    kms.encrypt(KeyId=key, Plaintext=b"x", GrantTokens=[made["GrantToken"]])
    with pytest.raises(ClientError) as e:
        kms.encrypt(KeyId=key, Plaintext=b"x", GrantTokens=["not-a-token"])
    assert error(e)[0] == "InvalidGrantTokenException"
    assert [g["GrantId"] for g in kms.list_retirable_grants(RetiringPrincipal=grantee)["Grants"]] == [made["GrantId"]]
    kms.retire_grant(GrantToken=made["GrantToken"])
    assert kms.list_grants(KeyId=key)["Grants"] == []
    other = kms.create_grant(KeyId=key, GranteePrincipal=grantee, Operations=["Decrypt"])
    kms.revoke_grant(KeyId=key, GrantId=other["GrantId"])
    with pytest.raises(ClientError) as e:
        kms.revoke_grant(KeyId=key, GrantId=other["GrantId"])
    assert error(e)[0] == "NotFoundException"


def test_rotation_on_demand_keeps_old_material_decrypting(kms):
    meta = new_key(kms)
    old = kms.encrypt(KeyId=meta["KeyId"], Plaintext=b"before")["CiphertextBlob"]
    kms.rotate_key_on_demand(KeyId=meta["KeyId"])
    after = kms.describe_key(KeyId=meta["KeyId"])["KeyMetadata"]
    assert after["CurrentKeyMaterialId"] != meta["CurrentKeyMaterialId"]
    assert kms.decrypt(CiphertextBlob=old)["Plaintext"] == b"before"
    rotations = kms.list_key_rotations(KeyId=meta["KeyId"])["Rotations"]
    assert [r["RotationType"] for r in rotations] == ["ON_DEMAND"]
    assert rotations[0]["KeyMaterialId"] == after["CurrentKeyMaterialId"]
    signing = new_key(kms, KeySpec="ECC_NIST_P256", KeyUsage="SIGN_VERIFY")["KeyId"]
    with pytest.raises(ClientError) as e:
        kms.rotate_key_on_demand(KeyId=signing)
    assert error(e)[0] == "UnsupportedOperationException"


def test_automatic_rotation_runs_when_the_clock_reaches_it(stratus, kms):
    meta = new_key(kms)
    old = kms.encrypt(KeyId=meta["KeyId"], Plaintext=b"old")["CiphertextBlob"]
    kms.enable_key_rotation(KeyId=meta["KeyId"], RotationPeriodInDays=90)
    status = kms.get_key_rotation_status(KeyId=meta["KeyId"])
    assert status["KeyRotationEnabled"] and status["RotationPeriodInDays"] == 90
    stratus.advance(91 * DAY)
    after = kms.describe_key(KeyId=meta["KeyId"])["KeyMetadata"]
    assert after["CurrentKeyMaterialId"] != meta["CurrentKeyMaterialId"]
    assert [r["RotationType"] for r in kms.list_key_rotations(KeyId=meta["KeyId"])["Rotations"]] == ["AUTOMATIC"]
    assert kms.decrypt(CiphertextBlob=old)["Plaintext"] == b"old"
    kms.disable_key_rotation(KeyId=meta["KeyId"])
    assert kms.get_key_rotation_status(KeyId=meta["KeyId"])["KeyRotationEnabled"] is False


def test_imported_key_material_wrapped_by_cryptography(kms):
    meta = new_key(kms, Origin="EXTERNAL")
    assert meta["KeyState"] == "PendingImport" and meta["Enabled"] is False
    with pytest.raises(ClientError) as e:
        kms.encrypt(KeyId=meta["KeyId"], Plaintext=b"x")
    assert error(e) == ("KMSInvalidStateException", f"{meta['Arn']} is pending import.")
    params = kms.get_parameters_for_import(KeyId=meta["KeyId"], WrappingAlgorithm="RSAES_OAEP_SHA_256", WrappingKeySpec="RSA_2048")
    wrapping = serialization.load_der_public_key(params["PublicKey"])
    material = os.urandom(32)
    wrapped = wrapping.encrypt(material, padding.OAEP(padding.MGF1(hashes.SHA256()), hashes.SHA256(), None))
    kms.import_key_material(
        KeyId=meta["KeyId"],
        ImportToken=params["ImportToken"],
        EncryptedKeyMaterial=wrapped,
        ExpirationModel="KEY_MATERIAL_DOES_NOT_EXPIRE",
    )
    described = kms.describe_key(KeyId=meta["KeyId"])["KeyMetadata"]
    assert described["KeyState"] == "Enabled" and described["ExpirationModel"] == "KEY_MATERIAL_DOES_NOT_EXPIRE"
    blob = kms.encrypt(KeyId=meta["KeyId"], Plaintext=b"imported")["CiphertextBlob"]
    assert kms.decrypt(CiphertextBlob=blob)["Plaintext"] == b"imported"
    kms.delete_imported_key_material(KeyId=meta["KeyId"])
    deleted = kms.describe_key(KeyId=meta["KeyId"])["KeyMetadata"]
    assert deleted["KeyState"] == "PendingImport"
    # As AWS reports it, the material's id stays; the same material imported again decrypts.
    assert deleted["CurrentKeyMaterialId"] == described["CurrentKeyMaterialId"]
    params = kms.get_parameters_for_import(KeyId=meta["KeyId"], WrappingAlgorithm="RSAES_OAEP_SHA_1", WrappingKeySpec="RSA_2048")
    wrapping = serialization.load_der_public_key(params["PublicKey"])
    wrapped = wrapping.encrypt(material, padding.OAEP(padding.MGF1(hashes.SHA1()), hashes.SHA1(), None))
    kms.import_key_material(
        KeyId=meta["KeyId"], ImportToken=params["ImportToken"], EncryptedKeyMaterial=wrapped, ValidTo=2_000_000_000
    )
    assert kms.decrypt(CiphertextBlob=blob)["Plaintext"] == b"imported"
    plain = new_key(kms)
    with pytest.raises(ClientError) as e:
        kms.get_parameters_for_import(KeyId=plain["KeyId"], WrappingAlgorithm="RSAES_OAEP_SHA_256", WrappingKeySpec="RSA_2048")
    assert error(e) == ("UnsupportedOperationException", f"{plain['Arn']} origin is AWS_KMS which is not valid for this operation.")


def test_multi_region_key_replicates_with_its_material(stratus, kms):
    meta = new_key(kms, MultiRegion=True)
    assert meta["KeyId"].startswith("mrk-")
    assert meta["MultiRegionConfiguration"]["MultiRegionKeyType"] == "PRIMARY"
    blob = kms.encrypt(KeyId=meta["KeyId"], Plaintext=b"everywhere")["CiphertextBlob"]
    replica = kms.replicate_key(KeyId=meta["KeyId"], ReplicaRegion="eu-west-1")["ReplicaKeyMetadata"]
    assert replica["Arn"] == meta["Arn"].replace("us-east-1", "eu-west-1")
    assert replica["MultiRegionConfiguration"]["MultiRegionKeyType"] == "REPLICA"
    there = stratus.client("kms", region="eu-west-1")
    assert there.decrypt(CiphertextBlob=blob)["Plaintext"] == b"everywhere"
    primary = kms.describe_key(KeyId=meta["KeyId"])["KeyMetadata"]["MultiRegionConfiguration"]
    assert [r["Region"] for r in primary["ReplicaKeys"]] == ["eu-west-1"]
    single = new_key(kms)["KeyId"]
    with pytest.raises(ClientError) as e:
        kms.replicate_key(KeyId=single, ReplicaRegion="eu-west-1")
    assert error(e)[0] == "UnsupportedOperationException"


def test_custom_key_stores_are_absent(kms):
    assert kms.describe_custom_key_stores()["CustomKeyStores"] == []
    with pytest.raises(ClientError) as e:
        kms.connect_custom_key_store(CustomKeyStoreId="cks-1234567890abcdef0")
    assert error(e)[0] == "CustomKeyStoreNotFoundException"
    with pytest.raises(ClientError) as e:
        kms.create_key(CustomKeyStoreId="cks-1234567890abcdef0")
    assert error(e)[0] == "CustomKeyStoreNotFoundException"


def test_an_ec_key_imported_with_rsa_aes_key_wrap_signs_as_itself(kms):
    from cryptography.hazmat.primitives.keywrap import aes_key_wrap_with_padding

    meta = new_key(kms, KeySpec="ECC_NIST_P256", KeyUsage="SIGN_VERIFY", Origin="EXTERNAL")
    params = kms.get_parameters_for_import(
        KeyId=meta["KeyId"], WrappingAlgorithm="RSA_AES_KEY_WRAP_SHA_256", WrappingKeySpec="RSA_3072"
    )
    mine = ec.generate_private_key(ec.SECP256R1())
    pkcs8 = mine.private_bytes(serialization.Encoding.DER, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    aes_key = os.urandom(32)
    wrapping = serialization.load_der_public_key(params["PublicKey"])
    wrapped = wrapping.encrypt(aes_key, padding.OAEP(padding.MGF1(hashes.SHA256()), hashes.SHA256(), None))
    wrapped += aes_key_wrap_with_padding(aes_key, pkcs8)
    kms.import_key_material(
        KeyId=meta["KeyId"],
        ImportToken=params["ImportToken"],
        EncryptedKeyMaterial=wrapped,
        ExpirationModel="KEY_MATERIAL_DOES_NOT_EXPIRE",
    )
    signature = kms.sign(KeyId=meta["KeyId"], Message=b"imported", SigningAlgorithm="ECDSA_SHA_256")["Signature"]
    mine.public_key().verify(signature, b"imported", ec.ECDSA(hashes.SHA256()))


def test_keys_and_pending_deletions_survive_sigkill(tmp_path):
    import signal

    server = Stratus("--data-dir", str(tmp_path), "--clock", "manual")
    try:
        kms = server.client("kms")
        kept = new_key(kms, Description="kept")["KeyId"]
        blob = kms.encrypt(KeyId=kept, Plaintext=b"durable")["CiphertextBlob"]
        doomed = new_key(kms)["KeyId"]
        kms.schedule_key_deletion(KeyId=doomed, PendingWindowInDays=7)
    finally:
        server.stop(signal.SIGKILL)
    server = Stratus("--data-dir", str(tmp_path), "--clock", "manual")
    try:
        kms = server.client("kms")
        assert kms.decrypt(CiphertextBlob=blob)["Plaintext"] == b"durable"
        # The deletion was scheduled again from the store at start.
        server.advance(8 * DAY)
        with pytest.raises(ClientError) as e:
            kms.describe_key(KeyId=doomed)
        assert error(e)[0] == "NotFoundException"
        assert kms.describe_key(KeyId=kept)["KeyMetadata"]["Description"] == "kept"
    finally:
        server.stop()


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="needs /proc")
def test_the_scheduler_runs_only_while_a_deletion_is_pending():
    import time

    def scheduler_running(server):
        # A new thread names itself once it runs.
        deadline = time.time() + 5
        while time.time() < deadline and "scheduler" not in server.thread_names():
            time.sleep(0.05)
        return "scheduler" in server.thread_names()

    server = Stratus("--ephemeral", "--clock", "manual")
    try:
        kms = server.client("kms")
        key = new_key(kms)["KeyId"]
        kms.encrypt(KeyId=key, Plaintext=b"x")
        assert "scheduler" not in server.thread_names()
        kms.schedule_key_deletion(KeyId=key, PendingWindowInDays=7)
        assert scheduler_running(server)
        server.advance(7 * DAY + 1)
        with pytest.raises(ClientError):
            kms.describe_key(KeyId=key)
        deadline = time.time() + 5
        while time.time() < deadline and "scheduler" in server.thread_names():
            time.sleep(0.05)
        assert "scheduler" not in server.thread_names()
    finally:
        server.stop()
