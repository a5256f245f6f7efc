"""Chooses the accelerator: KVM when /dev/kvm can run a Keel image, else TCG.

/dev/kvm being there is not enough. On hosts whose KVM is Ant's PVM
(module kvm_pvm), a guest that is not a PVM guest runs on KVM's instruction
emulator: about 1 us per instruction, and it stops at the first SSE
instruction ("emulation failure"). Keel images use SSE (the C++ runtime does),
so such a KVM is unusable and TCG is far faster. See docs/decisions/0003.
"""
import os

PVM_MODULE = "/sys/module/kvm_pvm"


def kvm_problem():
    """None when KVM is usable, else the reason it is not."""
    if not os.path.exists("/dev/kvm"):
        return "/dev/kvm does not exist"
    if not os.access("/dev/kvm", os.R_OK | os.W_OK):
        return "/dev/kvm is not readable and writable by this user"
    if os.path.exists(PVM_MODULE):
        return ("this host's KVM is PVM (kvm_pvm), which emulates every instruction "
                "of a non-PVM guest and cannot run SSE")
    return None


def choose(requested="auto"):
    """Returns (accel, note): accel is 'kvm' or 'tcg'; note says why, or is None."""
    if requested == "tcg":
        return "tcg", None
    problem = kvm_problem()
    if requested == "kvm":
        return "kvm", (f"warning: KVM requested, but {problem}" if problem else None)
    if problem:
        return "tcg", f"using TCG (software emulation): {problem}"
    return "kvm", None


def cpu_args(accel):
    # Plain `-cpu host` fails on some nested hosts (MSR 0x10a); without
    # arch-capabilities it works and still passes TSC-deadline and x2APIC.
    if accel == "kvm":
        return ["-accel", "kvm", "-cpu", "host,-arch-capabilities"]
    return ["-accel", "tcg", "-cpu", "max"]
