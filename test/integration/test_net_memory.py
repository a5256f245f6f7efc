"""udp_echo in small guests (microvm, TCG, virtio-net on a TAP): at the smallest memory the
README and bench/results/boot.md give, and at sizes that once went deaf, it answers ARP, ping
and UDP with nothing set up by hand (no static ARP entry: its own ARP replies must go out);
below the smallest it refuses to start and names the minimum.

Issue 24: the virtio-net receive ring took every buffer of a pool sized from memory, so from
4 to 10 MiB the guest printed "listening" and then could send nothing (docs/decisions/0090)."""
import re

import pytest

from netguest import UDP_CLIENT, Guest, Namespace

# The smallest memory udp_echo is documented to answer in (README.md, bench/results/boot.md).
SMALLEST_MIB = 3
# Sizes that were deaf before the fix (the pool no larger than the receive ring).
ONCE_DEAF_MIB = [4, 8, 10]


@pytest.mark.parametrize("mib", [SMALLEST_MIB, *ONCE_DEAF_MIB])
def test_small_guest_answers_arp_ping_and_udp(mib):
    ns = Namespace(taps=1)
    guest = None
    try:
        guest = Guest(ns, memory=f"{mib}M")
        ping = ns.sh(f"ping -n -c 3 -W 5 {ns.guest()}", timeout=60, check=False)
        assert " 0% packet loss" in ping.stdout, ping.stdout + guest.output()
        out = ns.python(UDP_CLIENT, ns.guest(), 5, 1, 100, 1472).stdout
        assert "bad []" in out, out + guest.output()
    finally:
        if guest:
            guest.close()
        ns.close()


def test_too_little_memory_refuses_and_names_the_minimum():
    ns = Namespace(taps=1)
    try:
        with pytest.raises(AssertionError) as refused:
            Guest(ns, memory=f"{SMALLEST_MIB - 1}M", timeout=60).close()
        message = str(refused.value)
        assert f"give the VM at least {SMALLEST_MIB} MiB" in message, message
        assert "guest exited" in message, message  # it ended by itself, not by the timeout
        assert "listening" not in message, message
    finally:
        ns.close()
