"""Handoff and resume on a real browser: headless -> a visible window (under Xvfb) -> headless,
with tabs, cookies, storage and scroll kept, and agents waiting meanwhile."""

from __future__ import annotations

import asyncio
import json


from cockpit.core import Session
from cockpit.core.base import events as ev
from conftest import ok, to_the_mfa_code

IDB_PUT = """(value) => new Promise((done, fail) => {
  const open = indexedDB.open("cockpit-test", 1);
  open.onupgradeneeded = () => open.result.createObjectStore("kept");
  open.onerror = () => fail(open.error);
  open.onsuccess = () => {
    const tx = open.result.transaction("kept", "readwrite");
    tx.objectStore("kept").put(value, "key");
    tx.oncomplete = () => { open.result.close(); done(true); };
  };
})"""
IDB_GET = """() => new Promise((done) => {
  const open = indexedDB.open("cockpit-test", 1);
  open.onupgradeneeded = () => open.result.createObjectStore("kept");
  open.onsuccess = () => {
    const get = open.result.transaction("kept").objectStore("kept").get("key");
    get.onsuccess = () => { open.result.close(); done(get.result ?? null); };
  };
})"""
STORAGE = "() => [localStorage.getItem('ls'), sessionStorage.getItem('ss'), Math.round(scrollY)]"


async def _three_tabs(session: Session, site) -> None:
    await ok(session, f"goto {site.url}/reference")
    first = session.active.page
    await first.evaluate("() => { localStorage.setItem('ls', 'L1'); "
                         "sessionStorage.setItem('ss', 'S1'); window.scrollTo(0, 1500); }")
    await first.evaluate(IDB_PUT, "I1")
    await ok(session, f"newtab {site.url}/playground")
    await session.active.page.evaluate("() => sessionStorage.setItem('ss', 'S2')")
    await ok(session, f"newtab {site.url}/")
    await ok(session, "tab 2")
    await session.context.add_cookies([{"name": "sid", "value": "secret-1", "url": site.url,
                                        "httpOnly": True}])  # a session cookie


async def _assert_kept(session: Session, site, active: int = 2) -> None:
    assert [t.url for t in session.tabs][:3] == [f"{site.url}/reference",
                                                 f"{site.url}/playground", f"{site.url}/"]
    assert session.active.index == active
    cookies = {c["name"]: c for c in await session.context.cookies()}
    assert cookies["sid"]["value"] == "secret-1" and cookies["sid"]["httpOnly"]
    first, second = session.tabs[0].page, session.tabs[1].page
    ls, ss, scroll = await first.evaluate(STORAGE)
    assert (ls, ss) == ("L1", "S1") and abs(scroll - 1500) < 5
    assert await first.evaluate(IDB_GET) == "I1"
    assert (await second.evaluate(STORAGE))[:2] == ["L1", "S2"]
    assert (await session.tabs[2].page.evaluate(STORAGE))[1] is None  # its own, empty


async def test_state_round_trip_with_three_tabs(fresh, site, display):
    s = fresh
    await _three_tabs(s, site)
    ids = [t.id for t in s.tabs]
    result = await ok(s, 'handoff "check the state"')
    assert "visible window" in result.output and "3 tab(s), tab 2 in front" in result.output
    assert s.headed and not s.plan.headless and s.agents_held
    assert [t.id for t in s.tabs] == ids  # the same tabs, not new ones
    await _assert_kept(s, site)
    # the human, in the window: opens a tab and gets a cookie from a page
    human = await s.context.new_page()
    await human.goto(f"{site.url}/report")
    await s.tabs[0].page.evaluate("() => { document.cookie = 'human=yes; path=/'; }")
    await s.run("tab 2")  # (the human clicked back on tab 2)
    result = await ok(s, "resume")
    assert not s.headed and s.plan.headless and s.agents_held is None
    await _assert_kept(s, site)
    assert [t.url for t in s.tabs][3] == f"{site.url}/report"
    cookies = {c["name"]: c["value"] for c in await s.context.cookies()}
    assert cookies["human"] == "yes"
    assert "Cookies: new human" in result.output
    assert f"{site.url}/report" in result.output  # the tab the human opened is reported
    kinds = [e.kind for e in s.events]
    assert kinds.index(ev.HANDOFF) < kinds.index(ev.RESUMED)
    # the restored sessionStorage was put back once: a page that empties it and reloads
    # gets it empty (the restore script was removed after its load)
    first = s.tabs[0].page
    await first.evaluate("() => sessionStorage.clear()")
    await first.reload()
    assert (await first.evaluate(STORAGE))[1] is None


async def test_agent_waits_during_handoff_and_gets_the_diff(fresh, site, display):
    s = fresh
    await ok(s, f"goto {site.url}/login")
    await ok(s, "handoff log in for me")
    waiting = asyncio.ensure_future(s.run("url", source="agent"))
    typed = await s.run("title", source="human")  # the human's own commands still run
    assert typed.ok
    await asyncio.sleep(0.5)
    assert not waiting.done(), "an agent's command ran while the human had control"
    # the human logs in (in the window)
    page = s.active.page
    await page.fill("input[name=email]", "jane@example.com")
    await page.fill("input[name=password]", "cockpit-demo")
    await page.click("button[type=submit]")
    await page.wait_for_url("**/mfa")
    await ok(s, "resume")
    result = await asyncio.wait_for(waiting, 30)
    assert result.ok, result.error
    assert "The human had control" in result.output and "/mfa" in result.output
    note = result.data["handoff"]
    assert note["reason"] == "log in for me" and note["human_commands"] == 1
    # what they did in the window, captured, by role and name (never a value typed)
    assert note["human_actions"][-1] == 'clicked button "Sign in"', note["human_actions"]
    assert 'What they did in the page: ' in result.output
    assert "cockpit-demo" not in result.output
    assert note["diff"]["url"] == [f"{site.url}/login", f"{site.url}/mfa"]
    assert "textbox" in note["snapshot"]  # a fresh snapshot, with refs to use
    # told once: the next command is plain
    again = await s.run("url", source="agent")
    assert "handoff" not in again.data and "The human had control" not in again.output


async def test_first_agent_command_with_old_refs_is_refused(fresh, site, display):
    s = fresh
    await ok(s, f"goto {site.url}/login")
    await ok(s, "snapshot -i")
    await ok(s, "handoff")
    waiting = asyncio.ensure_future(s.run("click @e3", source="agent"))
    await asyncio.sleep(0.2)
    await ok(s, "resume")
    result = await asyncio.wait_for(waiting, 30)
    assert not result.ok and result.exit_code == 1
    assert "refs are void" in result.error and "Tab 1 now (refs from before" in result.output



async def test_a_refused_stale_command_carries_the_handoff_note(fresh, site, monkeypatch):
    """The refusal keeps what changed in `data["handoff"]`, as the plain reply does: an agent
    reading `--json` or the socket gets the note and the fresh refs, not just an error."""
    s = fresh
    monkeypatch.delenv("DISPLAY", raising=False)  # a terminal handoff: no window needed
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    await ok(s, f"goto {site.url}/login")
    await ok(s, "snapshot -i")
    await ok(s, "handoff check the form")
    waiting = asyncio.ensure_future(s.run("click @e3", source="agent"))
    await asyncio.sleep(0.2)
    await ok(s, "resume")
    result = await asyncio.wait_for(waiting, 30)
    assert not result.ok and "refs are void" in result.error
    note = result.data["handoff"]
    assert note["reason"] == "check the form" and "textbox" in note["snapshot"]
    reply = json.loads(json.dumps(result.to_json()))  # what `--json` and the socket send
    assert reply["data"]["handoff"]["reason"] == "check the form"
    assert isinstance(reply["ms"], float)

async def test_closing_the_window_resumes(fresh, site, display):
    s = fresh
    await ok(s, f"goto {site.url}/playground")
    await ok(s, "handoff")
    await asyncio.sleep(1.3)  # the window's state is saved every second
    await s.context.close()  # as when the human closes the browser window
    for _ in range(100):
        if any(e.kind == ev.RESUMED for e in s.events):
            break
        await asyncio.sleep(0.1)
    assert any(e.kind == ev.RESUMED for e in s.events)
    assert not s.headed and s.agents_held is None
    assert (await ok(s, "url")).output == f"{site.url}/playground"


async def test_failed_window_leaves_the_session_working(fresh, site, monkeypatch):
    s = fresh
    await ok(s, f"goto {site.url}/playground")
    monkeypatch.setenv("DISPLAY", ":1999")  # no X server there
    result = await s.run("handoff")
    assert not result.ok and "no X server answers on DISPLAY=:1999" in result.error
    assert "handoff --terminal" in result.error
    assert not s.headed and s.agents_held is None and not s.handoff.active
    assert (await ok(s, "url")).output == f"{site.url}/playground"


async def test_a_launch_that_fails_relaunches_headless(fresh, site, display, monkeypatch):
    s = fresh
    await ok(s, f"goto {site.url}/playground")
    await s.active.page.evaluate("() => sessionStorage.setItem('ss', 'kept')")
    import cockpit.core.browser.relaunch as relaunch_module
    real = relaunch_module.launch

    async def failing(playwright, plan, options=None):  # options: the session's emulation
        if not plan.headless:
            from cockpit.core.base.errors import BrowserNotFoundError
            raise BrowserNotFoundError("could not start chromium (headed): boom")
        return await real(playwright, plan, options)

    monkeypatch.setattr(relaunch_module, "launch", failing)
    result = await s.run("handoff")
    assert not result.ok and "boom" in result.error and "runs as before" in result.error
    assert not s.headed and s.agents_held is None
    assert (await ok(s, "url")).output == f"{site.url}/playground"
    assert await s.active.page.evaluate("() => sessionStorage.getItem('ss')") == "kept"


async def test_no_display_hands_off_in_the_terminal(fresh, site, monkeypatch):
    s = fresh
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    await ok(s, f"goto {site.url}/playground")
    result = await ok(s, "handoff type the code")
    assert "no display here" in result.output and "typed commands" in result.output
    assert not s.headed and s.handoff.mode == "terminal" and s.agents_held
    assert "control: the human (type the code; terminal)" in (await ok(s, "status")).output
    await ok(s, f"goto {site.url}/")  # the human drives from the prompt
    waiting = asyncio.ensure_future(s.run("url", source="agent", timeout=0.3))
    timed_out = await waiting
    assert timed_out.exit_code == 4 and "the human has control" in timed_out.error
    result = await ok(s, "resume")
    assert "playground" in result.output and s.agents_held is None


async def test_three_failures_in_a_row_suggest_a_handoff(fresh, site):
    s = fresh
    await ok(s, f"goto {site.url}/playground")
    errors = [(await s.run("click '#missing-button'", source="agent")).error for _ in range(3)]
    assert "handoff" not in errors[0] and "handoff" not in errors[1]
    assert "3 commands in a row have failed" in errors[2] and "handoff" in errors[2]
    assert [e.data["need"] for e in s.events if e.kind == ev.NEEDS_HUMAN] == ["stuck"]
    assert (await s.run("url", source="agent")).ok
    fourth = await s.run("click '#missing-button'", source="agent")
    assert "in a row" not in fourth.error  # the streak starts again after a success


async def test_resume_without_handoff_says_how(fresh):
    result = await fresh.run("resume")
    assert not result.ok and "`handoff [REASON]`" in result.error


async def test_an_agent_command_queued_behind_a_human_one_still_waits(fresh, site):
    s = fresh
    await ok(s, f"goto {site.url}/playground")
    slow = asyncio.ensure_future(s.run("js 'new Promise(r => setTimeout(r, 400))'"))
    await asyncio.sleep(0.05)
    agent = asyncio.ensure_future(s.run("url", source="agent"))
    await asyncio.sleep(0.05)
    s.hold_agents("the human has control: a test", "handoff")  # while it queued
    assert (await slow).ok
    await asyncio.sleep(0.3)
    assert not agent.done(), "a queued agent command slipped past the hold"
    s.release_agents("handoff")
    assert (await asyncio.wait_for(agent, 10)).ok


async def test_auto_handoff_at_a_challenge_and_auto_resume_once_solved(fresh, site,
                                                                        monkeypatch):
    s = fresh
    monkeypatch.delenv("DISPLAY", raising=False)  # the terminal handoff: no relaunch
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    s.handoff.auto_handoff = s.handoff.auto_resume = True
    await to_the_mfa_code(s, site)
    result = await ok(s, "click 'button[type=submit]'")  # to the challenge
    assert result.data["needs"] == "captcha" and "needs: captcha" in result.output
    for _ in range(50):
        if s.handoff.active:
            break
        await asyncio.sleep(0.1)
    assert s.handoff.active and s.handoff.reason.startswith("needs: captcha")
    await ok(s, f"fill '#answer' {site.captcha_answer}")  # the human, from the prompt
    await ok(s, "click 'button[type=submit]'")
    for _ in range(60):
        if not s.handoff.active:
            break
        await asyncio.sleep(0.1)
    assert not s.handoff.active and s.agents_held is None
    resumed = [e for e in s.events if e.kind == ev.RESUMED]
    assert resumed and resumed[-1].data["tabs_after"] == [f"{site.url}/inbox"]


async def test_resume_from_outside_is_not_held_like_an_agent_command(fresh, site,
                                                                      monkeypatch):
    s = fresh
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    await ok(s, "handoff --terminal")
    # `cockpit exec resume` arrives as an agent's command: it must not wait for itself
    result = await asyncio.wait_for(s.run("resume", source="agent"), 10)
    assert result.ok and s.agents_held is None


async def test_closing_the_window_of_a_headed_session_gives_it_a_window_again(site,
                                                                            display):
    s = Session("handoff-headed", headed=True)
    await s.start()
    events = []
    s.bus.subscribe(events.append)
    try:
        await ok(s, f"goto {site.url}/playground")
        await ok(s, "handoff")
        assert s.handoff.mode == "headed"
        await asyncio.sleep(1.3)
        await s.context.close()  # the human closes the only window
        for _ in range(100):
            if any(e.kind == ev.RESUMED for e in events):
                break
            await asyncio.sleep(0.1)
        assert any(e.kind == ev.RESUMED for e in events) and s.agents_held is None
        assert s.headed and (await ok(s, "url")).output == f"{site.url}/playground"
    finally:
        await s.close()
