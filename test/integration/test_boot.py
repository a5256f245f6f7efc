"""The hello example and basic services boot on every machine type."""
import re

import pytest

from conftest import accels, boot, image

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
    # 2 MiB cannot hold the image and what it needs to start: it must say so, naming the
    # least that does (linker.ld: KEEL_START_MEMORY), and end, never hang or die silently.
    code, out = boot(image("hello"), "microvm", memory="2M", timeout=30)
    assert "Keel: too little RAM for this image: give the VM at least 4 MiB" in out, out
    assert code == 70
    assert "Goodbye" not in out


@pytest.mark.parametrize("machine", ["microvm", "pc"])
def test_timers_order_period_and_stop(machine):
    code, out = boot(image("timers"), machine)
    assert code == 7, out  # os::shutdown(7) reaches the exit status
    events = re.findall(r"^(oneshot \d+ms|periodic tick \d)", out, re.M)
    assert events == ["oneshot 10ms", "periodic tick 1", "oneshot 30ms", "periodic tick 2",
                      "periodic tick 3"], out
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
