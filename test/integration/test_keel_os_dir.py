"""A read-only Keel builds services (issue 21): `keel build --os-dir DIR` puts the OS build in
DIR instead of build/os of the checkout. The checkout is bind-mounted read-only onto itself in
a private mount namespace (root only), leaving only DIR writable; examples/hello, copied out,
builds and boots from there. The first build, which compiles the whole OS, shows its progress
and the compiler's warnings, and not CMake's chatter (issue 21's first hour).

DIR is build/os-readonly-test, beside build/os at the same depth, so a compiler cache whose
base_dir holds the checkout finds the objects of the usual OS build (same relative paths):
under `keel test` (ccache) the test takes about 15 s, without a compiler cache minutes."""
import os
import re
import shutil
import subprocess

import pytest

from conftest import ROOT

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="needs root for a mount namespace")

OS_DIR = os.path.join(ROOT, "build", "os-readonly-test")
KEEL = os.path.join(ROOT, "tools", "keel")


def test_a_read_only_keel_builds_and_boots_a_service_with_os_dir(tmp_path):
    service = tmp_path / "hello"
    shutil.copytree(os.path.join(ROOT, "examples", "hello"), service,
                    ignore=shutil.ignore_patterns("build"))
    with open(service / "service.cpp", "a") as f:
        f.write('\n#warning "the build shows this warning"\n')
    shutil.rmtree(OS_DIR, ignore_errors=True)
    os.makedirs(OS_DIR)
    # OS_DIR becomes a mount of its own first, so the read-only remount of the checkout (the
    # top mount only) leaves it writable.
    script = f"""set -e
mount --bind {OS_DIR} {OS_DIR}
mount --rbind {ROOT} {ROOT}
mount -o remount,bind,ro {ROOT}
if touch {ROOT}/.write-probe 2>/dev/null; then echo "the checkout is writable"; exit 3; fi
{KEEL} build {service} --os-dir {OS_DIR}
exec {KEEL} boot {service}/build/kvm/hello --timeout 120
"""
    try:
        result = subprocess.run(["unshare", "--mount", "--propagation", "private", "bash", "-c",
                                 script], capture_output=True, text=True, timeout=1500)
        out = result.stdout + result.stderr
        assert result.returncode == 0, out
        assert "Hello from Keel on kvm" in out and "Goodbye" in out, out
        assert "Keel: configuring the OS" in out, out
        assert re.search(r"^keel: building \d+/\d+$", out, re.M), out  # no terminal: a line a tenth
        assert "warning: #warning \"the build shows this warning\"" in out, out
        assert "The C compiler identification" not in out, out
        assert os.path.isfile(os.path.join(OS_DIR, "kvm-RelWithDebInfo", "libkeel_kernel.a"))
        # The service's build folder is its own; nothing was built into the checkout.
        assert (service / "build" / "kvm" / "hello").is_file()
        assert not os.path.exists(os.path.join(ROOT, ".write-probe"))
    finally:
        shutil.rmtree(OS_DIR, ignore_errors=True)
