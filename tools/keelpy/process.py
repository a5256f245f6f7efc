"""Runs the guest (QEMU, or a service's Linux process) in the foreground and makes sure it
ends with keel: on --timeout, on Ctrl-C and on SIGTERM alike. A QEMU left running would keep
its TAP device open (no other guest could attach to it) and its forwarded ports bound."""
import signal
import subprocess
import sys
from collections import namedtuple

TIMED_OUT = 124      # as timeout(1)
INTERRUPTED = 130    # 128 + SIGINT, as a shell reports Ctrl-C
TERMINATED = 143     # 128 + SIGTERM
GRACE_SECONDS = 5    # for the guest to end on SIGTERM before it is killed


# status: the child's exit status; stopped: None when it ended by itself, else the status
# keel reports because it stopped it (TIMED_OUT, INTERRUPTED or TERMINATED). Kept apart: a
# child's own status may be any number (QEMU's 143 is a guest's code 70).
Outcome = namedtuple("Outcome", "status stopped")


class Stopped(Exception):
    """keel itself got SIGTERM."""


def _on_sigterm(signum, frame):
    raise Stopped()


def run(args, timeout=None, on_timeout=None):
    """Runs `args` with our stdout until it ends or must be stopped; returns an Outcome
    (on_timeout() is called first when --timeout stops it)."""
    previous = signal.signal(signal.SIGTERM, _on_sigterm)
    child = None
    try:
        # Its own process group: Ctrl-C reaches keel alone, which then stops the guest once
        # and in order, instead of both racing to exit.
        child = subprocess.Popen(args, stdin=subprocess.DEVNULL, start_new_session=True)
        return Outcome(child.wait(timeout=timeout), None)
    except subprocess.TimeoutExpired:
        if on_timeout:
            on_timeout()
        return Outcome(None, TIMED_OUT)
    except KeyboardInterrupt:
        print("keel: interrupted; stopped the guest", file=sys.stderr, flush=True)
        return Outcome(None, INTERRUPTED)
    except Stopped:
        print("keel: got SIGTERM; stopped the guest", file=sys.stderr, flush=True)
        return Outcome(None, TERMINATED)
    finally:
        # From here on a second Ctrl-C or SIGTERM must not leave the guest behind.
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        original_sigint = signal.signal(signal.SIGINT, signal.SIG_IGN)
        if child is not None:
            stop(child)
        signal.signal(signal.SIGINT, original_sigint)
        signal.signal(signal.SIGTERM, previous)


def stop(child):
    """SIGTERM (QEMU exits at once and closes its TAP), then SIGKILL if it lingers."""
    if child.poll() is not None:
        return
    child.terminate()
    try:
        child.wait(timeout=GRACE_SECONDS)
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait()
