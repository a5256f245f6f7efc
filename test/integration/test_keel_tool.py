"""The keel command's errors are clear and its statuses honest."""
import os
import subprocess

from conftest import KEEL, ROOT, SERVICES, image


def keel(*args, env=None):
    return subprocess.run([KEEL, *args], capture_output=True, text=True, timeout=300, env=env)


def test_boot_maps_the_exit_status_back():
    result = keel("boot", image("timers"), "--accel", "tcg", "--timeout", "60")
    assert result.returncode == 7, result.stdout + result.stderr


def test_missing_image():
    result = keel("boot", "/nonexistent/image")
    assert result.returncode == 2
    assert "image not found: /nonexistent/image" in result.stderr


def test_not_an_elf_image(tmp_path):
    bogus = tmp_path / "bogus"
    bogus.write_text("not an image")
    result = keel("boot", str(bogus))
    assert result.returncode == 2
    assert "is not an ELF file" in result.stderr


def test_an_elf_that_is_not_a_keel_image():
    result = keel("boot", "/bin/true")
    assert result.returncode == 2
    assert "has no PVH entry note" in result.stderr


def test_build_error_is_reported():
    result = keel("build", os.path.join(SERVICES, "build_error"))
    assert result.returncode == 2
    assert "this_is_not_declared" in result.stdout  # the compiler's own message
    assert "failed" in result.stderr


def test_directory_without_a_service():
    result = keel("build", ROOT + "/docs")
    assert result.returncode == 2
    assert "has no CMakeLists.txt" in result.stderr


def test_qemu_failure_is_not_success():
    # QEMU itself exits with 1 on a bad option; that must not read as code 0.
    result = keel("boot", image("hello"), "--memory", "bogus", "--timeout", "60")
    assert result.returncode == 254, result.stdout + result.stderr
    assert "QEMU failed" in result.stdout


def test_qemu_missing(tmp_path):
    env = dict(os.environ, PATH=str(tmp_path))  # no qemu on this PATH
    result = keel("boot", image("hello"), env=env)
    assert result.returncode == 2
    assert "qemu-system-x86_64 not found" in result.stderr


def test_says_which_accelerator_and_why():
    result = keel("boot", image("hello"), "--timeout", "60")
    assert result.returncode == 0
    from keelpy import accel
    problem = accel.kvm_problem()
    if problem:
        assert f"using TCG (software emulation): {problem}" in result.stdout
    else:
        assert "using TCG" not in result.stdout
    assert "Goodbye" in result.stdout
