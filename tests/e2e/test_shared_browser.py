"""Sessions on one shared browser (core/browser/shared.py): each in a context of its own
(cookies, pages, refs apart), one Chromium for all of them, a session that closes takes
only its context, and a browser that dies comes back for the sessions still on it."""

from __future__ import annotations

import asyncio
import os
import signal
import uuid

from conftest import ok, page, ref_of

from cockpit.core import Session, SharedBrowser

PAGE_A = page("shared-a", "<button>Alpha</button><input aria-label='Name'>")
PAGE_B = page("shared-b", "<a href='#x'>Bravo link</a>")


def name() -> str:
    return f"shared-{uuid.uuid4().hex[:6]}"


def chromium_browsers(root: int | None = None) -> set[int]:
    """The pids of the browser processes (not renderers or helpers) under process `root`
    (this one's by default)."""
    root = os.getpid() if root is None else root
    procs = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
            with open(f"/proc/{pid}/stat") as f:
                ppid = int(f.read().rpartition(")")[2].split()[1])
        except OSError:
            continue
        procs[int(pid)] = (ppid, argv)

    def ours(pid: int) -> bool:
        while pid > 1 and pid in procs:
            if pid == root:
                return True
            pid = procs[pid][0]
        return False

    # Chromium's helpers rewrite their command line as one string: `--type=` anywhere
    return {pid for pid, (_, argv) in procs.items() if b"chrom" in argv[0]
            and b"--type=" not in b" ".join(argv) and ours(pid)}


async def test_sessions_on_one_browser_keep_apart_and_outlive_each_other(base):
    shared = SharedBrowser()
    a, b = Session(name(), shared=shared), Session(name(), shared=shared)
    before = chromium_browsers()
    try:
        await a.start()
        await b.start()
        assert shared.launches == 1 and a.playwright is b.playwright
        assert len(chromium_browsers() - before) == 1  # one Chromium for both sessions
        assert "shared with other sessions" in a.status()["browser"]
        assert a.status()["profile"] is None  # no profile on disk: nothing kept after

        await ok(a, f"goto {base}{PAGE_A}")
        await ok(b, f"goto {base}{PAGE_B}")
        await ok(a, "js document.cookie = 'who=alpha; path=/'")
        await ok(a, "snapshot -i")
        await ok(b, "snapshot -i")
        alpha = ref_of(a, "button", "Alpha")
        assert ref_of(b, "link", "Bravo") and "Bravo" not in a.active.snapshot.raw
        assert (await ok(b, "js document.cookie")).output.strip() in ("", '""')
        assert (await ok(a, "url")).output.endswith(PAGE_A)
        assert (await ok(b, "url")).output.endswith(PAGE_B)

        await b.close()  # its context only: a's page and refs go on
        await ok(a, f"click {alpha}")

        # the shared browser killed: a's context is relaunched on a new one, with its tab
        (pid,) = chromium_browsers() - before
        os.kill(pid, signal.SIGKILL)
        for _ in range(100):  # its context's close event comes from the driver
            if a.recovery.pending:
                break
            await asyncio.sleep(0.1)
        result = await ok(a, "js location.href")
        assert result.output.endswith(PAGE_A) and "relaunched" in result.text
        assert shared.launches == 2
    finally:
        await a.close()
        await b.close()
        await shared.close()
    assert not chromium_browsers() - before


async def test_a_shared_browser_hands_over_in_the_terminal(base, monkeypatch):
    monkeypatch.setenv("DISPLAY", ":404")  # a display would be there: still no window
    shared = SharedBrowser()
    try:
        async with Session(name(), shared=shared) as session:
            await ok(session, f"goto {base}{PAGE_A}")
            handed = await ok(session, "handoff check it")
            assert "shared with other sessions" in handed.output
            assert session.handoff.mode == "terminal" and not session.headed
            await ok(session, "resume")
            # a relaunch for emulation is a new context on the same shared browser
            await ok(session, 'device "iPhone 13"')
            assert "iPhone" in (await ok(session, "js navigator.userAgent")).output
            assert (await ok(session, "url")).output.endswith(PAGE_A)
            assert shared.launches == 1
    finally:
        await shared.close()
