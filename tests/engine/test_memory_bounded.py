"""A long session holds a bounded number of Playwright objects (issue 16: memory flat past
the history cap). Playwright keeps every request and response of a page alive until the
page closes; core/recycle.py gives a tab a fresh page at a goto past a bound."""

from __future__ import annotations

import asyncio
import collections

import pytest
from conftest import ok

from cockpit.core.browser import recycle
BOUND = 8  # requests a page may make before its next goto gets a fresh page (the test's)


def playwright_objects(session) -> collections.Counter:
    """Live Playwright objects of the session's connection, by type (Request, Response...)."""
    connection = session.active.page._impl_obj._connection
    return collections.Counter(type(o).__name__ for o in connection._objects.values())


async def held_requests(session, at_most: int) -> int:
    """Requests Playwright still holds, once the closed pages' objects are released."""
    for _ in range(100):  # a closed page releases its objects a moment later
        count = playwright_objects(session)["Request"]
        if count <= at_most:
            return count
        await asyncio.sleep(0.05)
    return count


@pytest.fixture
def small_bound(monkeypatch):
    monkeypatch.setattr(recycle, "RECYCLE_AFTER", BOUND)


async def test_requests_held_by_playwright_stay_bounded_over_many_gotos(s, site, small_bound):
    tab_id = s.active.id
    for i in range(40):  # each goto of /login makes requests: ~80 in all
        await ok(s, f"goto {site.url}/login?n={i}")
    # at most one page's worth: the bound, plus what the last goto and its page made
    assert await held_requests(s, 2 * BOUND + 6) <= 2 * BOUND + 6
    assert playwright_objects(s)["Response"] <= 2 * BOUND + 6
    # the same tab all along: same id, one tab, the agent sees nothing change
    assert [t.id for t in s.tabs] == [tab_id]
    assert s.active.url == f"{site.url}/login?n=39"
    network = (await ok(s, "network --filter n=39")).output
    assert "login?n=39" in network  # the fresh page's requests are still logged


async def test_a_fresh_page_keeps_session_storage_and_one_step_of_history(s, site, small_bound):
    await ok(s, f"goto {site.url}/login")
    await ok(s, "js sessionStorage.setItem('draft', 'kept')")
    while s.active.requests_seen < BOUND:
        await ok(s, f"goto {site.url}/login?more={s.active.requests_seen}")
    before = s.active.url
    old_page = s.active.page
    await ok(s, f"goto {site.url}/report")
    assert s.active.page is not old_page  # it was recycled
    assert (await ok(s, "js sessionStorage.getItem('draft')")).output == "kept"
    r = await ok(s, "back")  # the fresh page's history starts at the goto: one step back
    assert r.data["url"] == before
    await ok(s, "snapshot -i")  # refs work on the page it went back to


async def test_a_tab_holds_one_snapshot_of_its_page(s, site):
    """A snapshot of /reference (10,000 refs) is ~12 MB of nodes: a tab keeps the one its
    refs are checked against, and `snapshot -D` right after a step still shows the step's
    whole diff, not an older snapshot of each page as well."""
    import gc

    from cockpit.core.model.snapshot import Node

    def roots() -> int:
        gc.collect()
        return sum(1 for o in gc.get_objects() if isinstance(o, Node) and o.parent is None
                   and len(o.children) > 10)  # a whole page's tree (not a region's)

    await ok(s, f"goto {site.url}/reference")
    after_goto = roots()
    await ok(s, "snapshot -i")
    await ok(s, "snapshot -i")
    assert roots() == after_goto  # each snapshot replaced the last
    await ok(s, f"goto {site.url}/login")
    shown = (await ok(s, "snapshot -D")).output
    assert shown.startswith("No change since the last step, which changed:"), shown
    assert roots() <= after_goto


def held_by(obj, seen: set[int] | None = None) -> int:
    """The bytes Python holds for `obj` and everything it reaches (events, their data)."""
    import sys
    seen = set() if seen is None else seen
    if id(obj) in seen:
        return 0
    seen.add(id(obj))
    size = sys.getsizeof(obj)
    if isinstance(obj, dict):
        size += sum(held_by(k, seen) + held_by(v, seen) for k, v in obj.items())
    elif isinstance(obj, (list, tuple, collections.deque)):
        size += sum(held_by(v, seen) for v in obj)
    elif hasattr(obj, "__slots__"):
        size += sum(held_by(getattr(obj, name), seen) for name in obj.__slots__)
    return size


async def test_the_history_kept_for_viewers_is_bounded_by_what_its_events_hold(
        s, site, tmp_path, monkeypatch):
    """A viewer attaching later gets the session's past commands; the control server keeps
    them within a byte bound, which must count a result's diff: a goto of /reference holds
    ~4.7 MB in it (its output, a few hundred characters, was all that was counted)."""
    from cockpit.control import server as server_module
    monkeypatch.setattr(server_module, "COMMAND_HISTORY_BYTES", 8 << 20)
    server = server_module.ControlServer(s, workspace=tmp_path)
    await server.start()
    try:
        for i in range(4):
            await ok(s, f"goto {site.url}/reference?n={i}")
            await ok(s, f"goto {site.url}/login?n={i}")
        held = held_by(server.commands)
        assert held <= 1.25 * server_module.COMMAND_HISTORY_BYTES, held
        last = server.commands[-1]  # the newest is kept whole
        assert last.data["command"] == f"goto {site.url}/login?n=3"
        assert any(len(e.data.get("data", {}).get("diff", {}).get("changes", [])) > 10_000
                   for e in server.commands)  # and the last big page's diff with it
    finally:
        await server.close()
