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
