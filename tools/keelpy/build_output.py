"""What a build prints while it runs: ninja's `[n/N]` progress (one line rewritten in place on a
terminal, a line at every tenth otherwise) and everything the compilers and Keel's CMake say
(warnings stay visible), without CMake's own chatter. A first build compiles the whole OS and
takes minutes: it must not look hung (issue 21)."""
import re
import subprocess
import sys

PROGRESS = re.compile(r"^\[(\d+)/(\d+)\] ")
# CMake's configure lines ("-- The C compiler identification ...", "-- Build files have been
# written to ...") and ninja's own, except Keel's (`-- Keel: configuring the OS ...`).
CHATTER = re.compile(r"^(-- (?!Keel)|ninja: (no work to do|Entering directory|Leaving directory))")
STEPS_PER_LINE = 10  # without a terminal: a progress line at every tenth of a step list,
MIN_STEPS = 50       # for lists this long (a service's own few steps go by quietly)


def run(step, out=sys.stderr):
    """Runs one configure or build step, showing its progress and messages on `out`; returns
    its exit status (its errors were shown as they came)."""
    progress = Progress(out)
    with subprocess.Popen(step, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          errors="replace") as process:
        for line in process.stdout:
            found = PROGRESS.match(line)
            if found:
                progress.show(int(found[1]), int(found[2]), line.rstrip("\n"))
            elif not CHATTER.match(line):
                progress.clear()
                out.write(line)
        status = process.wait()
    progress.clear()
    return status


class Progress:
    def __init__(self, out):
        self.out = out
        self.terminal = out.isatty()
        self.shown = False
        self.next_tenth = {}

    def show(self, done, total, line):
        if self.terminal:
            self.out.write("\r\033[K" + line[:150])
            self.shown = True
        elif total >= MIN_STEPS and (done >= self.next_tenth.get(total, 0) or done == total):
            self.out.write(f"keel: building {done}/{total}\n")
            self.next_tenth[total] = done + max(1, total // STEPS_PER_LINE)
        self.out.flush()

    def clear(self):
        if self.shown:
            self.out.write("\r\033[K")
            self.out.flush()
            self.shown = False
