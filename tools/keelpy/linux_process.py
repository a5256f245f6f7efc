"""`keel boot --platform linux`: the service built as a Linux process, started with what the
image would get. Its command line is the image's (os::args()); each --tap becomes tapN=NAME,
which the linux platform opens as NIC N (src/platform/linux/tap.cpp)."""
import os

from . import process
from .paths import KeelError

# Options of `keel boot` that only mean something to a VM.
VM_ONLY = {"machine": "--machine", "memory": "--memory", "cpus": "--cpus", "accel": "--accel",
           "no_rng": "--no-rng"}


def refuse_vm_options(args):
    """A VM option given with --platform linux is an error, not silently dropped."""
    given = [flag for name, flag in VM_ONLY.items() if getattr(args, name) is not None]
    if given:
        raise KeelError(f"{', '.join(given)}: not for --platform linux (a Linux process has "
                        "no machine type, memory size, CPU count or accelerator of its own)")


def arguments(append="", taps=()):
    """The process's arguments. Its main() joins them with spaces into the command line and
    splits that as the image does (src/platform/linux/main.cpp, src/kernel/cmdline.cpp), so
    --append goes as one argument: os::cmdline() and os::args() come out as in the image,
    quotes and all. Then tap0=NAME, tap1=NAME, ... (names hold no spaces)."""
    words = [append] if append else []
    return words + [f"tap{i}={tap}" for i, tap in enumerate(taps)]


def boot(program, append="", taps=(), timeout=None):
    """Runs the service's Linux build in the foreground; returns its exit status (or
    process.TIMED_OUT etc. when keel had to stop it)."""
    if not os.access(program, os.X_OK):
        raise KeelError(f"{program} is not an executable (build it with "
                        "`keel build DIR --platform linux`)")
    outcome = process.run([program, *arguments(append, taps)], timeout, on_timeout=lambda: print(
        f"keel: the process did not exit within {timeout} s; stopped it", flush=True))
    if outcome.stopped is not None:
        return outcome.stopped
    # A process killed by a signal (a crash not caught by the platform): as a shell says it.
    return outcome.status if outcome.status >= 0 else 128 - outcome.status
