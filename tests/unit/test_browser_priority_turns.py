"""Setting a browser's priority waits its turn: the kernel takes one autogroup change a
tenth of a second from an unprivileged user, and ten sessions start together."""

from __future__ import annotations

import cockpit.core.browser.processes as processes


def test_a_change_the_kernel_is_too_busy_for_is_tried_again(monkeypatch):
    tries: list[tuple[int, str, int]] = []

    def busy_twice(pid: int, mark: str, nice: int) -> None:
        tries.append((pid, mark, nice))
        if len(tries) < 3:
            raise BlockingIOError(11, "Resource temporarily unavailable")

    slept: list[float] = []
    monkeypatch.setattr(processes, "pids_with", lambda mark: [4242])
    monkeypatch.setattr(processes, "_set", busy_twice)
    monkeypatch.setattr(processes.time, "sleep", slept.append)
    processes.set_priority("--cockpit-browser=x", 10)
    assert tries == [(4242, "--cockpit-browser=x", 10)] * 3
    assert len(slept) == 2 and all(0.1 <= s <= 0.2 for s in slept)


def test_a_change_refused_for_good_is_logged_and_the_browser_runs_as_it_was(monkeypatch,
                                                                            caplog):
    def refused(pid: int, mark: str, nice: int) -> None:
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(processes, "pids_with", lambda mark: [4242])
    monkeypatch.setattr(processes, "_set", refused)
    with caplog.at_level("INFO", logger=processes.log.name):
        processes.set_priority("--cockpit-browser=x", 10)
    assert "was not set" in caplog.text


def test_cockpit_browser_nice_is_read_and_bounded(monkeypatch):
    for given, nice in (("", 10), ("0", 0), ("5", 5), ("40", 19), ("-3", 0), ("x", 10)):
        monkeypatch.setenv("COCKPIT_BROWSER_NICE", given)
        assert processes.background_nice() == nice, given


def test_the_latest_asked_wins_whichever_thread_runs_last(monkeypatch):
    """A handoff in the terminal right after the launch: the person's 0 is asked after the
    launch's 10, but the launch's thread may run last; it sets what was asked last."""
    written: list[int] = []
    monkeypatch.setattr(processes, "pids_with", lambda mark: [4242])
    monkeypatch.setattr(processes, "_set", lambda pid, mark, nice: written.append(nice))
    monkeypatch.setitem(processes._wanted, "--cockpit-browser=y", 0)  # the person's, asked last
    processes.set_priority("--cockpit-browser=y", 10)  # the launch's thread, run late
    assert written == [0]
