"""Builds @NAME@, boots it and checks what it prints and its exit status."""
import os
import subprocess

KEEL = os.environ.get("KEEL", "@KEEL@")
HERE = os.path.dirname(os.path.abspath(__file__))


def test_boots_and_says_hello():
    result = subprocess.run([KEEL, "boot", HERE, "--timeout", "120"], capture_output=True,
                            text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "@NAME@: hello from Keel" in result.stdout
