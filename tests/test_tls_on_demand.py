"""Issue #24 (bench run RSS): the command line lets asyncio's ssl and sslproto wait for their first use
(homefabric_cli.tls_on_demand). Checked in fresh processes started as the console script starts (pytest itself
has imported asyncio, so in this process the deferral rightly does nothing): asyncio imports without running
ssl, and a real TLS connection through asyncio (a server and a client on loopback, a certificate made here)
works and leaves ordinary modules behind."""

from __future__ import annotations

import datetime
import json
import subprocess
import sys
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from homefabric_cli.tls_on_demand import defer_tls

ROOT = Path(__file__).resolve().parents[1]

ECHO_OVER_TLS = r"""
import homefabric_cli  # as the console script starts: before anything imports asyncio
import asyncio, json, sys, types
from homefabric_cli.tls_on_demand import has_run

seen = {"imported": [has_run("ssl"), has_run("asyncio.sslproto")]}
certificate, key = sys.argv[1:3]


async def echo_over_tls() -> bytes:
    import ssl

    seen["import ssl ran it"] = has_run("ssl")  # an import statement is not a use
    server_context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_context.load_cert_chain(certificate, key)
    client_context = ssl.create_default_context(cafile=certificate)

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(b"echo " + await reader.readline())
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(answer, "127.0.0.1", 0, ssl=server_context)
    port = server.sockets[0].getsockname()[1]
    reader, writer = await asyncio.open_connection("127.0.0.1", port, ssl=client_context, server_hostname="localhost")
    seen["cipher"] = writer.get_extra_info("cipher")[1]
    writer.write(b"hello\n")
    await writer.drain()
    reply = await reader.readline()
    writer.close()
    server.close()
    await server.wait_closed()
    return reply


seen["reply"] = asyncio.run(echo_over_tls()).decode()
seen["after"] = [has_run("ssl"), has_run("asyncio.sslproto")]
import ssl
seen["ordinary modules"] = all(
    type(module) is types.ModuleType for module in (sys.modules["ssl"], sys.modules["asyncio.sslproto"])
)
seen["one ssl"] = asyncio.base_events.ssl is ssl is asyncio.sslproto.ssl is sys.modules["ssl"]
print(json.dumps(seen))
"""

SSLPROTO_FIRST = r"""
import homefabric_cli
import asyncio, json
from homefabric_cli.tls_on_demand import has_run

before = [has_run("ssl"), has_run("asyncio.sslproto")]
listed = "SSLProtocol" in dir(asyncio.sslproto)  # dir() is a use: sslproto runs, reads ssl's names, ssl runs inside
after = [has_run("ssl"), has_run("asyncio.sslproto")]
print(json.dumps({"before": before, "listed": listed, "after": after, "name": asyncio.sslproto.SSLProtocol.__name__}))
"""


def _self_signed(directory: Path) -> tuple[Path, Path]:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost")]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    certificate_file, key_file = directory / "cert.pem", directory / "key.pem"
    certificate_file.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return certificate_file, key_file


def _run(script: str, *args: str) -> dict:
    result = subprocess.run(
        [sys.executable, "-c", script, *args], cwd=ROOT, capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stderr == ""
    seen: dict = json.loads(result.stdout)
    return seen


def test_asyncio_imports_without_running_ssl_and_tls_through_asyncio_still_works(tmp_path: Path) -> None:
    certificate, key = _self_signed(tmp_path)
    seen = _run(ECHO_OVER_TLS, str(certificate), str(key))
    assert seen["imported"] == [False, False]
    assert seen["import ssl ran it"] is False
    assert seen["reply"] == "echo hello\n"
    assert seen["cipher"].startswith("TLS")
    assert seen["after"] == [True, True]
    assert seen["ordinary modules"] is True and seen["one ssl"] is True


def test_listing_sslproto_first_runs_it_and_ssl_inside_it() -> None:
    seen = _run(SSLPROTO_FIRST)
    assert seen == {"before": [False, False], "listed": True, "after": [True, True], "name": "SSLProtocol"}


def test_nothing_is_deferred_once_asyncio_is_imported() -> None:
    import asyncio  # noqa: F401  (pytest has it already: what a late import of homefabric_cli sees)

    assert defer_tls() is False
