#!/bin/bash
# Create .venv on Debian's python3 (so Debian's mininet is importable), install the
# pinned requirements, generate the P4Runtime modules with the pinned protoc, and
# install the project's Python packages (editable).
set -euo pipefail
export PYTHONWARNINGS=ignore
cd "$(dirname "$0")/.."
venv=.venv
pip=($venv/bin/pip -q --disable-pip-version-check)
if [[ ! -x $venv/bin/python ]]; then
    echo "setup: creating $venv"
    /usr/bin/python3 -m venv "$venv"
fi
site=$($venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
# Debian's dist-packages come last on sys.path: mininet from there, pinned packages win.
echo /usr/lib/python3/dist-packages > "$site/zz-debian-dist-packages.pth"
# A .venv made before the stubs were generated here: drop the PyPI p4runtime modules
# and the switch to pure-Python protobuf.
rm -f "$site/venv-protobuf.pth"
if $venv/bin/pip show -q p4runtime 2>/dev/null; then "${pip[@]}" uninstall -y p4runtime; fi
"${pip[@]}" install -r requirements.txt
# P4Runtime modules: the schema of the pinned release, compiled by the pinned protoc.
wheels=$(mktemp -d)
trap 'rm -rf "$wheels"' EXIT
"${pip[@]}" download --no-deps --only-binary :all: -d "$wheels" -r mk/p4runtime-schema.txt
rm -rf "$site/p4"
$venv/bin/python mk/p4runtime_stubs.py "$wheels"/p4runtime-*.whl "$site"
for pkg in compiler controller conformance switch/cli; do
    if [[ -f $pkg/pyproject.toml ]]; then
        "${pip[@]}" install --no-deps --no-build-isolation -e "$pkg"
    fi
done
# p4runtime-shell cannot share .venv's pins: its own virtualenv, for interoperability tests.
shell_venv=.venv-p4runtime-shell
[[ -x $shell_venv/bin/python ]] || /usr/bin/python3 -m venv "$shell_venv"
$shell_venv/bin/pip install -q --disable-pip-version-check -r mk/requirements-p4runtime-shell.txt
$shell_venv/bin/python -c 'import p4runtime_sh.shell' \
    || { echo "setup: $shell_venv cannot import p4runtime-shell" >&2; exit 1; }
$venv/bin/python -c 'import p4.v1.p4runtime_pb2, mininet.net, scapy.all, ptf' \
    || { echo "setup: .venv is missing a package" >&2; exit 1; }
[[ $($venv/bin/python -c 'from google.protobuf.internal import api_implementation as a; print(a.Type())') == upb ]] \
    || { echo "setup: protobuf is not running its upb backend" >&2; exit 1; }
echo "setup: Python packages installed in $venv"
