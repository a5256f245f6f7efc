"""`keel package --format container`: the service's Linux-process build (`keel build DIR
--platform linux`) as an OCI container image, for podman or docker: the counterpart that
the density benchmark sets beside the image (docs/deploy.md, decision 0118).

The layer holds the program at /keel/NAME with the shared libraries `ldd` names, nothing
else. Entrypoint is the program; Cmd is what `keel boot --platform linux` would pass:
--append, then tap0=TAP. The process opens that TAP device itself (src/platform/linux/
tap.cpp), so the container needs /dev/net/tun, CAP_NET_ADMIN and a network namespace that
holds the TAP (or where it may create one): run_args() says how."""
import os
import re
import resource
import shutil
import subprocess

from . import linux_process, oci
from .image import check_image
from .paths import KeelError

PROGRAM_DIR = "/keel"
OWNER = 0  # root: the service must open /dev/net/tun with CAP_NET_ADMIN
PROGRAM_MODE = LIBRARY_MODE = 0o555  # the ELF interpreter must be executable too
PODMAN_NPROC = 32768


def check_program(program):
    """Refuses what is not the Linux-process build (a Keel image has a PVH note, no ELF
    interpreter and no main(); it cannot run in a container)."""
    if not os.path.isfile(program) or not os.access(program, os.X_OK):
        raise KeelError(f"{program} is not an executable: --format container takes the "
                        "Linux-process build (`keel build DIR --platform linux`) or a DIR")
    with open(program, "rb") as f:
        if f.read(4) != b"\x7fELF":
            raise KeelError(f"{program} is not an ELF program")
    try:
        check_image(program)
    except KeelError:
        return  # not an image: a program
    raise KeelError(f"{program} is a Keel image, which boots in a VM: --format container "
                    "takes the Linux-process build (`keel build DIR --platform linux`)")


def libraries(program):
    """Absolute paths of the shared objects the program loads, the interpreter included."""
    out = subprocess.run(["ldd", program], capture_output=True, text=True).stdout
    if "not a dynamic executable" in out or "statically linked" in out:
        return []
    return sorted(set(re.findall(r"(/\S+) \(0x", out)))


def image_files(program, name):
    files = [(f"{PROGRAM_DIR}/{name}", read(program), PROGRAM_MODE)]
    for path in libraries(program):
        files.append((path, read(os.path.realpath(path)), LIBRARY_MODE))
    return files


def read(path):
    with open(path, "rb") as f:
        return f.read()


def write(program, output, name, append, tap):
    check_program(program)
    notes = {"org.opencontainers.image.title": name,
             "org.opencontainers.image.description":
                 f"the Keel service {name} built as a Linux process; it opens the TAP "
                 f"device {tap} in the container's network namespace",
             "dev.keel.platform": "linux", "dev.keel.cmdline": append, "dev.keel.tap": tap}
    config = {"Entrypoint": [f"{PROGRAM_DIR}/{name}"],
              "Cmd": linux_process.arguments(append, [tap]), "Labels": notes}
    return oci.write_layout(output, oci.tar_of(image_files(program, name), OWNER), config,
                            notes, "keel package --format container",
                            f"the Linux-process build at {PROGRAM_DIR}/{name}")


def podman(*args):
    """podman with runc (crun 1.8 refuses hosts with cgroup v1 and v2 controllers mixed)
    and this process's own hard limits for open files and processes (podman's defaults
    exceed them where CAP_SYS_RESOURCE is missing, and the runtime then fails)."""
    if shutil.which("podman") is None:
        raise KeelError("podman not found: install it with `tools/keel setup --tests`")
    runtime = ["--runtime", "runc"] if shutil.which("runc") else []
    return ["podman", *runtime, *args]


def ulimit_args():
    """Open files: this process's hard limit. Processes: podman's own default, 32768, or the
    hard limit if lower (runc was refused 65536 under a hard limit of 96365 here)."""
    files = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    hard = resource.getrlimit(resource.RLIMIT_NPROC)[1]
    procs = PODMAN_NPROC if hard == resource.RLIM_INFINITY else min(hard, PODMAN_NPROC)
    limit = lambda n: "unlimited" if n == resource.RLIM_INFINITY else str(n)  # noqa: E731
    return ["--ulimit", f"nofile={limit(files)}:{limit(files)}",
            "--ulimit", f"nproc={limit(procs)}:{limit(procs)}"]


def run_args(image, name, netns, append, tap, memory_mib=None):
    """`podman run -d` of `image` (a reference podman knows, or oci:LAYOUT) as container
    `name` in the network namespace at path `netns`, opening TAP `tap` there; with
    `memory_mib`, limited to that (the service sizes its tables to the limit, as to a VM's
    memory)."""
    memory = ["--memory", f"{memory_mib}m"] if memory_mib else []
    return podman("run", "-d", "--name", name, "--network", f"ns:{netns}",
                  "--device", "/dev/net/tun", "--cap-add", "NET_ADMIN", *ulimit_args(),
                  *memory, image, *linux_process.arguments(append, [tap]))
