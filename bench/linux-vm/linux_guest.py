#!/usr/bin/python3
"""The Linux guest: a Debian kernel and a busybox initramfs holding the peer
programs, booted with the same QEMU line as a Keel image (see README.md here
and docs/decisions/0070-linux-vm-peer.md).

  bench/linux-vm/linux_guest.py [--profile echo|peers|tcp]   # build, print the two paths

Everything comes from Debian's packages, fetched with `apt-get download` and
unpacked with `dpkg-deb -x` into build/linux-vm/ (nothing is installed on the
host). A profile is rebuilt only when its inputs change: the package
versions apt would fetch now, and the files of this folder."""
import argparse
import glob
import hashlib
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tools"))
from keelpy import qemu  # noqa: E402
from keelpy.paths import KeelError  # noqa: E402

CACHE = os.path.join(ROOT, "build", "linux-vm")
KERNEL_PACKAGE = "linux-image-cloud-amd64"  # the smallest Debian kernel with virtio-mmio
MULTIARCH = "x86_64-linux-gnu"
LIBRARY_DIRS = [f"lib/{MULTIARCH}", f"usr/lib/{MULTIARCH}", "lib64", "lib", "usr/lib"]
# Kernel command line of every Linux guest: kernel messages off the console
# (as on a production guest; printing each one through the emulated UART
# would slow the boot), the serial console where Keel writes its own, and a
# panic ends the VM (as a Keel panic does) instead of hanging it.
KERNEL_ARGS = "console=ttyS0 quiet panic=-1"
NET_MODULES = ["virtio_mmio", "virtio_net"]
FIREWALL_MODULES = ["nf_tables", "nft_ct", "nft_nat", "nft_masq", "nft_chain_nat", "nft_reject_inet",
                    "nft_compat", "nf_conntrack", "iptable_filter", "iptable_nat", "xt_conntrack",
                    "xt_tcpudp", "nf_nat"]


class Program:
    """A peer program: its Debian package, the files to take from it (ELF
    files bring their shared libraries along), kernel modules it needs."""

    def __init__(self, package, files, modules=(), trees=()):
        self.package, self.files, self.modules, self.trees = package, files, modules, trees


PROGRAMS = {
    "iperf3": Program("iperf3", ["usr/bin/iperf3"]),
    "nginx": Program("nginx", ["usr/sbin/nginx"]),
    "nsd": Program("nsd", ["usr/sbin/nsd"]),
    "knot": Program("knot", ["usr/sbin/knotd"]),
    "nftables": Program("nftables", ["usr/sbin/nft"], FIREWALL_MODULES),
    "iptables": Program("iptables", ["usr/sbin/xtables-nft-multi"], FIREWALL_MODULES,
                        trees=[f"usr/lib/{MULTIARCH}/xtables"]),
}
PROFILES = {
    "echo": [],  # hello and udp_echo only: the guest that sits beside Keel's examples
    "peers": sorted(PROGRAMS),
    "tcp": ["iperf3"],  # bench/tcp: the TCP echo and iperf3
}
# The echo servers every guest has (run=udp_echo, run=tcp_echo).
ECHO_SOURCES = [os.path.join(ROOT, "bench", "net", "udp_echo_server.c"),
                os.path.join(ROOT, "bench", "tcp", "tcp_echo_server.c")]
IPTABLES_NAMES = ["iptables", "iptables-save", "iptables-restore"]


def sh(args, **kwargs):
    return subprocess.run(args, check=True, capture_output=True, text=True, **kwargs).stdout


def apt(args, cwd=None):
    """apt-cache/apt-get, updating the package lists once if they are stale."""
    result = subprocess.run(args, capture_output=True, text=True, cwd=cwd)
    if result.returncode != 0:
        subprocess.run(["apt-get", "update", "-qq"], check=True)
        result = subprocess.run(args, capture_output=True, text=True, cwd=cwd)
    if result.returncode != 0:
        raise KeelError(f"`{' '.join(args)}` failed: {result.stderr.strip()}")
    return result.stdout


def package_closure(packages):
    """The packages plus every library package they depend on, recursively
    (libraries only: a peer needs its shared objects, not adduser or debconf)."""
    out = apt(["apt-cache", "depends", "--recurse", "--no-recommends", "--no-suggests",
               "--no-conflicts", "--no-breaks", "--no-replaces", "--no-enhances", *packages])
    names = set(packages)
    for line in out.splitlines():
        match = re.match(r"\s+(?:Pre)?Depends: ([\w.+-]+)$", line)
        if match and re.match(r"(lib|zlib)", match.group(1)):
            names.add(match.group(1))
    return sorted(names)


def versions(packages):
    """{package: version} of what apt-get download would fetch now."""
    out = apt(["apt-cache", "show", "--no-all-versions", *packages])
    found, name = {}, None
    for line in out.splitlines():
        if line.startswith("Package: "):
            name = line.split()[1]
        elif line.startswith("Version: ") and name not in found:
            found[name] = line.split()[1]
    return found


def kernel_package():
    out = apt(["apt-cache", "depends", KERNEL_PACKAGE])
    match = re.search(r"Depends: (linux-image-[\w.-]+)", out)
    if not match:
        raise KeelError(f"cannot tell which kernel {KERNEL_PACKAGE} stands for")
    return match.group(1)


def fetch(pinned, debs):
    """Downloads the .deb of each package version not yet in `debs`."""
    os.makedirs(debs, exist_ok=True)
    have = {os.path.basename(p) for p in glob.glob(os.path.join(debs, "*.deb"))}
    todo = [f"{name}={version}" for name, version in pinned.items()
            if not any(d.startswith(f"{name}_{version.replace(':', '%3a')}_") for d in have)]
    if todo:
        print(f"linux-vm: fetching {len(todo)} Debian packages", flush=True)
        apt(["apt-get", "download", "-qq", "-o", "APT::Sandbox::User=root", *todo], cwd=debs)
    return [glob.glob(os.path.join(debs, f"{n}_{v.replace(':', '%3a')}_*.deb"))[0]
            for n, v in pinned.items()]


def unpack(debs, sysroot):
    shutil.rmtree(sysroot, ignore_errors=True)
    os.makedirs(sysroot)
    for deb in debs:
        subprocess.run(["dpkg-deb", "-x", deb, sysroot], check=True)


def find_library(sysroot, soname):
    for d in LIBRARY_DIRS:
        path = os.path.join(sysroot, d, soname)
        if os.path.exists(path):
            return path
    raise KeelError(f"no {soname} in the unpacked packages (a Depends the closure missed?)")


def needed(path):
    """DT_NEEDED entries of an ELF file (none for a script or a static program)."""
    out = subprocess.run(["objdump", "-p", path], capture_output=True, text=True).stdout
    return re.findall(r"^\s+NEEDED\s+(\S+)$", out, re.M)


def copy_with_libraries(sysroot, relative, stage):
    """Copies sysroot/relative to stage/relative, then every shared library it
    needs, transitively, into stage/lib/<multiarch>/ (symlinks followed)."""
    todo, seen = [os.path.join(sysroot, relative)], set()
    target = os.path.join(stage, relative)
    os.makedirs(os.path.dirname(target), exist_ok=True)
    shutil.copy(todo[0], target)
    while todo:
        for soname in needed(todo.pop()):
            if soname in seen:
                continue
            seen.add(soname)
            source = find_library(sysroot, soname)
            shutil.copy(source, os.path.join(stage, "lib", MULTIARCH, soname))
            todo.append(source)


def module_files(sysroot):
    """{module name: .ko path} of the unpacked kernel, and its built-in names."""
    base = glob.glob(os.path.join(sysroot, "lib", "modules", "*"))[0]
    files = {os.path.basename(p)[:-3].replace("-", "_"): p
             for p in glob.glob(os.path.join(base, "kernel", "**", "*.ko"), recursive=True)}
    with open(os.path.join(base, "modules.builtin")) as f:
        builtin = {os.path.basename(line.strip())[:-3].replace("-", "_") for line in f}
    return files, builtin


def module_order(sysroot, wanted):
    """The .ko files to load for `wanted`, each after the modules it depends
    on (read from the module's own .modinfo, as depmod would)."""
    files, builtin = module_files(sysroot)
    order = []

    def visit(name):
        if name in builtin or files.get(name) in order:
            return
        if name not in files:
            raise KeelError(f"kernel module {name} is neither built in nor in the kernel package")
        with open(files[name], "rb") as f:
            match = re.search(rb"depends=([\w,-]*)\0", f.read())
        for dep in filter(None, (match.group(1).decode() if match else "").split(",")):
            visit(dep.replace("-", "_"))
        order.append(files[name])

    for name in wanted:
        visit(name)
    return order


def compile_static(source, output):
    subprocess.run(["gcc", "-O2", "-static", "-o", output, source], check=True)
    subprocess.run(["strip", output], check=True)


def stage_initramfs(sysroot, programs, stage):
    for d in ("bin", "sbin", "usr/bin", "usr/sbin", "proc", "sys", "dev", "tmp", "run", "var/log",
              f"lib/{MULTIARCH}", "lib64", "lib/modules", "etc/keel-peer", "srv/www"):
        os.makedirs(os.path.join(stage, d), exist_ok=True)
    busybox = os.path.join(stage, "bin", "busybox")
    shutil.copy(os.path.join(sysroot, "bin", "busybox"), busybox)
    for applet in sh([busybox, "--list-full"]).split():
        link = os.path.join(stage, applet)
        if not os.path.lexists(link):
            os.makedirs(os.path.dirname(link), exist_ok=True)
            os.symlink("/bin/busybox", link)
    shutil.copy(os.path.join(HERE, "init"), os.path.join(stage, "init"))
    os.chmod(os.path.join(stage, "init"), 0o755)
    for source in ECHO_SOURCES:
        compile_static(source, os.path.join(stage, "bin", os.path.basename(source)[:-2]))
    compile_static(os.path.join(HERE, "debug_exit.c"), os.path.join(stage, "bin", "debug_exit"))
    modules = list(NET_MODULES)
    for name in programs:
        program = PROGRAMS[name]
        for relative in program.files:
            copy_with_libraries(sysroot, relative, stage)
        for tree in program.trees:
            for path in glob.glob(os.path.join(sysroot, tree, "*")):
                copy_with_libraries(sysroot, os.path.relpath(path, sysroot), stage)
        modules += program.modules
    if programs:
        interpreter = f"lib/{MULTIARCH}/ld-linux-x86-64.so.2"
        shutil.copy(os.path.join(sysroot, interpreter), os.path.join(stage, interpreter))
        os.symlink(f"/{interpreter}", os.path.join(stage, "lib64", "ld-linux-x86-64.so.2"))
        for name in IPTABLES_NAMES:
            os.symlink("xtables-nft-multi", os.path.join(stage, "usr", "sbin", name))
        for path in glob.glob(os.path.join(HERE, "etc", "*")):
            shutil.copy(path, os.path.join(stage, "etc", "keel-peer"))
        shutil.copy(os.path.join(HERE, "etc", "index.html"), os.path.join(stage, "srv", "www"))
    with open(os.path.join(stage, "etc", "passwd"), "w") as f:
        f.write("root:x:0:0:root:/:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n")
    with open(os.path.join(stage, "etc", "group"), "w") as f:
        f.write("root:x:0:\nnogroup:x:65534:\n")
    order = []
    for path in module_order(sysroot, modules):
        shutil.copy(path, os.path.join(stage, "lib", "modules"))
        order.append(os.path.basename(path)[:-3])
    with open(os.path.join(stage, "lib", "modules", "load.order"), "w") as f:
        f.write("\n".join(order) + "\n")


def pack(stage, output):
    """A newc cpio archive of `stage`, owned by root, gzip-compressed."""
    files = sh(["find", ".", "-mindepth", "1"], cwd=stage)
    with open(output, "wb") as out:
        cpio = subprocess.Popen(["cpio", "-o", "-H", "newc", "-R", "0:0", "--quiet"], cwd=stage,
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        gzip = subprocess.Popen(["gzip", "-9", "-n"], stdin=cpio.stdout, stdout=out)
        cpio.stdout.close()
        cpio.communicate(files.encode())
        if cpio.wait() != 0 or gzip.wait() != 0:
            raise KeelError("packing the initramfs failed")


def host_tsc_khz():
    """The host's TSC rate (bench/linux-vm/tsc_khz.c), measured once."""
    if not hasattr(host_tsc_khz, "khz"):
        program = os.path.join(CACHE, "tsc_khz")
        os.makedirs(CACHE, exist_ok=True)
        subprocess.run(["gcc", "-O2", "-o", program, os.path.join(HERE, "tsc_khz.c")],
                       check=True)
        host_tsc_khz.khz = int(sh([program]))
    return host_tsc_khz.khz


class LinuxGuest:
    def __init__(self, directory):
        self.kernel = os.path.join(directory, "vmlinuz")
        self.initrd = os.path.join(directory, "initramfs.cpio.gz")

    def initrd_with(self, stage, output):
        """This guest's initramfs followed by an archive of the tree `stage` (files that the
        kernel unpacks over the first archive's: a benchmark's rules or site), written to
        `output`; returns `output`."""
        extra = output + ".extra.cpio"
        files = sh(["find", ".", "-mindepth", "1"], cwd=stage)
        with open(extra, "wb") as out:
            subprocess.run(["cpio", "-o", "-H", "newc", "-R", "0:0", "--quiet"], cwd=stage,
                           input=files.encode(), stdout=out, check=True)
        with open(output, "wb") as out:
            for part in (self.initrd, extra):
                with open(part, "rb") as f:
                    out.write(f.read())
                out.write(b"\0" * (-out.tell() % 4))  # the kernel finds archives at 4-byte boundaries
        os.remove(extra)
        return output

    def command(self, machine="microvm", memory="128M", append="", accel="tcg", extra=()):
        """A Keel image's QEMU line (keelpy.qemu.command) with this kernel, plus
        -initrd and the kernel's own arguments: nothing else differs. Under
        TCG the kernel is told the TSC rate, which it fails to calibrate
        against the PIT when the host is busy, and then hangs."""
        args = KERNEL_ARGS + (f" tsc_early_khz={host_tsc_khz()}" if accel == "tcg" else "")
        return qemu.command(self.kernel, machine, memory, 1, f"{args} {append}".strip(),
                            accel, ["-initrd", self.initrd, *extra])


def inputs_key(profile, pinned):
    digest = hashlib.sha256(repr((profile, sorted(pinned.items()))).encode())
    sources = list(ECHO_SOURCES)
    sources += sorted(p for p in glob.glob(os.path.join(HERE, "**"), recursive=True)
                      if os.path.isfile(p) and "__pycache__" not in p)
    for path in sources:
        with open(path, "rb") as f:
            digest.update(path.encode() + f.read())
    return digest.hexdigest()


def build(profile="echo", quiet=False):
    """Builds (or finds cached) the guest of `profile`; returns a LinuxGuest."""
    programs = PROFILES[profile]
    kernel = kernel_package()
    packages = [kernel, "busybox-static"] + ([] if not programs else package_closure(
        [PROGRAMS[p].package for p in programs]))
    pinned = versions(packages)
    directory = os.path.join(CACHE, profile)
    stamp = os.path.join(directory, "inputs.sha256")
    key = inputs_key(profile, pinned)
    guest = LinuxGuest(directory)
    if os.path.exists(stamp) and open(stamp).read() == key and os.path.exists(guest.initrd):
        return guest
    if not quiet:
        print(f"linux-vm: building the '{profile}' guest ({kernel}, {len(packages)} packages)",
              flush=True)
    debs = fetch(pinned, os.path.join(CACHE, "debs"))
    sysroot, stage = os.path.join(CACHE, "sysroot"), os.path.join(directory, "stage")
    unpack(debs, sysroot)
    shutil.rmtree(directory, ignore_errors=True)
    stage_initramfs(sysroot, programs, stage)
    shutil.copy(glob.glob(os.path.join(sysroot, "boot", "vmlinuz-*"))[0], guest.kernel)
    pack(stage, guest.initrd)
    shutil.rmtree(stage)
    shutil.rmtree(sysroot)
    with open(stamp, "w") as f:
        f.write(key)
    return guest


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", default="echo", choices=sorted(PROFILES))
    args = parser.parse_args()
    guest = build(args.profile)
    print(guest.kernel)
    print(guest.initrd)


if __name__ == "__main__":
    try:
        main()
    except KeelError as e:
        sys.exit(f"linux-vm: error: {e}")
