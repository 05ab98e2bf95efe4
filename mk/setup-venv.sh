#!/bin/bash
# Create .venv on Debian's python3 (so Debian's mininet is importable), install the
# pinned requirements and the project's Python packages (editable).
set -euo pipefail
export PYTHONWARNINGS=ignore
cd "$(dirname "$0")/.."
venv=.venv
if [[ ! -x $venv/bin/python ]]; then
    echo "setup: creating $venv"
    /usr/bin/python3 -m venv "$venv"
fi
site=$($venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
# Debian's dist-packages come last on sys.path: mininet from there, pinned packages win.
echo /usr/lib/python3/dist-packages > "$site/zz-debian-dist-packages.pth"
install -m 644 mk/venv-protobuf.pth "$site/venv-protobuf.pth"
$venv/bin/pip install -q --disable-pip-version-check -r requirements.txt
for pkg in compiler controller conformance switch/cli; do
    if [[ -f $pkg/pyproject.toml ]]; then
        $venv/bin/pip install -q --disable-pip-version-check --no-deps --no-build-isolation -e "$pkg"
    fi
done
$venv/bin/python -c 'import p4.v1.p4runtime_pb2, mininet.net, scapy.all, ptf' \
    || { echo "setup: .venv is missing a package" >&2; exit 1; }
echo "setup: Python packages installed in $venv"
