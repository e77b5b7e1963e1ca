"""The agents of bench_watch.py, in a process of their own: python watch_agents.py URL NAME...

Each named session is driven by a loop of `cockpit exec goto` over the demo's pages, with no
pause between commands, until this process is killed.
"""

from __future__ import annotations

import subprocess
import sys
import threading


def drive(url: str, name: str) -> None:
    pages = ["/", "/reference", "/playground"]
    i = 0
    while True:
        subprocess.run([sys.executable, "-m", "cockpit", "exec", "--session", name, "goto",
                        url + pages[i % 3]], capture_output=True, timeout=60)
        i += 1


if __name__ == "__main__":
    for name in sys.argv[2:]:
        threading.Thread(target=drive, args=(sys.argv[1], name)).start()
