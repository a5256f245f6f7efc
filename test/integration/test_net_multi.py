"""Two NICs on two subnets, and DHCP (lease and renewal) against dnsmasq."""
import re
import shutil

import pytest

from netguest import UDP_CLIENT, Guest, Namespace


@pytest.mark.parametrize("machine", ["microvm", "pc", "linux"])
def test_two_nics_two_subnets(machine):
    ns = Namespace(taps=2)
    guest = None
    try:
        guest = Guest(ns, machine=machine, append="ip=10.0.0.2/24 ip1=10.0.1.2/24")
        for i in range(2):
            result = ns.sh(f"ping -n -c 3 -i 0.2 -W 3 -I tap{i} {ns.guest(i)}", timeout=20,
                           check=False)
            assert " 0% packet loss" in result.stdout, result.stdout + result.stderr
            echo = ns.python(UDP_CLIENT, ns.guest(i), 2.0, 1, 100, 1472, 3000, timeout=60)
            assert echo.stdout.strip() == "bad []", echo.stdout + echo.stderr
        # Each interface answers ARP with its own MAC: in QEMU tap<i> sees
        # ...:56+i (so interface numbers follow the command line).
        macs = []
        for i in range(2):
            arp = ns.sh(f"arping -c 1 -w 5 -I tap{i} {ns.guest(i)}", timeout=10, check=False)
            found = re.findall(r"reply from [\d.]+ \[([0-9A-Fa-f:]+)\]", arp.stdout)
            assert found, arp.stdout
            macs.append(found[0].lower())
        assert macs[0] != macs[1]
        if machine != "linux":
            assert macs == ["52:54:00:12:34:56", "52:54:00:12:34:57"]
    finally:
        if guest:
            guest.close()
        ns.close()


@pytest.mark.skipif(shutil.which("dnsmasq") is None, reason="dnsmasq is not installed")
@pytest.mark.parametrize("machine", ["microvm", "pc", "linux"])
def test_dhcp_lease_and_renewal(machine, tmp_path):
    ns = Namespace(taps=1)
    guest = None
    dnsmasq = None
    log = tmp_path / "dnsmasq.log"
    try:
        import subprocess
        dnsmasq = subprocess.Popen(ns.exec_args([
            "dnsmasq", "--no-daemon", "--no-resolv", "--no-hosts", "--port=0",
            "--interface=tap0", "--bind-interfaces", "--dhcp-range=10.0.0.50,10.0.0.60,2m",
            "--dhcp-option=option:router,10.0.0.1", "--dhcp-option=option:dns-server,10.0.0.1",
            f"--dhcp-leasefile={tmp_path / 'leases'}", "--log-dhcp",
            f"--log-facility={log}"]), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.STDOUT, start_new_session=True)
        # dhcp_t1: renew after 3 s instead of the server's T1 (half the lease).
        guest = Guest(ns, machine=machine, append="ip=dhcp dhcp_t1=3", timeout=60)
        match = re.search(r"listening on (10\.0\.0\.\d+)", guest.output())
        assert match, guest.output()
        address = match.group(1)
        assert 50 <= int(address.split(".")[-1]) <= 60
        ping = ns.sh(f"ping -n -c 2 -W 3 {address}", timeout=20, check=False)
        assert " 0% packet loss" in ping.stdout, ping.stdout
        # The renewal: a second DHCPACK for the same address, without a new DISCOVER.
        import time
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            text = log.read_text() if log.exists() else ""
            if len(re.findall(rf"DHCPACK\(tap0\) {re.escape(address)}", text)) >= 2:
                break
            time.sleep(0.2)
        text = log.read_text()
        assert len(re.findall(rf"DHCPACK\(tap0\) {re.escape(address)}", text)) >= 2, text
        assert len(re.findall(r"DHCPDISCOVER", text)) == 1, text
    finally:
        if guest:
            guest.close()
        if dnsmasq:
            dnsmasq.kill()
            dnsmasq.wait(timeout=10)
        ns.close()


def test_five_nics_sharing_intx_lines_all_answer():
    # Without MSI-X, pc's five PCI slots share four interrupt lines. A NIC
    # whose line is taken must fall back to polling, not lose its interrupts
    # to the other device on the line.
    ns = Namespace(taps=5)
    guest = None
    try:
        guest = Guest(ns, machine="pc", device_options=",vectors=0", ready_count=5)
        assert "no interrupt, polling" in guest.output()
        for i in range(5):
            result = ns.sh(f"ping -n -c 3 -i 0.2 -W 3 -I tap{i} {ns.guest(i)}", timeout=20,
                           check=False)
            assert " 0% packet loss" in result.stdout, f"NIC {i}: " + result.stdout + guest.output()
    finally:
        if guest:
            guest.close()
        ns.close()
