"""Installs what Keel needs from Debian's packages (Debian 12, as root)."""
import os
import shutil
import subprocess

from .paths import KeelError

# Building and booting images.
BUILD_PACKAGES = ["cmake", "ninja-build", "g++", "binutils", "musl-dev", "qemu-system-x86",
                  "python3", "nlohmann-json3-dev",
                  # lib/crypto: mbed TLS's libmbedcrypto.a, linked into images (decision 0052)
                  "libmbedtls-dev",
                  # keel debug: gdb on the image (through QEMU's gdb stub) or the Linux process
                  "gdb"]
# Running every test, fuzz target and the network peers the tests use.
TEST_PACKAGES = ["libgtest-dev", "python3-pytest", "clang", "libclang-rt-14-dev", "clang-format", "iproute2",
                 "iputils-ping", "iputils-arping", "dnsmasq-base", "python3-scapy", "nftables",
                 "procps", "time", "tcpdump",
                 # TCP against Linux (test/net/test_tcp_linux.py, bench/tcp): clients,
                 # the SYN flood, and gcc for bench/tcp's relay and load tools; iperf3 also
                 # for keel bench firewall-vm's TCP throughput through the routers
                 "iperf3", "curl", "netcat-openbsd", "hping3", "gcc",
                 # keel bench --quick: plots, and packing the Linux VM peer's initramfs
                 "python3-matplotlib", "cpio",
                 # test/dns: the reference servers, response comparison, bench/dns load
                 "nsd", "knot", "knot-dnsutils", "python3-dnspython", "dnsperf",
                 # dig, beside kdig, as a client of DNS over TCP (test/dns/test_tcp.py)
                 "bind9-dnsutils",
                 # test/http/test_web.py: a REST client
                 "python3-requests",
                 # test/http/test_static.py: the reference server of the differential
                 "nginx-light",
                 # keel package --format libvirt (test_keel_package.py): libvirt's daemon and
                 # QEMU driver, its sysv flavour (CI machines may run no systemd; the test
                 # starts the daemon itself), virsh, and xmllint for virt-xml-validate
                 "libvirt-daemon-system", "libvirt-daemon-system-sysv",
                 "libvirt-daemon-driver-qemu", "libvirt-clients", "libxml2-utils",
                 # keel package --format disk: GRUB for BIOS and UEFI, grub-mkrescue's
                 # xorriso and mtools, and OVMF to boot the disk under UEFI
                 "grub-common", "grub-pc-bin", "grub-efi-amd64-bin", "xorriso", "mtools", "ovmf"]


def missing(packages):
    result = subprocess.run(["dpkg-query", "-W", "-f=${Package} ${Status}\\n", *packages],
                            capture_output=True, text=True)
    installed = {line.split()[0] for line in result.stdout.splitlines()
                 if line.endswith("install ok installed")}
    return [p for p in packages if p not in installed]


def install(with_tests=False):
    packages = BUILD_PACKAGES + (TEST_PACKAGES if with_tests else [])
    if shutil.which("dpkg-query") is None:
        raise KeelError("keel setup needs a Debian system (dpkg/apt-get)")
    todo = missing(packages)
    if not todo:
        return
    if os.geteuid() != 0:
        raise KeelError(f"missing packages: {' '.join(todo)}; run `tools/keel setup` as root")
    print(f"keel: installing {' '.join(todo)}", flush=True)
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    for step in (["apt-get", "update", "-qq"],
                 ["apt-get", "install", "-y", "-qq", "--no-install-recommends", *todo]):
        if subprocess.run(step, env=env).returncode != 0:
            raise KeelError(f"`{' '.join(step)}` failed")
