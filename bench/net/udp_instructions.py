#!/usr/bin/python3
"""Instructions per UDP echo in the stack (decision 0095): callgrind over the Linux-process
examples/udp_echo on a TAP in a namespace, under bench/net/udp_load.c. Counts do not depend on
the machine's load, so they can compare two builds on a busy machine.

usage: udp_instructions.py UDP_ECHO_EXE UDP_LOAD_EXE [SECONDS [WINDOW [SIZE]]]
(build them with `keel build examples/udp_echo --platform linux` and
`cc -O2 -o udp_load bench/net/udp_load.c`). Needs root and valgrind."""
import os
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../tools"))
from keelpy.netns import Netns  # noqa: E402

# Inclusive counts per echo, by the function's name as callgrind_annotate prints it.
ROWS = [
    ("receive delegate: frame, handler, send_to", r"std_function\.h:std::_Function_handler<void "
     r"\(std::unique_ptr<net::Packet, net::PacketRelease>\), net::Stack::add_interface"),
    ("  Link::receive (frame up to the UDP queue)", r"link\.cpp:net::Link::receive\("),
    ("  UdpSocket::send_to", r"udp\.cpp:net::UdpSocket::send_to"),
    ("    TapNic::transmit (platform: writev)", r"tap\.cpp:net::TapNic::transmit\("),
    ("Stack::poll (timers; depends on batching)", r"stack\.cpp:net::Stack::poll\(\) \["),
]


def annotate(out, *options):
    return subprocess.run(["callgrind_annotate", "--threshold=100", *options, out],
                          capture_output=True, text=True, check=True, cwd="/").stdout


def echoes(out):
    """The calls of UdpSocket::send_to: the sum over its callers' lines in the caller tree."""
    lines = annotate(out, "--tree=caller").splitlines()
    n = 0
    for i, line in enumerate(lines):
        if "*  " in line and "udp.cpp:net::UdpSocket::send_to" in line:
            j = i - 1
            while j >= 0 and " < " in lines[j]:
                m = re.search(r"\(([\d,]+)x\)", lines[j])
                n += int(m.group(1).replace(",", "")) if m else 0
                j -= 1
    return n


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    exe, load = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    seconds, window, size = (sys.argv[3:] + ["5", "4", "64"][len(sys.argv) - 3:])[:3]
    out = os.path.join(tempfile.mkdtemp(prefix="udp-instructions-"), "callgrind.out")
    with Netns("udpinsn") as ns:
        ns.add_tap("udpinsn0", "10.0.9.1/24")
        p = ns.popen(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", exe,
                      "tap=udpinsn0", "ip=10.0.9.2/24"],
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            for _ in range(200):
                if ns.sh("ping -c1 -W1 10.0.9.2", check=False).returncode == 0:
                    break
            time.sleep(1)
            print(ns.run([load, "10.0.9.2", size, seconds, window],
                         timeout=int(float(seconds)) + 60).stdout.strip())
        finally:
            p.terminate()
            p.wait()
    n = echoes(out)
    if not n:
        sys.exit(f"no echo counted in {out}")
    inclusive = annotate(out, "--inclusive=yes").splitlines()
    print(f"{n} echoes of {size} B; instructions per echo (callgrind, inclusive):")
    for name, pattern in ROWS:
        count = next((int(l.split()[0].replace(",", "")) for l in inclusive
                      if re.search(pattern, l)), 0)
        print(f"  {name:46s} {count / n:8.1f}")
    print(f"(callgrind file: {out})")


if __name__ == "__main__":
    main()
