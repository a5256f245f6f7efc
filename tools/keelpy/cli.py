"""Command-line front end of the keel tool."""
import argparse
import os
import sys

from . import (accel, bench, build as builder, compdb, debug, formatting, libvirt,
               linux_process, new, package, process, qemu, run, setup, testing)
from .paths import ROOT, KeelError


def cmd_setup(args):
    setup.install(with_tests=args.tests)
    return 0


def cmd_build(args):
    if args.os_dir:
        os.environ["KEEL_OS_DIR"] = os.path.abspath(args.os_dir)
    builder.build(args.dir, args.platform, defines=args.define)
    return 0


def cmd_boot(args):
    target = args.image
    if args.platform == "linux":
        linux_process.refuse_vm_options(args)
        if os.path.isdir(target):
            target = builder.build(target, "linux")
        return linux_process.boot(target, args.append, args.tap or [], args.timeout)
    if os.path.isdir(target):
        target = builder.build(target, "kvm")
    machine = args.machine or BOOT_DEFAULTS["machine"]
    extra = []
    for i, tap in enumerate(args.tap or []):
        extra += ["-netdev", f"tap,id=net{i},ifname={tap},script=no,downscript=no"]
        extra += ["-device", f"{qemu.nic_device(machine)},netdev=net{i}"]
    return qemu.boot(target, machine, args.memory or BOOT_DEFAULTS["memory"],
                     args.cpus or BOOT_DEFAULTS["cpus"], args.append,
                     args.accel or BOOT_DEFAULTS["accel"], args.timeout, extra,
                     rng=not args.no_rng)


def cmd_debug(args):
    target = args.image
    breaks = [b for b in args.breaks if b] if args.breaks is not None else [debug.DEFAULT_BREAK]
    if args.platform == "linux":
        linux_process.refuse_vm_options(args)
        if os.path.isdir(target):
            target = builder.build(target, "linux")
        return debug.debug_process(target, breaks, args.batch, args.gdb_args, args.append,
                                   args.tap or [], args.timeout)
    if os.path.isdir(target):
        target = builder.build(target, "kvm")
    return debug.debug_image(target, breaks, args.batch, args.gdb_args,
                             args.machine or BOOT_DEFAULTS["machine"],
                             args.memory or BOOT_DEFAULTS["memory"],
                             args.cpus or BOOT_DEFAULTS["cpus"], args.append,
                             args.accel or BOOT_DEFAULTS["accel"], args.tap or [], args.timeout,
                             rng=not args.no_rng)


def cmd_new(args):
    path = new.create(args.name, args.template)
    print(f"keel: wrote {path} ({args.template} template): service.cpp, CMakeLists.txt, "
          f"README.md, test_service.py\nkeel: next: {KEEL_COMMAND} build {args.name}, then "
          f"see {os.path.join(args.name, 'README.md')}")
    return 0


def cmd_run(args):
    forwards = [run.parse_publish(spec) for spec in args.publish or []]
    net = run.parse_net(args.net)
    target = args.image
    if os.path.isdir(target):
        target = builder.build(target, "kvm")
    return run.run(target, forwards, args.machine, args.memory, args.append, args.accel,
                   args.timeout, net)


def cmd_package(args):
    target = args.image
    if os.path.isdir(target):  # a container holds the Linux-process build, the rest the image
        target = builder.build(target, "linux" if args.format == "container" else "kvm")
    path = package.package(target, args.format, args.output, args.name, args.machine,
                           args.memory, args.cpus, args.append, args.accel, args.network,
                           args.bridge, args.console_log, args.ref, args.tap)
    print(f"keel: wrote {path} ({args.format})", flush=True)
    return 0


def cmd_test(args):
    if args.install:
        setup.install(with_tests=True)
    return testing.run_all(args.pytest_args, unit=not args.integration_only,
                           integration=not args.unit_only, quick=args.quick)


def cmd_demo(args):
    if args.libvirt and args.name != "dmz":
        raise KeelError("--libvirt goes with `keel demo dmz`")
    setup.install(with_tests=args.name == "dmz")
    if args.name == "dmz":  # the firewall appliance in the CETIC study's DMZ topology
        # Ctrl-C or SIGTERM on keel: the demo gets SIGTERM and time to tear down.
        outcome = process.run(["/usr/bin/python3", os.path.join(ROOT, "examples", "firewall",
                                                                "dmz_demo.py"),
                               *(["--libvirt"] if args.libvirt else [])], grace=DEMO_TEARDOWN)
        return outcome.status if outcome.stopped is None else outcome.stopped
    image = builder.build(os.path.join(ROOT, "examples", "hello"), "kvm")
    return qemu.boot(image, timeout=60)


def cmd_bench(args):
    quick = args.quick or "--quick" in args.rest  # `keel bench boot --quick` too
    return bench.run(args.name, quick, [a for a in args.rest if a != "--quick"])


DEMO_TEARDOWN = 120  # s for `demo dmz` to undefine its domains and networks when stopped
KEEL_COMMAND = "tools/keel" if os.getcwd() == ROOT else os.path.join(ROOT, "tools", "keel")

# The VM options' defaults, applied after parsing: the options default to None so that
# --platform linux can tell one given on the command line (and refuse it).
BOOT_DEFAULTS = {"machine": "microvm", "memory": "64M", "cpus": 1, "accel": "auto"}


def parser():
    p = argparse.ArgumentParser(
        prog="keel", description="Build, boot and test Keel services.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="a first hour:\n"
               "  keel new greeter --template tcp      write a service folder\n"
               "  keel run greeter -p 7000:7000        build it, boot it, reach it on localhost\n"
               "  echo hi | nc -N 127.0.0.1 7000\n"
               "  keel boot examples/hello             boot an image, exit with its status\n"
               "  keel debug examples/hello            gdb, stopped at Service::start\n"
               "networking (keel run -p or boot --tap): docs/guide.md, \"Networking\".\n"
               "`keel COMMAND --help` for each command's options.")
    sub = p.add_subparsers(dest="command", required=True)

    s = sub.add_parser("setup", help="install build (and test) dependencies")
    s.add_argument("--tests", action="store_true", help="also what the tests need")
    s.set_defaults(run=cmd_setup)

    s = sub.add_parser("build", help="build a service directory")
    s.add_argument("dir")
    s.add_argument("--platform", default="kvm", choices=builder.PLATFORMS)
    s.add_argument("--os-dir", help="build the OS here, not in build/os of this Keel (also "
                                    "KEEL_OS_DIR=DIR for every command): a read-only Keel "
                                    "builds services too")
    s.add_argument("-D", dest="define", action="append", default=[], metavar="NAME=VALUE",
                   help="a CMake setting of the service, kept for later builds and boots "
                        "(-D KEEL_DNS_SECONDARY=ON: examples/dns with the secondary role)")
    s.set_defaults(run=cmd_build)

    s = sub.add_parser(
        "boot", help="boot an image (or build and boot a service directory)",
        description="Boots IMAGE in QEMU with its console on stdout and exits with the "
                    "service's os::shutdown() code: 70 panic, 78 it could not run as started "
                    "(no NIC for a network service), 124 --timeout, 130/143/129 "
                    "Ctrl-C/SIGTERM/SIGHUP (QEMU is stopped and lets go of its TAP), 254 QEMU "
                    "failed, 255 no status.")
    s.add_argument("image", help="an image, or a service directory to build first")
    s.add_argument("--machine", "-M", choices=qemu.MACHINES, help="QEMU machine (microvm)")
    s.add_argument("--memory", "-m", help="guest RAM (64M)")
    s.add_argument("--cpus", type=int, help="virtual CPUs (1)")
    s.add_argument("--append", "-a", default="",
                   help="the service's command line, e.g. \"ip=10.0.0.2/24 gw=10.0.0.1\"")
    s.add_argument("--accel", choices=("auto", "kvm", "tcg"), help="auto: KVM when usable")
    s.add_argument("--tap", action="append",
                   help="a NIC on this existing TAP device (repeat for more; needs root or a "
                        "TAP owned by you). Without root: `keel run -p`")
    s.add_argument("--timeout", type=float, help="stop the guest after this many seconds")
    s.add_argument("--no-rng", action="store_true", default=None,
                   help="no virtio-rng device (the image then seeds getrandom() from the CPU's "
                        "RDSEED/RDRAND only, or says it is NOT seeded)")
    s.add_argument("--platform", default="kvm", choices=builder.PLATFORMS,
                   help="linux: run the service as a Linux process instead (takes --append, "
                        "--tap and --timeout; refuses the VM options)")
    s.set_defaults(run=cmd_boot)

    s = sub.add_parser(
        "debug", help="gdb on a service: the image under QEMU's gdb stub, or the Linux process",
        usage="keel debug [options] IMAGE|DIR [-- GDB ARGS...]",
        description="Boots IMAGE (or builds and boots DIR) halted under QEMU's gdb stub on a "
                    "free loopback port and runs gdb on the image's ELF (it keeps its symbols "
                    "and DWARF): gdb connects, sets the breakpoints (Service::start unless "
                    "--break is given) and continues. With --platform linux, gdb runs the "
                    "Linux-process build with the arguments `keel boot --platform linux` "
                    "gives it. QEMU is stopped when gdb exits, and on SIGTERM/SIGHUP; Ctrl-C "
                    "goes to gdb (it interrupts the guest). Exit status: gdb's.",
        epilog="examples:\n"
               "  keel debug examples/hello                        stop at Service::start\n"
               "  keel debug examples/hello --break pvh_start      stop at the first "
               "instruction\n"
               "  keel debug IMAGE --batch -- -ex bt -ex 'info locals'   for scripts\n"
               "docs/guide.md, \"Debugging\".",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    s.add_argument("image", help="an image or Linux build, or a service directory to build first")
    s.add_argument("--platform", default="kvm", choices=builder.PLATFORMS)
    s.add_argument("--break", "-b", dest="breaks", action="append", metavar="SYMBOL",
                   help="a gdb breakpoint (function, FILE:LINE or *ADDRESS); repeat for more. "
                        "Default: Service::start; --break '' for none")
    s.add_argument("--batch", action="store_true",
                   help="run gdb non-interactively: stop at the breakpoint, run the -ex "
                        "commands given after --, exit")
    s.add_argument("--machine", "-M", choices=qemu.MACHINES, help="QEMU machine (microvm)")
    s.add_argument("--memory", "-m", help="guest RAM (64M)")
    s.add_argument("--cpus", type=int, help="virtual CPUs (1)")
    s.add_argument("--append", "-a", default="", help="the service's command line")
    s.add_argument("--accel", choices=("auto", "kvm", "tcg"), help="auto: KVM when usable")
    s.add_argument("--tap", action="append", help="a NIC on this existing TAP device")
    s.add_argument("--timeout", type=float, help="stop gdb (and QEMU) after this many seconds")
    s.add_argument("--no-rng", action="store_true", default=None,
                   help="no virtio-rng device (as for keel boot)")
    # What follows `--` goes to gdb (split off in main(): argparse would take -ex as ours).
    s.set_defaults(run=cmd_debug, gdb_args=[])

    s = sub.add_parser("new", help="write a new service folder from a template",
                       description="Writes NAME/ (service.cpp, CMakeLists.txt, README.md and "
                                   "test_service.py) that builds and boots at once. Templates: "
                                   "hello (prints and exits), udp (answers datagrams on port "
                                   "7000), tcp (a line service on port 7000); dns, firewall "
                                   "and web are to come.")
    s.add_argument("name", help="the folder to write; its last part names the service")
    s.add_argument("--template", "-t", default="hello", choices=new.TEMPLATES)
    s.set_defaults(run=cmd_new)

    s = sub.add_parser(
        "run", help="boot an image on QEMU's user-mode network with ports forwarded from "
                    "this machine (no root), or on a bridge or TAP keel makes (root)",
        description="Boots IMAGE (or builds and boots DIR) with one virtio-net NIC on QEMU's "
                    "user-mode network. The guest takes 10.0.2.15 by DHCP (unless --append "
                    "sets ip=); each -p relays a host port to a guest port. Ctrl-C stops it. "
                    "With --net bridge=NAME or --net tap[=NAME] (root) the NIC is on a TAP "
                    "device keel makes (on the existing bridge NAME, or alone) and removes "
                    "when the guest stops; the guest's address is --append ip=... or DHCP.",
        epilog="examples:\n"
               "  keel run examples/udp_echo -p 7007:7/udp\n"
               "  echo hi | nc -u -w1 127.0.0.1 7007\n"
               "  sudo keel run examples/udp_echo --net bridge=br0 --append ip=192.168.1.50/24\n"
               "  sudo keel run examples/udp_echo --net tap=keel0 --append ip=10.0.0.2/24\n"
               "Exit statuses as keel boot's. docs/guide.md, \"Networking\".",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    s.add_argument("image", help="an image, or a service directory to build first")
    s.add_argument("-p", "--publish", action="append",
                   metavar="[HOSTADDR:]HOSTPORT:GUESTPORT[/udp]",
                   help="forward HOSTADDR:HOSTPORT (127.0.0.1 unless given; 0.0.0.0 for every "
                        "address) to the guest's GUESTPORT, TCP unless /udp; repeat for more")
    s.add_argument("--machine", "-M", default="microvm", choices=qemu.MACHINES,
                   help="QEMU machine (microvm)")
    s.add_argument("--memory", "-m", default="64M", help="guest RAM (64M)")
    s.add_argument("--append", "-a", default="",
                   help="the service's command line (ip=dhcp is added unless it sets ip=)")
    s.add_argument("--accel", default="auto", choices=("auto", "kvm", "tcg"),
                   help="auto: KVM when usable")
    s.add_argument("--timeout", type=float, help="stop the guest after this many seconds")
    s.add_argument("--net", default="user", metavar="user|bridge=NAME|tap[=NAME]",
                   help="user: QEMU's user-mode network (-p; the default); bridge=NAME: a TAP "
                        "keel makes on the existing bridge NAME; tap[=NAME]: a TAP keel makes "
                        "(and names, if NAME is not given) and prints. Root; keel removes the "
                        "TAP when the guest stops")
    s.set_defaults(run=cmd_run)

    s = sub.add_parser(
        "package", help="write the image as a libvirt domain, a bootable disk, an OCI image, "
                        "a KubeVirt VMI or a Firecracker config",
        description="libvirt: a domain XML booting IMAGE directly (its path is written into "
                    "the XML; libvirt's QEMU user must be able to read it), with virtio-net "
                    "on --network or --bridge and the serial console on a pty, logged to "
                    "--console-log. disk: a raw disk image (GRUB 2 on BIOS and UEFI loads the "
                    "image through multiboot2, decision 0113) holding --append as the command "
                    "line. oci: an OCI image layout (a directory) holding the image at "
                    "/boot/keel/image, with --append, --memory, --machine as annotations. "
                    "kubevirt: a VirtualMachineInstance booting the OCI image --ref through "
                    "kernelBoot. firecracker: a config for `firecracker --config-file`. "
                    "container: the service's Linux-process build (IMAGE is that program, "
                    "or DIR) as an OCI container image for podman; it opens --tap (tap0) "
                    "in the container's network namespace. "
                    "docs/deploy.md, decisions 0112, 0113, 0117, 0118.",
        epilog="examples:\n"
               "  keel package examples/udp_echo --format libvirt --bridge br0 \\\n"
               "      --append ip=192.168.1.50/24 -o udp_echo.xml && virsh define udp_echo.xml\n"
               "  keel package examples/hello --format disk -o hello.img\n"
               "  qemu-system-x86_64 -drive file=hello.img,format=raw -serial stdio ...\n"
               "  keel package examples/hello --format oci -o hello.oci --append ip=dhcp\n"
               "  skopeo copy oci:hello.oci:latest docker://registry.example/hello:1\n"
               "  keel package examples/hello --format kubevirt --ref registry.example/hello:1 \\\n"
               "      --append ip=dhcp -o hello-vmi.yaml && kubectl apply -f hello-vmi.yaml\n"
               "  keel package examples/hello --format firecracker --tap tap0 -o hello.json\n"
               "  firecracker --no-api --config-file hello.json\n"
               "  keel package examples/udp_echo --format container --append ip=10.0.0.2/24 \\\n"
               "      -o udp_echo.container && podman pull oci:udp_echo.container",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    s.add_argument("image", help="an image, or a service directory to build first")
    s.add_argument("--format", "-f", required=True, choices=package.FORMATS)
    s.add_argument("--output", "-o",
                   help="where to write it (NAME.xml, .img, .oci, .yaml, .json or .container)")
    s.add_argument("--append", "-a", default="", help="the service's command line")
    s.add_argument("--name", help="the domain's, image's or VMI's name (the image's file name)")
    s.add_argument("--machine", "-M", choices=libvirt.MACHINES,
                   help="QEMU machine: libvirt pc (default) or q35; kubevirt and oci q35")
    s.add_argument("--memory", "-m", default="64M", help="guest RAM (64M)")
    s.add_argument("--cpus", type=int, default=1, help="virtual CPUs (1)")
    s.add_argument("--accel", default="tcg", choices=tuple(libvirt.DOMAIN_TYPES),
                   help="libvirt: domain type qemu (tcg, the default) or kvm")
    s.add_argument("--network", help="libvirt: a NIC on this libvirt network")
    s.add_argument("--bridge", help="libvirt: a NIC on this host bridge")
    s.add_argument("--console-log", help="libvirt: also write the serial console to this file")
    s.add_argument("--ref", help="kubevirt: the OCI image in a registry, e.g. reg.example/hello:1")
    s.add_argument("--tap", help="firecracker: a NIC on this host TAP device; container: the "
                                 "TAP the service opens (tap0)")
    s.set_defaults(run=cmd_package)

    s = sub.add_parser("test", help="build everything and run all tests")
    s.add_argument("--install", action="store_true", help="first install what the tests need")
    s.add_argument("--unit-only", action="store_true")
    s.add_argument("--integration-only", action="store_true")
    s.add_argument("--quick", action="store_true",
                   help="only rebuild the host build and run its unit tests (seconds)")
    s.add_argument("pytest_args", nargs="*", help="passed to pytest (e.g. -k hello)")
    s.set_defaults(run=cmd_test)

    s = sub.add_parser("demo", help="set up, build and boot examples/hello; `demo dmz`: the firewall "
                                    "appliance between an outside network and a DMZ (root)")
    s.add_argument("name", nargs="?", choices=("hello", "dmz"), default="hello")
    s.add_argument("--libvirt", action="store_true",
                   help="dmz: the guests as libvirt domains on libvirt networks (libvirtd "
                        "running), undefined at the end")
    s.set_defaults(run=cmd_demo)

    s = sub.add_parser("bench", help="run every benchmark, or the one in bench/NAME, and "
                                     "write bench/results/ (summary in its README.md)")
    s.add_argument("name", nargs="?", help="boot, net, firewall, ... (default: all)")
    s.add_argument("--quick", action="store_true",
                   help="seconds each, tiny sizes, into build/bench-quick/ (what CI runs)")
    s.add_argument("rest", nargs=argparse.REMAINDER, help="passed to bench/NAME/run.sh")
    s.set_defaults(run=cmd_bench)

    s = sub.add_parser("format", help="clang-format every C/C++ file (--check: only report)")
    s.add_argument("--check", action="store_true")
    s.set_defaults(run=lambda a: formatting.run(check=a.check))

    s = sub.add_parser("compdb", help="write compile_commands.json (host and OS builds)")
    s.set_defaults(run=lambda a: print(f"keel: compile_commands.json with {compdb.write()} entries") or 0)

    s = sub.add_parser("accel", help="say whether KVM or TCG will be used, and why")
    s.set_defaults(run=lambda a: print(accel.choose()[0], "-", accel.kvm_problem() or "KVM usable") or 0)
    return p


def main(argv):
    gdb_args = []
    if argv[:1] == ["debug"] and "--" in argv:  # keel debug ... -- GDB ARGS
        at = argv.index("--")
        argv, gdb_args = argv[:at], argv[at + 1:]
    args = parser().parse_args(argv)
    if gdb_args:
        args.gdb_args = gdb_args
    try:
        return args.run(args)
    except KeelError as e:
        print(f"keel: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
