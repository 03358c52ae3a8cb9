"""HTTPS for ``handfoot serve`` on a home network: a phone's browser gives its camera (and installs a page as an
app) only to a secure page.

:func:`certificate` makes, once, a small certificate authority of this computer (``handfoot-ca.pem``, ten years)
and a server certificate it signs for this computer's addresses (``server.pem``, about two years), with the
``cryptography`` library, and keeps them in the data folder's ``https/`` (the keys readable by their owner only).
Served again they are the same; a new address (the Wi-Fi gave the computer another one) gets a new server
certificate from the same authority, so a phone that trusts the authority needs nothing new. A phone accepts the
server's certificate once (README: "A phone's camera needs HTTPS"), or trusts the authority, downloaded from
``/handfoot-ca.crt``.
"""

from __future__ import annotations

import argparse
import base64
import datetime as dt
import hashlib
import ipaddress
import os
import socket
import sys
from dataclasses import dataclass
from pathlib import Path

from scorer import HandFootError

#: the folder under the data folder that holds the certificates and keys
FOLDER = "https"
CA_NAME = "handfoot-ca.pem"
CA_KEY = "handfoot-ca-key.pem"
CERT_NAME = "server.pem"
KEY_NAME = "server-key.pem"
#: days a server certificate is valid (phones refuse more than 825 days)
SERVER_DAYS = 800
CA_DAYS = 3650


@dataclass(frozen=True)
class Certificate:
    """The server certificate in use: its files, the names and addresses it is for, its SHA-256 fingerprint
    (hex pairs, as a browser's certificate viewer shows it), its public key's SHA-256 (base64, what Chromium's
    ``--ignore-certificate-errors-spki-list`` takes) and the authority's certificate file and fingerprint."""

    cert: Path
    key: Path
    hosts: tuple[str, ...]
    fingerprint: str
    spki: str
    ca: Path
    ca_fingerprint: str
    made: bool  #: made now (False: the one kept from before)


def local_hosts(host: str = "0.0.0.0") -> list[str]:
    """The names and addresses a phone may open this computer by: ``localhost``, 127.0.0.1, the host name (and
    ``NAME.local``), and this computer's network addresses (all of them for ``0.0.0.0``, else ``host``)."""
    from .startup import addresses  # circular: startup imports this module

    names = ["localhost", "127.0.0.1"]
    name = socket.gethostname()
    if name:
        names += [name, f"{name}.local"] if "." not in name else [name]
    if host not in ("0.0.0.0", "::", ""):
        names.append(host)
    else:
        names += [u.split("://", 1)[1].rsplit(":", 1)[0].strip("[]") for u in addresses(host, 0) if "<" not in u]
    return list(dict.fromkeys(names))


def _fingerprint(cert) -> str:
    from cryptography.hazmat.primitives import hashes  # heavy: HTTPS alone needs it

    return ":".join(f"{b:02X}" for b in cert.fingerprint(hashes.SHA256()))


def _spki(cert) -> str:
    from cryptography.hazmat.primitives import serialization  # heavy: HTTPS alone needs it

    der = cert.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    return base64.b64encode(hashlib.sha256(der).digest()).decode()


def _write_private(path: Path, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(data)


def _san(hosts: list[str]):
    from cryptography import x509  # heavy: HTTPS alone needs it

    names = []
    for h in hosts:
        try:
            names.append(x509.IPAddress(ipaddress.ip_address(h)))
        except ValueError:
            names.append(x509.DNSName(h))
    return x509.SubjectAlternativeName(names)


def _load(path: Path):
    from cryptography import x509  # heavy: HTTPS alone needs it

    return x509.load_pem_x509_certificate(path.read_bytes())


def _hosts_of(cert) -> set[str]:
    from cryptography import x509  # heavy: HTTPS alone needs it

    try:
        san = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except x509.ExtensionNotFound:
        return set()
    return {str(v) for v in san.get_values_for_type(x509.IPAddress)} | set(san.get_values_for_type(x509.DNSName))


def certificate(data: Path, hosts: list[str]) -> Certificate:
    """The server certificate for ``hosts`` kept in ``data``/https (see the module docstring): the one made before
    when it still covers every host and is valid for 30 more days, else a new one signed by the same authority.

    Raises:
        HandFootError: the folder cannot be written, or a kept file cannot be read as a certificate.
    """
    from cryptography import x509  # heavy: HTTPS alone needs it
    from cryptography.hazmat.primitives import hashes, serialization  # heavy: HTTPS alone needs it
    from cryptography.hazmat.primitives.asymmetric import ec  # heavy: HTTPS alone needs it
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID  # heavy: HTTPS alone needs it

    folder = data / FOLDER
    paths = {k: folder / n for k, n in (("ca", CA_NAME), ("ca_key", CA_KEY), ("cert", CERT_NAME), ("key", KEY_NAME))}
    now = dt.datetime.now(dt.timezone.utc)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        if paths["ca"].is_file() and paths["ca_key"].is_file():
            ca = _load(paths["ca"])
            ca_key = serialization.load_pem_private_key(paths["ca_key"].read_bytes(), None)
        else:
            ca_key = ec.generate_private_key(ec.SECP256R1())
            name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, f"handfoot on {socket.gethostname() or 'this computer'}"),
                              x509.NameAttribute(NameOID.ORGANIZATION_NAME, "handfoot")])
            ca = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(ca_key.public_key())
                  .serial_number(x509.random_serial_number()).not_valid_before(now - dt.timedelta(days=1))
                  .not_valid_after(now + dt.timedelta(days=CA_DAYS))
                  .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
                  .add_extension(x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True)
                  .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
                  .sign(ca_key, hashes.SHA256()))
            _write_private(paths["ca_key"], ca_key.private_bytes(serialization.Encoding.PEM,
                                                                 serialization.PrivateFormat.PKCS8,
                                                                 serialization.NoEncryption()))
            paths["ca"].write_bytes(ca.public_bytes(serialization.Encoding.PEM))
            paths["cert"].unlink(missing_ok=True)  # a new authority: a new server certificate too
        if paths["cert"].is_file() and paths["key"].is_file():
            cert = _load(paths["cert"])
            hosts = list(dict.fromkeys([*hosts, *sorted(_hosts_of(cert))]))  # the old addresses kept too
            if set(hosts) <= _hosts_of(cert) and cert.not_valid_after_utc > now + dt.timedelta(days=30) \
                    and cert.issuer == ca.subject:
                return Certificate(paths["cert"], paths["key"], tuple(sorted(_hosts_of(cert))), _fingerprint(cert),
                                   _spki(cert), paths["ca"], _fingerprint(ca), False)
        key = ec.generate_private_key(ec.SECP256R1())
        cert = (x509.CertificateBuilder()
                .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, hosts[0] if hosts else "handfoot")]))
                .issuer_name(ca.subject).public_key(key.public_key()).serial_number(x509.random_serial_number())
                .not_valid_before(now - dt.timedelta(days=1)).not_valid_after(now + dt.timedelta(days=SERVER_DAYS))
                .add_extension(_san(hosts), critical=False)
                .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
                .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
                .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
                .sign(ca_key, hashes.SHA256()))
        _write_private(paths["key"], key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                       serialization.NoEncryption()))
        paths["cert"].write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    except OSError as exc:
        raise HandFootError(f"cannot keep the HTTPS certificate in {folder}: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise HandFootError(f"{folder}: a kept certificate or key cannot be read ({exc}); delete the folder to "
                            "make new ones") from None
    return Certificate(paths["cert"], paths["key"], tuple(sorted(_hosts_of(cert))), _fingerprint(cert), _spki(cert),
                       paths["ca"], _fingerprint(ca), True)


def use_https(host: str, asked: bool | None) -> bool:
    """Whether ``serve`` speaks HTTPS: as asked (``--https`` / ``--no-https``), else on a network address (a
    phone's camera needs it) and not on this computer only."""
    from .service import LOOPBACK  # circular: service imports this module (through pwa)

    return asked if asked is not None else host not in LOOPBACK


def add_https_option(parser) -> None:
    """``--https`` / ``--no-https`` on a command that serves (``serve``, ``watch --serve``)."""
    parser.add_argument("--https", action=argparse.BooleanOptionalAction, default=None,
                        help="serve HTTPS with a certificate made once for this computer and kept in the data "
                             "folder (a phone's browser gives its camera to a secure page only); the default with "
                             "a network --host such as 0.0.0.0, --no-https to serve plain HTTP")


def serve_https(args, data: Path) -> dict[str, str]:
    """uvicorn's ``ssl_certfile`` and ``ssl_keyfile`` for ``args`` (``--host``, ``--https``), the certificate kept in
    ``data`` (:func:`certificate`), its fingerprint printed; ``{}`` for plain HTTP.

    Raises:
        HandFootError: as :func:`certificate`; the ``cryptography`` library is missing.
    """
    if not use_https(args.host, getattr(args, "https", None)):
        return {}
    try:
        import cryptography  # noqa: F401
    except ImportError:
        raise HandFootError("--https needs the cryptography library (pip install -e .), or serve with --no-https") \
            from None
    cert = certificate(data, local_hosts(args.host))
    print(f"handfoot: HTTPS certificate {cert.cert} ({'made now' if cert.made else 'the one kept'}, for "
          f"{', '.join(cert.hosts)})", file=sys.stderr)
    print(f"handfoot: its SHA-256 fingerprint {cert.fingerprint}", file=sys.stderr)
    print("handfoot: a phone warns once that the certificate is not trusted: accept it (README: A phone's camera "
          "needs HTTPS); the address starts with https://", file=sys.stderr)
    return {"ssl_certfile": str(cert.cert), "ssl_keyfile": str(cert.key)}
