"""The console loses nothing, even when a service prints far more than its
buffer holds."""
import re

from conftest import boot, image


def test_console_flood_arrives_whole_and_in_order():
    code, out = boot(image("flood"), timeout=120)
    numbers = [int(n) for n in re.findall(r"^line (\d{5}) of the console flood test", out, re.M)]
    assert numbers == list(range(20000))
    assert out.rstrip().endswith("flood done")
    assert code == 0


def test_output_shows_even_if_the_service_never_returns():
    import subprocess
    from keelpy import qemu
    args = qemu.command(image("spin"), "microvm", "64M", 1, "", "tcg")
    try:
        subprocess.run(args, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=5)
        raise AssertionError("a spinning service exited")
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
    assert "spinning forever" in out
