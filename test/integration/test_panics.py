"""Faults end in a panic with registers and a symbolized backtrace, a
non-zero status, and never a hang."""
import re
import subprocess

import pytest

from conftest import boot, image
from keelpy.paths import KeelError

PANIC_STATUS = 70


@pytest.mark.parametrize("machine", ["microvm", "pc"])
@pytest.mark.parametrize("service,message", [
    ("null_deref", "page fault): null pointer dereference at address 0x0000000000000000"),
    ("stack_overflow", "page fault): stack overflow"),
])
def test_cpu_fault_panics_with_backtrace(service, message, machine):
    code, out = boot(image(service), machine, timeout=60)
    assert "*** Keel panic: CPU exception 14 (" + message in out, out
    assert "rip " in out and "cr2 " in out
    assert "Backtrace:" in out
    # Frames are named from the image's own symbol table.
    expected = "read_through" if service == "null_deref" else "recurse"
    assert expected in out.split("Backtrace:")[1], out
    assert code == PANIC_STATUS


def test_out_of_memory_is_reported_and_panics():
    code, out = boot(image("out_of_memory"), memory="32M", timeout=60)
    assert "Keel: out of memory: asked for" in out, out
    assert "*** Keel panic: std::terminate: uncaught std::bad_alloc" in out, out
    assert "allocated" not in out
    assert code == PANIC_STATUS


def test_uncaught_exception_names_the_exception():
    code, out = boot(image("uncaught"), timeout=60)
    assert "*** Keel panic: std::terminate: uncaught std::logic_error: nobody catches this" in out, out
    assert "Service::start" in out.split("Backtrace:")[1], out
    assert code == PANIC_STATUS


def test_backtrace_goes_on_through_code_without_unwind_tables():
    # lib/dns and examples/dns are built without unwind tables in images (decision 0150): the
    # walk by the tables stops at their first frame, and goes on by its frame pointers.
    code, out = boot(image("no_unwind_tables"), timeout=60)
    assert ("*** Keel panic: std::terminate: uncaught std::runtime_error: "
            "thrown through frames without unwind tables") in out, out
    frames = out.split("Backtrace:")[1]
    for name in ("callee_without_tables()", "caller_without_tables()", "Service::start()"):
        # A numbered frame, not a likely caller ("?") found by scanning the stack.
        assert re.search(r"#\d+ 0x[0-9a-f]+ .*" + re.escape(name), frames), out
    assert code == PANIC_STATUS


def test_exception_from_a_global_constructor_is_named():
    # Keel's handler is std::terminate's from the first instruction, not from Service::start().
    code, out = boot(image("constructor_throws"), timeout=60)
    assert ("*** Keel panic: std::terminate: uncaught std::runtime_error: "
            "thrown by a global's constructor") in out, out
    assert code == PANIC_STATUS


def test_images_link_no_demangler():
    # The type names come from the image's symbol table (decision 0088): 46 KiB less.
    symbols = subprocess.run(["nm", image("uncaught")], capture_output=True, text=True,
                             check=True).stdout
    assert "__cxa_demangle" not in symbols


def test_overflow_by_frames_larger_than_a_page_is_caught():
    code, out = boot(image("big_frame"), timeout=60)
    assert "*** Keel panic: CPU exception 14 (page fault): stack overflow" in out, out
    assert "deep(int)" in out.split("Backtrace:")[1]
    assert code == PANIC_STATUS


LIBRARY_CRASH = "*** Keel panic: the C library crashed (musl's a_crash"


def test_bad_free_panics_instead_of_hanging():
    code, out = boot(image("bad_free"), timeout=60)
    assert LIBRARY_CRASH in out, out
    assert "ran on after a bad free" not in out
    assert "__libc_free" in out.split("Backtrace:")[1], out
    assert code == PANIC_STATUS


def test_smashed_stack_panics_at_once():
    code, out = boot(image("smashed_stack"), timeout=60)
    assert LIBRARY_CRASH in out, out
    assert "ran on after smashing the stack" not in out
    assert "__stack_chk_fail" in out.split("Backtrace:")[1], out
    assert code == PANIC_STATUS


def test_interrupts_behind_crash_traps_do_not_stop_the_guest():
    # Interrupts that land on the jump target right past an allocator check's
    # trap are normal; the service counts them (it needs 20) and exits 0.
    code, out = boot(image("trap_targets"), timeout=120)
    assert "Keel panic" not in out, out
    match = re.search(r"(\d+) of (\d+) interrupts landed just past a crash trap; still running",
                      out)
    assert match and int(match.group(1)) >= 20, out
    assert code == 0, out


def test_an_image_with_a_stray_hlt_is_refused(capsys):
    with pytest.raises(KeelError):
        image("stray_hlt")
    assert "a hlt at 0x" in capsys.readouterr().out


def test_long_exception_type_name_is_printed():
    code, out = boot(image("long_exception"), timeout=60)
    assert ("*** Keel panic: std::terminate: uncaught "
            "an_exception_type_with_a_rather_long_name<") in out, out
    assert code == PANIC_STATUS


def test_abort_backtrace_reaches_the_caller():
    code, out = boot(image("abort"), timeout=60)
    assert "*** Keel panic: abort() called" in out, out
    frames = out.split("Backtrace:")[1]
    assert "helper_that_aborts()" in frames, out
    assert "Service::start()" in frames, out
    assert code == PANIC_STATUS
