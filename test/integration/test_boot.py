"""The hello example and basic services boot on every machine type."""
import re

import pytest

from conftest import accels, boot, image
from keelpy.image import min_memory_mib

MACHINES = ["microvm", "pc", "q35"]


@pytest.mark.parametrize("accel_name", accels())
@pytest.mark.parametrize("machine", MACHINES)
def test_hello_runs_and_exits_zero(machine, accel_name):
    code, out = boot(image("hello"), machine, accel_name)
    assert "Hello from Keel on kvm" in out
    assert "squares: 1 4 9 16 25, map entries: 2" in out  # vector, map, string, iostream
    assert "exception: caught as expected" in out
    assert re.search(r"timer fired after \d+ us", out)
    assert out.rstrip().endswith("Goodbye")
    assert code == 0, out


def test_hello_runs_in_8_mib():
    code, out = boot(image("hello"), "microvm", memory="8M")
    assert "Goodbye" in out
    assert code == 0, out


def test_too_little_memory_fails_cleanly():
    # 2 MiB cannot hold the image and what it needs to start: it must say so, naming the least
    # that does (linker.ld's __keel_min_ram_mib, read from the image here: it follows the
    # image's size), and end, never hang or die silently. And that least must be enough.
    hello = image("hello")
    least = min_memory_mib(hello)
    assert least is not None and 2 < least <= 8, least
    code, out = boot(hello, "microvm", memory="2M", timeout=30)
    assert f"Keel: too little RAM for this image: give the VM at least {least} MiB" in out, out
    assert code == 70
    assert "Goodbye" not in out
    code, out = boot(hello, "microvm", memory=f"{least}M", timeout=60)
    assert code == 0 and "Goodbye" in out, out


@pytest.mark.parametrize("machine", ["microvm", "pc"])
def test_timers_order_period_and_stop(machine):
    code, out = boot(image("timers"), machine)
    assert code == 7, out  # os::shutdown(7) reaches the exit status
    events = re.findall(r"^(oneshot \d+ms|periodic tick \d)", out, re.M)
    # Timers run in deadline order. Each deadline counts from when the service set the timer
    # (it prints when), so a host stall between two of its calls cannot make this fail: the
    # periodic's first tick (15 ms after it was set) comes before the 30 ms one-shot only if it
    # was set less than 15 ms after it. Ticks 2 and 3 come later than both.
    set_at = {m[1]: int(m[2]) for m in re.finditer(r"^registered (.*) at (\d+) us$", out, re.M)}
    deadlines = {"oneshot 10ms": set_at["oneshot 10ms"] + 10_000,
                 "periodic tick 1": set_at["periodic"] + 15_000,
                 "oneshot 30ms": set_at["oneshot 30ms"] + 30_000}
    assert sorted(events[:3]) == sorted(deadlines), out
    # In order of deadline (equal in µs: either order, the nanoseconds decide).
    assert all(deadlines[a] <= deadlines[b] for a, b in zip(events, events[1:3])), out
    assert events[3:] == ["periodic tick 2", "periodic tick 3"], out
    assert "stopped timer ran" not in out
    assert "active timers: 0" in out
    times = {m.group(1): int(m.group(2)) for m in re.finditer(r"^(.*) at (\d+) ms$", out, re.M)}
    assert times["oneshot 10ms"] >= 10
    assert times["periodic tick 3"] >= 45
    assert times["done"] >= times["periodic tick 3"] + 5


def test_command_line_and_clocks():
    code, out = boot(image("args"), append='ip=10.0.0.2/24 name="two words"')
    assert code == 0, out
    assert "global constructor ran" in out
    assert "cmdline: [ip=10.0.0.2/24 name=\"two words\"]" in out
    assert "arg: [ip=10.0.0.2/24]" in out
    assert "arg: [name=two words]" in out
    year = int(re.search(r"year: (\d+)", out).group(1))
    assert 2024 <= year < 2100
    assert int(re.search(r"uptime_us: (\d+)", out).group(1)) > 0


def test_hello_as_a_linux_process():
    import subprocess
    result = subprocess.run([image("hello", "linux")], capture_output=True, text=True, timeout=30)
    assert "Hello from Keel on linux" in result.stdout
    assert "Goodbye" in result.stdout
    assert result.returncode == 0


def test_short_timers_never_lose_a_wake_up():
    # 20,000 periods of 30 us: a timer firing between arming and halting must
    # still wake the CPU, or the VM hangs until the timeout.
    code, out = boot(image("timer_race"), timeout=120)
    assert "20000 ticks" in out
    assert code == 0
