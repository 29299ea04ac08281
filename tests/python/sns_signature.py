"""Checks an SNS message's signature as a subscriber does: the canonical string of its signed
fields, verified with the public key of the certificate at its signing-certificate URL."""

import base64
import urllib.request

from cryptography import x509
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding

# The fields SNS signs, in order, per message type (AWS's guide, "Verifying the signatures of
# Amazon SNS messages"); a notification's Subject only when it has one.
SIGNED_FIELDS = {
    "Notification": ["Message", "MessageId", "Subject", "Timestamp", "TopicArn", "Type"],
    "SubscriptionConfirmation": ["Message", "MessageId", "SubscribeURL", "Timestamp", "Token", "TopicArn", "Type"],
}


def verify_signature(message, cert_url_key="SigningCertURL", via=None):
    """Checks `message`'s signature as a subscriber would: with the certificate at its URL, or
    at the same path on the server at `via` (a restarted server listens on another port)."""
    canonical = "".join(
        f"{field}\n{message[field]}\n"
        for field in SIGNED_FIELDS[message["Type"]]
        if message.get(field) is not None
    )
    url = message[cert_url_key]
    if via is not None:
        url = via + "/" + url.split("/", 3)[3]
    with urllib.request.urlopen(url, timeout=10) as answer:
        certificate = x509.load_pem_x509_certificate(answer.read())
    digest = hashes.SHA256() if message["SignatureVersion"] == "2" else hashes.SHA1()
    certificate.public_key().verify(base64.b64decode(message["Signature"]), canonical.encode(), padding.PKCS1v15(), digest)
