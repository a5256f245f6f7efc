"""`keel debug`: gdb on a service, in QEMU through its gdb stub (kvm) or as a Linux process.

The image keel builds is the unstripped ELF (RelWithDebInfo: symbols and DWARF); QEMU's
-kernel loads only its PT_LOAD segments, so gdb reads the very file QEMU boots. QEMU starts
halted (-S) with its stub on a free loopback port; gdb connects, sets the breakpoints and
continues. Under TCG, QEMU keeps breakpoints itself (no int3 written to guest memory), so a
plain `break` works in every mode, even on the 32-bit PVH entry before long mode."""
import glob
import os
import shutil
import signal
import socket
import subprocess
import time

from . import accel as accelerators, build, linux_process, process, qemu
from .image import check_image
from .paths import KeelError

DEFAULT_BREAK = "Service::start"
# How long QEMU may take to open its stub (gdb's `target remote` waits as long).
CONNECT_TIMEOUT_SECONDS = 30
TCP_LISTEN = "0A"  # the state column of /proc/net/tcp


def free_port():
    """A loopback TCP port no one listens on now (the kernel picks it for port 0)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def listening(port):
    """Whether a socket listens on 127.0.0.1:port, read from /proc/net/tcp: a probe connection
    would take the stub's one client slot."""
    with open("/proc/net/tcp") as f:
        rows = [line.split() for line in f.readlines()[1:]]
    return any(row[1] == f"0100007F:{port:04X}" and row[3] == TCP_LISTEN for row in rows)


def wait_for_stub(guest, port):
    """Waits until QEMU's stub listens; a QEMU that ended (a bad option, the port taken in
    the meantime) is an error, not a gdb left retrying."""
    deadline = time.monotonic() + CONNECT_TIMEOUT_SECONDS
    while not listening(port):
        if guest.poll() is not None:
            raise KeelError(f"QEMU ended (status {guest.returncode}) before its gdb stub "
                            "listened: see its message above")
        if time.monotonic() > deadline:
            raise KeelError(f"QEMU's gdb stub did not listen on 127.0.0.1:{port} within "
                            f"{CONNECT_TIMEOUT_SECONDS} s")
        time.sleep(0.05)


def source_dirs(program):
    """Where gdb finds sources by the relative names in the DWARF: the build directory of the
    service and those of the OS (build/os/PLATFORM-TYPE, or KEEL_OS_DIR's). A shared ccache may have compiled an
    object in another checkout, so DW_AT_comp_dir cannot be trusted to be this one."""
    dirs = [os.path.dirname(os.path.abspath(program))]
    return dirs + sorted(glob.glob(os.path.join(build.os_build_root(), "*")))


def gdb_command(program, breaks, batch, setup=(), start=(), gdb_args=()):
    gdb = shutil.which("gdb")
    if gdb is None:
        raise KeelError("gdb not found: install it with `tools/keel setup` (Debian package gdb)")
    args = [gdb, "-q"] + (["-batch"] if batch else [])
    ex = [f"directory {d}" for d in source_dirs(program)] + list(setup)
    ex += [f"break {b}" for b in breaks] + list(start)
    for command in ex:
        args += ["-ex", command]
    # The user's own gdb arguments (-ex ... for --batch) come after ours: they run at the stop.
    return args + list(gdb_args) + [program]


def run_gdb(args, timeout, before=lambda: None, on_exit=lambda: None):
    """Calls before() (starts the guest), then runs gdb in the foreground on our terminal
    (Ctrl-C goes to gdb, which interrupts the target; keel ignores it). Calls on_exit()
    however it ends, from the moment before() is called; returns gdb's status, or keel's own
    when it stopped gdb (timeout, SIGTERM, SIGHUP)."""
    previous = {s: signal.signal(s, process._on_stop_signal) for s in process.STOP_SIGNALS}
    sigint = signal.getsignal(signal.SIGINT)
    gdb = None
    try:
        before()
        gdb = subprocess.Popen(args)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        return gdb.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process._say(f"keel: gdb did not exit within {timeout} s; stopped it")
        return process.TIMED_OUT
    except process.Stopped as stopped:
        process._say(f"keel: got {signal.Signals(stopped.signum).name}; stopping gdb")
        return process.STOP_SIGNALS[stopped.signum]
    finally:
        for s in process.STOP_SIGNALS:
            signal.signal(s, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            if gdb is not None:
                process.stop(gdb)
            on_exit()
        finally:
            signal.signal(signal.SIGINT, sigint)
            for s, handler in previous.items():
                signal.signal(s, handler)


def debug_image(image, breaks, batch, gdb_args, machine="microvm", memory="64M", cpus=1,
                append="", accel="auto", taps=(), timeout=None, rng=True):
    """Boots `image` halted under QEMU's gdb stub and runs gdb on it; QEMU ends with gdb."""
    check_image(image)
    qemu.check_memory(image, memory)
    chosen, note = accelerators.choose(accel)
    if note:
        print(f"keel: {note}", flush=True)
    port = free_port()
    extra = ["-gdb", f"tcp:127.0.0.1:{port}", "-S"]
    for i, tap in enumerate(taps):
        extra += ["-netdev", f"tap,id=net{i},ifname={tap},script=no,downscript=no",
                  "-device", f"{qemu.nic_device(machine)},netdev=net{i}"]
    setup = [f"set tcp connect-timeout {CONNECT_TIMEOUT_SECONDS}",
             f"target remote 127.0.0.1:{port}"]
    args = gdb_command(image, breaks, batch, setup, ["continue"], gdb_args)
    guest = []

    def start():
        # Its own session: Ctrl-C in gdb must not reach QEMU; keel stops it when gdb ends.
        guest.append(subprocess.Popen(
            qemu.command(image, machine, memory, cpus, append, chosen, extra, rng=rng),
            stdin=subprocess.DEVNULL, start_new_session=True))
        wait_for_stub(guest[0], port)
        print(f"keel: QEMU's gdb stub on 127.0.0.1:{port}; the guest waits for gdb", flush=True)

    return run_gdb(args, timeout, start, lambda: guest and process.stop(guest[0]))


def debug_process(program, breaks, batch, gdb_args, append="", taps=(), timeout=None):
    """Runs the service's Linux build under gdb, with the arguments `keel boot` gives it."""
    if not os.access(program, os.X_OK):
        raise KeelError(f"{program} is not an executable (build it with "
                        "`keel build DIR --platform linux`)")
    # gdb --args quotes each argument for the shell it starts the program with, so --append
    # reaches the service as one argument, as from `keel boot --platform linux`.
    words = linux_process.arguments(append, taps)
    args = gdb_command(program, breaks, batch, (), ["run"], gdb_args)
    # gdb --args PROGRAM ARGS... must come last.
    args = args[:-1] + ["--args", program, *words]
    return run_gdb(args, timeout)
