"""The keel command's errors are clear and its statuses honest."""
import os
import subprocess

from conftest import KEEL, ROOT, SERVICES, image
from keelpy.image import min_memory_mib


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
    assert "this_is_not_declared" in result.stderr  # the compiler's own message, as it came
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


def test_too_little_memory_is_refused_before_qemu():
    # At 1 MiB QEMU cannot even load the image, so the guest cannot say anything: keel boot
    # reads the image's minimum (linker.ld: __keel_min_ram_mib) and refuses first.
    least = min_memory_mib(image("hello"))
    result = keel("boot", image("hello"), "--memory", "1M", "--timeout", "60")
    assert result.returncode == 2, result.stdout + result.stderr
    assert f"needs at least {least} MiB of RAM: --memory 1M is too little" in result.stderr


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


def test_a_new_service_compiles_only_its_own_files(tmp_path):
    # The OS is built once per platform and build type (build/os/...): a new
    # out-of-tree service reuses it and compiles just its own sources.
    image("hello")  # the OS for kvm is built by now
    service = tmp_path / "fresh"
    service.mkdir()
    (service / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.25)\nproject(fresh CXX)\nfind_package(keel REQUIRED)\n"
        "keel_service(fresh main.cpp util.cpp)\n")
    (service / "main.cpp").write_text(
        "#include <os>\nint twice(int);\nvoid Service::start() { os::shutdown(twice(2)); }\n")
    (service / "util.cpp").write_text("int twice(int x) { return 2 * x; }\n")
    out = service / "build"
    subprocess.run(["cmake", "-S", service, "-B", out, "-G", "Ninja",
                    f"-Dkeel_DIR={ROOT}/cmake"], check=True, capture_output=True, timeout=120)
    build = subprocess.run(["cmake", "--build", out], capture_output=True, text=True, timeout=300)
    assert build.returncode == 0, build.stdout + build.stderr
    compiled = [line for line in build.stdout.splitlines() if "Building CXX object" in line]
    assert len(compiled) == 2, build.stdout
    assert all("main.cpp" in line or "util.cpp" in line for line in compiled), build.stdout
    result = keel("boot", str(out / "fresh"), "--timeout", "60")
    assert result.returncode == 4, result.stdout + result.stderr


def test_a_library_is_linked_by_name_and_only_where_asked():
    # keel_service(... LIBRARIES firewall): lib/firewall's runtime, built once
    # with the OS, linked into this image and no other.
    result = keel("boot", image("library_link"), "--timeout", "60")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "firewall library: load says truncated table blob" in result.stdout
    symbols = subprocess.run(["nm", "-C", image("library_link")], capture_output=True, text=True).stdout
    assert "keel::firewall::Classifier::load" in symbols
    hello = subprocess.run(["nm", "-C", image("hello")], capture_output=True, text=True).stdout
    assert "keel::firewall" not in hello


def test_the_json_reader_is_linked_only_with_embedded_json():
    # About 50 KiB of nlohmann::json: udp_echo takes its settings from the
    # command line and carries none of it (keel_net_config() links it in).
    from netguest import udp_echo_image
    symbols = subprocess.run(["nm", "-C", udp_echo_image()], capture_output=True, text=True).stdout
    assert "net::parse_config_json" not in symbols
    assert "nlohmann" not in symbols
