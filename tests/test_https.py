"""handfoot.https: the certificate made once and kept, a new address covered by the same authority, the chain a
TLS client verifies, and one-line errors for a folder that cannot be written or a kept file that is not a
certificate."""

from __future__ import annotations

import ssl
from pathlib import Path

import pytest

pytest.importorskip("cryptography")


def test_made_once_kept_and_grown_with_a_new_address(tmp_path: Path):
    from handfoot.https import certificate

    first = certificate(tmp_path, ["localhost", "127.0.0.1", "192.168.1.20"])
    again = certificate(tmp_path, ["localhost", "127.0.0.1", "192.168.1.20"])
    assert first.made and not again.made
    assert (again.fingerprint, again.spki) == (first.fingerprint, first.spki)
    assert len(first.fingerprint.split(":")) == 32
    assert (tmp_path / "https" / "server-key.pem").stat().st_mode & 0o077 == 0  # the keys: their owner only
    assert (tmp_path / "https" / "handfoot-ca-key.pem").stat().st_mode & 0o077 == 0
    moved = certificate(tmp_path, ["localhost", "127.0.0.1", "10.0.0.7"])  # the Wi-Fi gave another address
    assert moved.made and moved.fingerprint != first.fingerprint and moved.ca_fingerprint == first.ca_fingerprint
    assert {"10.0.0.7", "192.168.1.20", "127.0.0.1", "localhost"} <= set(moved.hosts)  # the old one kept too
    context = ssl.create_default_context(cafile=str(moved.ca))
    context.load_cert_chain(moved.cert, moved.key)  # the key matches the certificate


def test_a_tls_client_trusting_the_authority_accepts_the_server(tmp_path: Path):
    import socket
    import threading

    from handfoot.https import certificate

    cert = certificate(tmp_path, ["localhost", "127.0.0.1"])
    server_ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_ctx.load_cert_chain(cert.cert, cert.key)
    with socket.create_server(("127.0.0.1", 0)) as listener:
        port = listener.getsockname()[1]

        def serve():
            conn, _ = listener.accept()
            with server_ctx.wrap_socket(conn, server_side=True) as tls:
                tls.sendall(b"ok")
        thread = threading.Thread(target=serve, daemon=True)
        thread.start()
        client_ctx = ssl.create_default_context(cafile=str(cert.ca))
        with socket.create_connection(("127.0.0.1", port)) as raw, \
                client_ctx.wrap_socket(raw, server_hostname="127.0.0.1") as tls:
            assert tls.recv(2) == b"ok"
        thread.join(5)


def test_errors_in_one_line(tmp_path: Path):
    from handfoot.https import certificate, use_https
    from scorer import HandFootError

    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(HandFootError, match="cannot keep the HTTPS certificate"):
        certificate(blocker, ["localhost"])
    certificate(tmp_path, ["localhost"])
    (tmp_path / "https" / "server.pem").write_text("garbage")
    with pytest.raises(HandFootError, match="cannot be read.*delete the folder"):
        certificate(tmp_path, ["localhost"])
    assert use_https("0.0.0.0", None) and not use_https("127.0.0.1", None)
    assert not use_https("0.0.0.0", False) and use_https("127.0.0.1", True)
