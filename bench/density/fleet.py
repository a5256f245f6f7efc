"""N instances of a UDP echo appliance, each on its own TAP on one bridge in a network
namespace made here, timed from the first launch until every one answers. Used by
bench/density/bench_density.py and test/integration/test_density.py.

Everything made is removed by close(), which the `with` block runs on an error or Ctrl-C
too: the process groups started (QEMU, or the podman containers by name), the namespace
with its bridge and TAPs."""
import ctypes
import os
import re
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "tools"))
from keelpy.netns import Netns  # noqa: E402

BRIDGE = "dbr0"
HOST = "10.99.0.1"
PREFIX = 16
RESERVE_MIB = 2048  # launching stops when less memory than this is left on the host
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
CLONE_NEWNET = 0x40000000
LIBC = ctypes.CDLL(None, use_errno=True)
PROBE_INTERVAL = 0.1  # each silent instance gets an echo request this often

# Sends a UDP datagram to port 7 of every address not yet answered, every PROBE_INTERVAL
# seconds, and prints "ADDRESS T" (CLOCK_MONOTONIC, the parent's time.monotonic()) as each
# first echo comes back. argv: deadline in seconds, interval, addresses.
PROBER = r"""
import select, socket, sys, time
deadline, interval = time.monotonic() + float(sys.argv[1]), float(sys.argv[2])
pending = set(sys.argv[3:])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
print("ready", flush=True)
while pending and time.monotonic() < deadline:
    for a in list(pending):
        try: s.sendto(a.encode(), (a, 7))
        except OSError: pass
    until = time.monotonic() + interval
    while pending and time.monotonic() < until:
        if select.select([s], [], [], max(0, until - time.monotonic()))[0]:
            data, (a, port) = s.recvfrom(2048)
            if a in pending and data == a.encode():
                pending.discard(a)
                print(a, time.monotonic(), flush=True)
print("done", len(pending), flush=True)
"""


def sh(args, check=True, **kwargs):
    return subprocess.run(args, capture_output=True, text=True, timeout=120, check=check,
                          **kwargs)


def enter(fd):
    if LIBC.setns(fd, CLONE_NEWNET) != 0:
        os._exit(126)


def tap(i):
    return f"dt{i}"


def address(i):
    return f"10.99.{1 + i // 250}.{1 + i % 250}"


def mac(i):
    return f"52:54:00:99:{i >> 8:02x}:{i & 255:02x}"


def mem_available_mib():
    with open("/proc/meminfo") as f:
        return int(re.search(r"MemAvailable:\s+(\d+)", f.read()).group(1)) / 1024


def descendants(pid):
    """pid and every process below it."""
    found, todo = [], [pid]
    while todo:
        p = todo.pop()
        found.append(p)
        try:
            with open(f"/proc/{p}/task/{p}/children") as f:
                todo += [int(c) for c in f.read().split()]
        except OSError:
            pass
    return found


def every(groups):
    """Every process of every group of pids, children included, each once (a container's
    service is its conmon's child)."""
    return sorted({p for group in groups for pid in group for p in descendants(pid)})


def ticks(pids):
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime
        except OSError:
            pass
    return total


def memory_kib(pid):
    """(RSS, PSS) in KiB: PSS shares each page among the processes that map it."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            text = f.read()
    except OSError:
        return 0, 0
    return tuple(int(re.search(rf"^{k}:\s+(\d+)", text, re.M).group(1)) for k in ("Rss", "Pss"))


class Fleet:
    """The namespace and bridge; `side` starts instance i (side.start(fleet, i) -> pid list
    source) and stops what it started."""

    def __init__(self, name, side):
        self.ns, self.side = name, side
        self.procs, self.pids = [], []  # Popen objects (own sessions); pids whose memory counts
        self.netns = Netns(name=name)
        try:
            self.netns.add_bridge(BRIDGE, f"{HOST}/{PREFIX}")
            self.nsh("sysctl -qw net.ipv6.conf.all.disable_ipv6=1 && "
                     # ARP retried every 100 ms (not 1 s): a guest is found soon after it is up
                     f"sysctl -qw net.ipv4.neigh.{BRIDGE}.retrans_time_ms=100")
        except BaseException:
            self.close()
            raise

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def exec_args(self, args):
        return self.netns.exec_args(args)

    def nsh(self, command):
        return self.netns.sh(command, timeout=120)

    def add_taps(self, n):
        """TAPs dt0 ... on the bridge, made before the clock starts (in one `ip -batch`):
        what is timed is the instances, not the host's plumbing."""
        lines = "".join(f"tuntap add {tap(i)} mode tap\nlink set {tap(i)} master {BRIDGE}\n"
                        f"link set {tap(i)} up\n" for i in range(n))
        sh(["ip", "-n", self.ns, "-batch", "-"], input=lines)

    def spawn(self, args, log=subprocess.DEVNULL):
        """A process in the namespace (entered with setns(2) between fork and exec, which
        `ip netns exec` would do at the cost of one more program per instance), in its own
        session: killed as a group."""
        fd = os.open(f"/run/netns/{self.ns}", os.O_RDONLY)
        try:
            proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=log,
                                    stderr=subprocess.STDOUT, start_new_session=True,
                                    pass_fds=(fd,), preexec_fn=lambda: enter(fd))
        finally:
            os.close(fd)
        self.procs.append(proc)
        return proc

    def launch(self, n, deadline):
        """Starts n instances and waits until each answers an echo or `deadline` s pass.
        Returns a dict of what was measured."""
        addresses = [address(i) for i in range(n)]
        prober = subprocess.Popen(self.exec_args(["/usr/bin/python3", "-c", PROBER, str(deadline),
                                                  str(PROBE_INTERVAL), *addresses]),
                                  stdout=subprocess.PIPE, text=True, start_new_session=True)
        self.procs.append(prober)
        assert prober.stdout.readline().strip() == "ready"
        self.add_taps(n)
        before = mem_available_mib()
        start, started, note = time.monotonic(), 0, ""
        for i in range(n):
            if mem_available_mib() < RESERVE_MIB:
                note = f"memory ran out after {i} instances (less than {RESERVE_MIB} MiB left)"
                break
            self.side.start(self, i, tap(i), address(i), mac(i))
            started += 1
        self.side.launched(self)
        launched = time.monotonic() - start
        answered = {}
        for line in prober.stdout:
            words = line.split()
            if words[0] == "done":
                break
            answered[words[0]] = float(words[1]) - start
        prober.wait(timeout=30)
        pids = self.side.pids(self)  # one list of processes per instance
        startup_cpu = ticks(every(pids)) / CLOCK_TICKS
        return {"n": n, "started": started, "answered": len(answered), "note": note,
                "launch_s": launched, "all_answer_s": max(answered.values()) if
                len(answered) == started and started else None,
                "startup_cpu_s": startup_cpu, "mem_drop_mib": before - mem_available_mib(),
                "pids": pids}

    def idle_cpu(self, pids, seconds):
        """% of one core that all instances together use while waiting for work."""
        first, t0 = ticks(every(pids)), time.monotonic()
        time.sleep(seconds)
        return 100 * (ticks(every(pids)) - first) / CLOCK_TICKS / (time.monotonic() - t0)

    @staticmethod
    def memory(pids):
        """[(RSS, PSS) KiB] of each instance, its processes and their children together."""
        return [tuple(map(sum, zip(*(memory_kib(p) for p in every([group]))))) for group in pids]

    def close(self):
        try:
            self.side.stop(self)
        finally:
            for proc in self.procs:
                if proc.poll() is None:
                    try:
                        os.killpg(proc.pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
                proc.wait(timeout=30)
            self.procs = []
            self.netns.close()  # its bridge and TAPs go with it
