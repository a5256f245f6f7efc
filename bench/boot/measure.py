"""One boot, timed: QEMU start to a console line, to the first answered ping,
to exit; the host CPU an idle guest costs; the smallest memory it runs in.
Used by bench/boot/run.py for Keel images and Linux guests alike."""
import os
import re
import selectors
import signal
import subprocess
import time

# Sends an ICMP echo request every millisecond until the first reply from
# argv[1]; prints CLOCK_MONOTONIC of that reply (system-wide, so comparable
# with the parent's time.monotonic()).
PROBER = r"""
import os, select, socket, struct, sys, time
dst = sys.argv[1]
s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
s.setblocking(False)
ident = os.getpid() & 0xffff
def packet(seq):
    h = struct.pack("!BBHHH", 8, 0, 0, ident, seq) + b"keel" * 8
    c = sum(struct.unpack("!%dH" % (len(h) // 2), h)); c = (c >> 16) + (c & 0xffff); c += c >> 16
    return h[:2] + struct.pack("!H", ~c & 0xffff) + h[4:]
print("ready", flush=True)
seq, deadline = 0, time.monotonic() + float(sys.argv[2])
while time.monotonic() < deadline:
    seq = (seq + 1) & 0xffff
    try: s.sendto(packet(seq), (dst, 0))
    except OSError: pass
    r, _, _ = select.select([s], [], [], 0.001)
    if r:
        data, addr = s.recvfrom(2048)
        ihl = (data[0] & 15) * 4
        if addr[0] == dst and data[ihl] == 0 and struct.unpack("!H", data[ihl+4:ihl+6])[0] == ident:
            print("reply", time.monotonic(), flush=True); sys.exit(0)
print("none", flush=True)
"""
GUEST_MAC = "52:54:00:12:34:56"
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def tap_args(tap="tap0"):
    """The NIC of every networked guest here, Keel or Linux."""
    return ["-netdev", f"tap,id=n0,ifname={tap},script=no,downscript=no",
            "-device", f"virtio-net-device,netdev=n0,mac={GUEST_MAC}"]


class Boot:
    """Times of one boot in seconds from spawning QEMU (None: did not happen)."""

    def __init__(self):
        self.line = self.ping = self.exit = None
        self.status = None
        self.output = b""


def timed_boot(args, line=None, ns=None, address=None, timeout=60, wait_exit=True, static_arp=True):
    """Spawns QEMU (`args`, inside namespace `ns` when given) and records when
    a console line matching `line` appears, when `address` first answers a
    ping (the prober starts first, with static_arp a static ARP entry in
    place, so neither the prober's start nor ARP back-off is measured) and,
    with wait_exit, when QEMU exits. Kills QEMU once there is nothing left to
    wait for. Without static_arp the guest must answer ARP too: its echo
    replies are built in the request's buffer, its ARP replies are not, so
    only this shows a guest that has no buffer left to send from (issue 24)."""
    result, pattern = Boot(), re.compile(line.encode()) if line else None
    prober, answer = None, b""
    if address:
        if static_arp:
            ns.sh(f"ip neigh replace {address} lladdr {GUEST_MAC} dev tap0 nud permanent")
        prober = subprocess.Popen(ns.exec_args(["/usr/bin/python3", "-c", PROBER, address,
                                                str(timeout)]), stdout=subprocess.PIPE)
        assert prober.stdout.readline().strip() == b"ready"
    run = ns.exec_args(args) if ns else args
    start = time.monotonic()
    proc = subprocess.Popen(run, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, start_new_session=True)
    selector = selectors.DefaultSelector()
    selector.register(proc.stdout, selectors.EVENT_READ, "console")
    if prober:
        selector.register(prober.stdout, selectors.EVENT_READ, "prober")
    try:
        while time.monotonic() - start < timeout:
            if ((not pattern or result.line) and (not prober or result.ping)
                    and (not wait_exit or result.exit)):
                break
            for key, _ in selector.select(timeout=0.5):
                data = os.read(key.fileobj.fileno(), 65536)
                now = time.monotonic() - start
                if key.data == "prober":
                    answer += data
                    if b"\n" in answer or not data:
                        selector.unregister(key.fileobj)
                        if answer.startswith(b"reply"):
                            result.ping = float(answer.split()[1]) - start
                elif not data:
                    selector.unregister(key.fileobj)
                    result.status, result.exit = proc.wait(), now
                else:
                    result.output += data
                    if pattern and result.line is None and pattern.search(result.output):
                        result.line = now
    finally:
        stop(proc)
        if prober:
            prober.kill()
            prober.wait(timeout=10)
    return result


def stop(proc):
    """Kills a guest and everything it started: `ip netns exec` forks QEMU, so
    the guest runs in its own session and the whole group goes."""
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)


def group_ticks(leader):
    """CPU time (utime + stime, in clock ticks) of `leader` and its children
    (QEMU is a child of `ip netns exec`)."""
    total, todo = 0, [leader]
    while todo:
        pid = todo.pop()
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            with open(f"/proc/{pid}/task/{pid}/children") as f:
                todo += [int(c) for c in f.read().split()]
        except FileNotFoundError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total


def idle_cpu(args, ready, ns, seconds):
    """Host CPU (% of one core) QEMU uses while the guest waits for work, from
    the process's utime+stime over `seconds`, after the guest printed `ready`."""
    proc = subprocess.Popen(ns.exec_args(args), stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True)
    try:
        output = b""
        deadline = time.monotonic() + 60
        while not re.search(ready.encode(), output) and time.monotonic() < deadline:
            chunk = os.read(proc.stdout.fileno(), 65536)
            if not chunk:
                raise RuntimeError(f"guest ended before '{ready}':\n{output.decode()}")
            output += chunk
        time.sleep(1)  # let the boot's own work drain
        before, t0 = group_ticks(proc.pid), time.monotonic()
        time.sleep(seconds)
        used = (group_ticks(proc.pid) - before) / CLOCK_TICKS
        return 100 * used / (time.monotonic() - t0)
    finally:
        stop(proc)


def smallest_memory(works, low=1, high=512):
    """Binary search in MiB for the smallest memory at which works(mib) holds;
    `high` must work. Returns None when it does not."""
    if not works(high):
        return None
    while high - low > 1:
        mid = (low + high) // 2
        if works(mid):
            high = mid
        else:
            low = mid
    return high
