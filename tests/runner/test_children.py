"""The `runner` process's Ctrl-C: the first stops the command, a second one during that stop is ignored (it would
cut short the recording and the removal of the scratch), and an ignored SIGINT stays ignored."""

from __future__ import annotations

import signal
import subprocess
import sys

SCRIPT = """
import os, signal, time
from runner.children import first_interrupt_only
first_interrupt_only()
try:
    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(0.5)  # the handler runs at once, ending the sleep
    print("first not raised")
except KeyboardInterrupt:
    print("stopping")
os.kill(os.getpid(), signal.SIGINT)  # while the stop winds down
print("wound down")
"""


def test_a_second_ctrl_c_does_not_cut_the_stop_short() -> None:
    done = subprocess.run([sys.executable, "-c", SCRIPT], check=False, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["stopping", "wound down"]


def test_an_ignored_ctrl_c_stays_ignored() -> None:
    done = subprocess.run([sys.executable, "-c", SCRIPT], check=False, capture_output=True, text=True, timeout=60,
                          preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["first not raised", "wound down"]
