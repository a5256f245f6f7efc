"""Builds a service directory with CMake into an image (or a Linux program)."""
import os
import re
import shutil
import subprocess

from . import build_output
from .paths import CMAKE_DIR, ROOT, KeelError

PLATFORMS = ("kvm", "linux")


def os_build_root():
    """Where the OS is built (one folder per platform and build type): KEEL_OS_DIR from the
    environment (`keel build --os-dir` sets it), else build/os in this Keel."""
    return os.path.abspath(os.environ.get("KEEL_OS_DIR") or os.path.join(ROOT, "build", "os"))


def build_dir_for(service_dir, platform):
    return os.path.join(os.path.abspath(service_dir), "build", platform)


def target_name(service_dir):
    """The first keel_service(NAME ...) in the service's CMakeLists.txt."""
    cmakelists = os.path.join(service_dir, "CMakeLists.txt")
    if not os.path.isfile(cmakelists):
        raise KeelError(f"{service_dir} has no CMakeLists.txt: a service directory needs one "
                        "that calls keel_service(NAME sources...) (see examples/hello)")
    with open(cmakelists) as f:
        match = re.search(r"keel_service\s*\(\s*([\w.-]+)", f.read())
    if not match:
        raise KeelError(f"{cmakelists} does not call keel_service(NAME sources...)")
    return match.group(1)


def build(service_dir, platform="kvm", quiet=False, out=None, defines=()):
    """Configures and builds; returns the path of the image or executable. `out`: a build
    folder other than the service's own; `defines`: -D settings for it (a DNS image's zones)."""
    if platform not in PLATFORMS:
        raise KeelError(f"unknown platform '{platform}' (choose from {', '.join(PLATFORMS)})")
    for tool in ("cmake", "ninja", "g++"):
        if shutil.which(tool) is None:
            raise KeelError(f"{tool} not found: install the build tools with `tools/keel setup`")
    name = target_name(service_dir)
    out = out or build_dir_for(service_dir, platform)
    configure = ["cmake", "-S", service_dir, "-B", out, "-G", "Ninja", f"-Dkeel_DIR={CMAKE_DIR}",
                 f"-DKEEL_PLATFORM={platform}", f"-DKEEL_OS_BUILD_ROOT={os_build_root()}",
                 *(f"-D{d}" for d in defines)]
    if os.environ.get("KEEL_WERROR") == "1":  # CI: warnings fail the OS and service builds
        configure.append("-DKEEL_WERROR=ON")
    for step in (configure, ["cmake", "--build", out]):
        if quiet:  # tests and benchmarks: the output only when the step fails
            result = subprocess.run(step, capture_output=True, text=True)
            if result.returncode != 0:
                print(result.stdout[-20000:] + result.stderr[-20000:], end="")
            status = result.returncode
        else:
            status = build_output.run(step)
        if status != 0:
            raise KeelError(f"building {service_dir} for {platform} failed (see above)")
    target = os.path.join(out, name)
    if not quiet:
        print(f"keel: built {target}", flush=True)
    return target
