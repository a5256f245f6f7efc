"""`keel new`: each template writes a service folder that builds, boots and passes its own
test at once, outside the checkout."""
import subprocess
import sys

import pytest

from conftest import image
from test_keel_tool import keel


def test_hello_builds_and_boots(tmp_path):
    image("hello")  # the OS is built by now: the new service compiles only its own file
    service = tmp_path / "greeter"
    result = keel("new", str(service))
    assert result.returncode == 0, result.stdout + result.stderr
    assert sorted(p.name for p in service.iterdir()) == [
        "CMakeLists.txt", "README.md", "service.cpp", "test_service.py"]
    assert "keel_service(greeter service.cpp)" in (service / "CMakeLists.txt").read_text()
    built = keel("build", str(service))
    assert built.returncode == 0, built.stdout + built.stderr
    booted = keel("boot", str(service / "build" / "kvm" / "greeter"), "--timeout", "60")
    assert booted.returncode == 0, booted.stdout + booted.stderr
    assert "greeter: hello from Keel, with 0 argument(s)" in booted.stdout


@pytest.mark.parametrize("template", ["hello", "udp", "tcp"])
def test_the_template_passes_its_own_test(tmp_path, template):
    # udp and tcp: the generated test starts the service with `keel run -p` and talks to it
    # on localhost.
    service = tmp_path / f"my_{template}"
    assert keel("new", str(service), "--template", template).returncode == 0
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                             "test_service.py"], cwd=service, capture_output=True, text=True,
                            timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 passed" in result.stdout


def test_refuses_a_folder_in_use_and_a_bad_name(tmp_path):
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "notes.txt").write_text("mine")
    result = keel("new", str(tmp_path / "taken"))
    assert result.returncode == 2
    assert "exists and is not empty" in result.stderr
    result = keel("new", str(tmp_path / "9lives"))
    assert result.returncode == 2
    assert "'9lives' cannot name a service" in result.stderr


def test_templates_to_come_are_not_offered():
    result = keel("new", "/nonexistent/x", "--template", "dns")
    assert result.returncode == 2
    assert "invalid choice: 'dns' (choose from 'hello', 'udp', 'tcp')" in result.stderr
