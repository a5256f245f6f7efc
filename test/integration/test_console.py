"""The console never blocks the service (decision 0114): a write that finds
the 64 KiB ring full is dropped whole and counted, one line reports the gap
where it is, and what panics and exit print still arrives."""
import re

from conftest import boot, image

NOTICE = re.compile(r"^Keel: console dropped (\d+) bytes \((\d+) writes\)", re.M)


def test_console_flood_arrives_whole_in_order_and_every_gap_is_reported():
    """1.2 MB at once: whatever the reader's pace, lines arrive whole and in
    order, and every gap is one notice that counts exactly what is missing
    (with a reader as fast as this one, usually none)."""
    code, out = boot(image("flood"), timeout=120)
    line_size = len("line 00000 of the console flood test, 60 bytes long.....\n")
    done = "flood done\n"
    expected = 0  # the next line number; "flood done" is number 20000
    for m in re.finditer(r"^line (\d{5}) of the console flood test|" + NOTICE.pattern, out, re.M):
        if m.group(1) is not None:
            assert int(m.group(1)) == expected
            expected += 1
            continue
        # A notice: the writes it counts are exactly the lines missing here.
        dropped_bytes, writes = int(m.group(2)), int(m.group(3))
        expected += writes
        last_dropped = expected == 20000 + 1
        assert dropped_bytes == (writes - last_dropped) * line_size + last_dropped * len(done)
    if out.rstrip().endswith("flood done"):
        assert expected == 20000
    else:
        assert expected == 20000 + 1  # dropped, and counted by the last notice
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
