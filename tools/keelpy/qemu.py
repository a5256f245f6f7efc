"""Runs an image in QEMU and maps its exit status back to the service's."""
import re
import shutil

from . import accel as accelerators, process
from .image import check_image, min_memory_mib
from .paths import KeelError

MACHINES = ("microvm", "pc", "q35")
DEBUG_EXIT = ["-device", "isa-debug-exit,iobase=0xf4,iosize=4"]
# Exit statuses of `keel boot` that are not the service's own.
NO_STATUS = 255    # the guest reset or QEMU ended without a status from it
QEMU_FAILED = 254  # QEMU itself failed (bad option, missing file, ...)
TIMED_OUT = process.TIMED_OUT


def machine_args(machine):
    if machine == "microvm":
        # No option ROMs, no PCI; the RTC stays for wall-clock time under TCG.
        return ["-M", "microvm,x-option-roms=off,pic=off,rtc=on"]
    if machine in ("pc", "q35"):
        return ["-M", machine]
    raise KeelError(f"unknown machine type '{machine}' (choose from {', '.join(MACHINES)})")


def nic_device(machine):
    """The virtio-net device for this machine: MMIO on microvm (no PCI there), else PCI."""
    return "virtio-net-device" if machine == "microvm" else "virtio-net-pci"


def smp(cpus, accel):
    """-smp's value. Under TCG, room for a second vCPU that never starts: QEMU 7.2's TCG
    translates a guest with one possible vCPU without memory barriers (no CF_PARALLEL:
    MFENCE and LOCK'd instructions become plain loads and stores), yet QEMU's own threads
    read the virtqueues concurrently, so the store of the avail index and the load of
    avail_event could pass each other and a notification was lost for good (issue 24,
    decision 0091). Later QEMU emits them regardless (tcg_gen_mb since 2023: "the virtio devices
    require proper memory ordering between the vcpus and the iothreads")."""
    return f"{cpus},maxcpus={max(cpus, 2)}" if accel == "tcg" else str(cpus)


def rng_args(machine):
    """A virtio-rng device fed from the host's /dev/urandom: the guest's seed for getrandom()
    (docs/decisions/0104). MMIO on microvm, PCI on pc/q35, like the NIC. It goes after every
    other device, so NICs keep the virtio-mmio slots (and interface numbers) they had."""
    device = "virtio-rng-device" if machine == "microvm" else "virtio-rng-pci"
    return ["-object", "rng-random,id=keel-rng,filename=/dev/urandom",
            "-device", f"{device},rng=keel-rng"]


def command(image, machine="microvm", memory="64M", cpus=1, append="", accel="tcg",
            extra=(), rng=True):
    qemu = shutil.which("qemu-system-x86_64")
    if qemu is None:
        raise KeelError("qemu-system-x86_64 not found: install it with `tools/keel setup` "
                        "(Debian package qemu-system-x86)")
    args = [qemu, *machine_args(machine), *accelerators.cpu_args(accel), "-m", str(memory),
            "-smp", smp(cpus, accel), "-nodefaults", "-no-user-config", "-display", "none",
            "-serial", "stdio", *DEBUG_EXIT, "-no-reboot", "-kernel", image]
    if append:
        args += ["-append", append]
    return args + list(extra) + (rng_args(machine) if rng else [])


def memory_mib(memory):
    """QEMU's -m as MiB (a number with an optional K/M/G/T suffix, MiB without one), or None
    when it is not a size (QEMU will say so itself)."""
    match = re.fullmatch(r"(\d+(?:\.\d+)?)([KMGT]?)B?", str(memory).strip(), re.IGNORECASE)
    if not match:
        return None
    scale = {"K": 1 / 1024, "": 1, "M": 1, "G": 1024, "T": 1024 * 1024}[match.group(2).upper()]
    return float(match.group(1)) * scale


def check_memory(image, memory):
    """Refuses less RAM than the image starts in. The image refuses it too, and names the
    minimum, but only when QEMU can load it: below the image's own end (1 MiB: QEMU loads
    nothing) the guest cannot say a word."""
    need, have = min_memory_mib(image), memory_mib(memory)
    if need and have is not None and have < need:
        raise KeelError(f"{image} needs at least {need} MiB of RAM: --memory {memory} is too little "
                        f"(try --memory {need}M)")


def status_of(qemu_status):
    """The service's exit code from QEMU's. The guest writes code + 1 to
    isa-debug-exit, which exits QEMU with ((code + 1) << 1) | 1; status 1 is
    QEMU's own error status, so it can never mean a guest code."""
    if qemu_status == 1:
        return QEMU_FAILED
    if qemu_status >= 3 and qemu_status % 2 == 1:
        return (qemu_status - 1) // 2 - 1
    return NO_STATUS


def boot(image, machine="microvm", memory="64M", cpus=1, append="", accel="auto",
         timeout=None, extra=(), quiet=False, rng=True):
    """Boots `image` with the console on our stdout; returns the service's exit code."""
    check_image(image)
    check_memory(image, memory)
    chosen, note = accelerators.choose(accel)
    if note and not quiet:
        print(f"keel: {note}", flush=True)
    args = command(image, machine, memory, cpus, append, chosen, extra, rng)
    outcome = process.run(args, timeout, on_timeout=lambda: print(
        f"keel: the guest did not exit within {timeout} s; stopped it", flush=True))
    if outcome.stopped is not None:
        return outcome.stopped
    status = outcome.status
    code = status_of(status)
    if code == QEMU_FAILED and not quiet:
        print("keel: QEMU failed (status 1, see its message above)", flush=True)
    elif code == NO_STATUS and not quiet:
        print(f"keel: QEMU ended with status {status} and no status from the guest "
              "(reset, triple fault, or QEMU error)", flush=True)
    return code
