"""P4Runtime over TLS with client certificates, end to end: p4switch requiring client certificates,
vrouter and p4rt with a certificate from the switch's CA, p4runtime-shell (its own virtualenv,
.venv-p4runtime-shell) likewise; clients without a valid certificate are refused."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from netns import ROOT, SwitchProc, vrouter
from p4rt import P4RuntimeError, Switch, TableEntry, tls_credentials

pytestmark = pytest.mark.integration

SHELL_PYTHON = ROOT / ".venv-p4runtime-shell" / "bin" / "python"

SHELL_READ = """
import sys
import p4runtime_sh.shell as sh
from p4runtime_sh.p4runtime import SSLOptions
addr, ca, cert, key = sys.argv[1:5]
sh.setup(device_id=0, grpc_addr=addr, election_id=(0, 5),
         ssl_options=SSLOptions(False, ca, cert if cert != "-" else None, key if key != "-" else None))
print(sum(1 for _ in sh.TableEntry("ingress.routing.router_address").read()))
sh.teardown()
"""

DESCRIPTION = """
pipeline: {{p4info: {p4info}, config: {json}}}
switches:
  s1:
    address: {address}
    tls: {{ca: ca.pem, cert: {cert}.pem, key: {cert}.key, server_name: p4switch.test}}
    vlans:
      10: {{interface: {{address: 10.0.10.1/24, mac: "00:00:5e:00:01:0a"}}}}
      20: {{interface: {{address: 10.0.20.1/24, mac: "00:00:5e:00:01:14"}}}}
"""


def openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


def make_pki(d: Path) -> None:
    """ca.pem signs server.pem (for 127.0.0.1 and p4switch.test) and client.pem; rogue-ca.pem signs rogue.pem."""
    # X.509 v3 with the usual extensions: rustls (p4switch) refuses v1 certificates.
    (d / "server.cnf").write_text("subjectAltName=IP:127.0.0.1,DNS:p4switch.test\nbasicConstraints=CA:FALSE\n"
                                  "extendedKeyUsage=serverAuth\n")
    (d / "client.cnf").write_text("basicConstraints=CA:FALSE\nextendedKeyUsage=clientAuth\n")
    for ca in ("ca", "rogue-ca"):
        openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", f"/CN={ca}",
                "-keyout", f"{ca}.key", "-out", f"{ca}.pem", cwd=d)
    for name, ca, ext in (("server", "ca", "server.cnf"), ("client", "ca", "client.cnf"),
                          ("rogue", "rogue-ca", "client.cnf")):
        openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", f"/CN={name}", "-keyout", f"{name}.key",
                "-out", f"{name}.csr", cwd=d)
        openssl("x509", "-req", "-in", f"{name}.csr", "-CA", f"{ca}.pem", "-CAkey", f"{ca}.key", "-CAcreateserial",
                "-days", "2", "-out", f"{name}.pem", "-extfile", ext, cwd=d)


@pytest.fixture
def pki_switch(tmp_path):
    make_pki(tmp_path)
    tls = ["--grpc-server-ssl", "--grpc-server-cert", str(tmp_path / "server.pem"), "--grpc-server-key",
           str(tmp_path / "server.key"), "--grpc-server-cacert", str(tmp_path / "ca.pem"),
           "--grpc-server-with-client-auth"]
    switch = SwitchProc({}, tmp_path / "switch.log", extra=tls).start()
    try:
        yield switch, tmp_path
    finally:
        switch.kill()


def shell_read(address: str, d: Path, cert: str | None) -> subprocess.CompletedProcess:
    files = [str(d / f"{cert}.pem"), str(d / f"{cert}.key")] if cert else ["-", "-"]
    return subprocess.run([str(SHELL_PYTHON), "-c", SHELL_READ, address, str(d / "ca.pem"), *files],
                          capture_output=True, text=True, timeout=60)


def test_tls_with_client_certificates_end_to_end(pki_switch, vrouter_program) -> None:
    switch, d = pki_switch
    path = d / "tls.yaml"
    path.write_text(DESCRIPTION.format(p4info=vrouter_program.p4info, json=vrouter_program.json,
                                       address=switch.address, cert="client"))
    # The controller with its certificate: installs the program and writes.
    applied = vrouter("apply", str(path))
    assert applied.returncode == 0 and "pipeline installed" in applied.stdout, applied.stdout + applied.stderr
    assert vrouter("diff", str(path)).stdout.strip() == "s1: in sync, nothing to write"
    # p4rt with the same certificate reads what the controller wrote (by the certificate's IP address).
    creds = tls_credentials(d / "ca.pem", d / "client.pem", d / "client.key")
    with Switch(switch.address, election_id=2, credentials=creds) as sw:
        sw.load_schema()
        assert len(list(sw.read(TableEntry("ingress.routing.router_address")))) == 2
    # p4runtime-shell (its own virtualenv and pins) with the client certificate: the same two entries.
    if not SHELL_PYTHON.exists():
        pytest.fail(f"{SHELL_PYTHON} missing: run make setup")
    done = shell_read(switch.address, d, "client")
    assert done.returncode == 0 and done.stdout.strip() == "2", done.stdout + done.stderr[-2000:]


def test_clients_without_a_valid_certificate_are_refused(pki_switch, vrouter_program) -> None:
    switch, d = pki_switch
    for creds in (None,                                                         # plaintext
                  tls_credentials(d / "ca.pem"),                                # no client certificate
                  tls_credentials(d / "ca.pem", d / "rogue.pem", d / "rogue.key")):   # another CA's
        with pytest.raises(P4RuntimeError, match="UNAVAILABLE"):
            Switch(switch.address, election_id=3, credentials=creds, server_name="p4switch.test").connect(timeout=1)
    path = d / "rogue.yaml"
    path.write_text(DESCRIPTION.format(p4info=vrouter_program.p4info, json=vrouter_program.json,
                                       address=switch.address, cert="rogue"))
    refused = vrouter("apply", str(path))
    assert refused.returncode == 1 and refused.stderr.startswith("vrouter: ") and "UNAVAILABLE" in refused.stderr
    shell = shell_read(switch.address, d, None)
    assert shell.returncode != 0, shell.stdout
