"""Tabs, dialogs (a modal state), cookies, storage, saved state, viewport, user agent,
and the meta commands, on the real browser."""

import json

from conftest import fails, ok, page, ref_of
from test_navigate_read import login


async def test_tabs_open_switch_and_close(s, site):
    await ok(s, f"goto {site.url}/")
    r = await ok(s, f"newtab {site.url}/report")
    assert r.data["tab"]["index"] == 2 and s.active.index == 2
    listing = (await ok(s, "tabs")).output.splitlines()
    assert listing[0].startswith(" 1 ") and listing[1].startswith("*2 Weekly report")
    await ok(s, "tab 1")
    assert s.active.url == f"{site.url}/"
    r = await fails(s, "tab 7")
    assert "there is no tab 7" in r.error and "1 to 2" in r.error
    r = await ok(s, "closetab 2")
    assert len(s.tabs) == 1 and "closed tab 2" in r.output


async def test_closing_the_last_tab_leaves_a_blank_one(s, site):
    await ok(s, "closetab")
    assert len(s.tabs) == 1 and s.active.url == "about:blank"
    await ok(s, f"goto {site.url}/")


async def test_link_that_opens_a_new_tab_is_reported(s, site):
    await login(s, site)
    await ok(s, "snapshot -i")
    r = await ok(s, f"click {ref_of(s, 'link', 'Open report')}")
    assert "opened tab 2" in r.output and "`tab 2`" in r.output
    await ok(s, "tab 2")
    await ok(s, "wait --load")
    assert "Weekly report" in (await ok(s, "snapshot -i")).output


async def test_switching_to_a_popup_still_loading_waits_for_its_document(s, base):
    """A popup whose page is still arriving: `tab 2` waits until its document is parsed,
    so the next command sees the page (it found an empty one: a replay's step failed)."""
    page("tabs_late", "<p>Late, but whole</p><button>Approve</button>")
    opener = page("tabs_opener", "<button onclick=\"window.open('/tabs_late?stall=1500')\">"
                  "Review</button>")
    await ok(s, f"goto {base}{opener}")
    await ok(s, "snapshot -i")
    r = await ok(s, f"click {ref_of(s, 'button', 'Review')}")
    assert "opened tab 2" in r.output
    r = await ok(s, "tab 2")
    assert "tabs_late" in r.output
    assert 'button "Approve"' in (await ok(s, "snapshot -i")).output
    await ok(s, "closetab 2")


async def test_confirm_dialog_is_a_modal_state(s, site):
    await login(s, site)
    await ok(s, "snapshot -i")
    delete = ref_of(s, "button", "Delete all")
    r = await ok(s, f"click {delete}")
    assert "confirm dialog opened" in r.output and "Delete all messages?" in r.output
    assert r.data["dialog"]["type"] == "confirm"
    refused = await fails(s, "snapshot")
    assert "dialog is open" in refused.error and "dialog accept" in refused.error
    assert (await ok(s, "tabs")).ok  # commands that do not touch the page still run
    r = await ok(s, "dialog dismiss")
    assert r.output.splitlines()[0] == "dismissed the confirm"  # its message was said
    assert r.data["dialog"]["message"] == "Delete all messages?"
    assert "Archive" in (await ok(s, "snapshot -i")).output  # nothing was deleted
    await ok(s, f"click {delete}")
    r = await ok(s, "dialog accept")
    assert r.data["diff"]["removed"] >= 4  # the rows are gone, shown in the diff
    history = (await ok(s, "dialogs")).output
    assert "-> dismissed" in history and "-> accepted" in history


async def test_prompt_and_alert_dialogs(s, site):
    await ok(s, f"goto {site.url}/playground")
    await ok(s, "snapshot -i")
    await ok(s, f"click {ref_of(s, 'button', 'Ask name')}")
    await ok(s, 'dialog accept "Ada"')
    assert (await ok(s, "text #prompt-result")).output.strip().endswith("Ada")
    r = await ok(s, f"click {ref_of(s, 'button', 'Show alert')}")
    assert "alert dialog opened" in r.output
    await ok(s, "dialog accept")
    r = await fails(s, "dialog accept")
    assert "no dialog is open" in r.error


async def test_cookies_list_set_clear(s, site):
    await login(s, site)
    listing = await ok(s, "cookies")
    session_cookie = next(c for c in listing.data["cookies"] if c["httpOnly"])
    assert "[HttpOnly]" in listing.output and session_cookie["name"] in listing.output
    await ok(s, "cookies set theme dark")
    assert (await ok(s, "js document.cookie")).output.count("theme=dark") == 1
    r = await fails(s, "cookies set onlyname")
    assert r.exit_code == 2 and "NAME and VALUE" in r.error
    await ok(s, "cookies clear")
    assert (await ok(s, "cookies")).output == "(no cookies)"


async def test_storage_local_and_session(s, site):
    await ok(s, f"goto {site.url}/report")
    await ok(s, "storage set token abc123")
    assert (await ok(s, "js localStorage.getItem('token')")).output == "abc123"
    assert "token=abc123" in (await ok(s, "storage")).output
    await ok(s, "storage set step 2 --session")
    assert (await ok(s, "js sessionStorage.getItem('step')")).output == "2"
    await ok(s, "storage clear")
    assert (await ok(s, "storage")).output == "(localStorage is empty)"
    await ok(s, "goto about:blank")
    r = await fails(s, "storage")
    assert "open a web page" in r.error


async def test_state_save_and_load_round_trip(s, site, tmp_path):
    await login(s, site)
    await ok(s, "storage set remembered yes")
    path = tmp_path / "state.json"
    r = await ok(s, f"state save {path}")
    saved = json.loads(path.read_text())
    assert saved["cookies"] and r.data["cookies"] == len(saved["cookies"])
    await ok(s, "cookies clear")
    await ok(s, "storage clear")
    await ok(s, f"goto {site.url}/inbox")
    assert s.active.url.endswith("/login")  # logged out
    await ok(s, f"state load {path}")
    await ok(s, f"goto {site.url}/inbox")
    assert s.active.url.endswith("/inbox")  # the session cookie came back
    assert (await ok(s, "js localStorage.getItem('remembered')")).output == "yes"
    bad = tmp_path / "bad.json"
    bad.write_text("{nope")
    r = await fails(s, f"state load {bad}")
    assert r.exit_code == 2 and "is not JSON" in r.error


async def test_viewport_and_useragent(s, site):
    await ok(s, f"goto {site.url}/report")
    await ok(s, "viewport 400 700")
    assert (await ok(s, "js innerWidth")).output == "400"
    r = await fails(s, "viewport 5 5")
    assert r.exit_code == 2
    await ok(s, 'useragent "CockpitTest/1.0"')
    await ok(s, "reload")
    assert (await ok(s, "js navigator.userAgent")).output == "CockpitTest/1.0"
    await ok(s, "useragent")
    assert "CockpitTest" not in (await ok(s, "js navigator.userAgent")).output
    await ok(s, "viewport 1280 800")


async def test_chain_runs_in_order_and_stops_at_the_first_failure(s, site):
    r = await ok(s, f'chain "goto {site.url}/report" "title"')
    assert len(r.data["steps"]) == 2 and "Weekly report" in r.output
    r = await fails(s, f"chain goto {site.url}/ ; click '#missing-thing' ; title")
    assert "chain stopped at step 2 of 3" in r.error
    assert len(r.data["steps"]) == 2
    r = await fails(s, "chain title ; clik")
    assert r.exit_code == 2 and "unknown command 'clik'" in r.error


async def test_help_and_status(s, site):
    r = await ok(s, "help")
    assert "Interact:" in r.output and len(r.data["commands"]) >= 50
    r = await ok(s, "help snapshot")
    assert r.output.startswith("snapshot [-i|--interactive]") and "-D|--diff" in r.output
    r = await fails(s, "help clik")
    assert "did you mean click" in r.error
    r = await ok(s, "status")
    assert r.data["session"] == "tests" and r.data["tabs"] == 1 and "headless" in r.output


async def test_events_follow_commands_tabs_console_and_dialogs(s, site):
    seen = []
    unsubscribe = s.bus.subscribe(lambda e: seen.append(e))
    try:
        await ok(s, f"goto {site.url}/playground")
        await ok(s, "snapshot -i")
        await ok(s, f"click {ref_of(s, 'button', 'Log to console')}")
        await ok(s, f"newtab {site.url}/report")
        await ok(s, "closetab")
    finally:
        unsubscribe()
    kinds = [e.kind for e in seen]
    for kind in ("command.queued", "command.started", "command.finished", "navigation",
                 "console", "tab.opened", "tab.changed", "tab.closed", "snapshot"):
        assert kind in kinds, kind
    finished = [e for e in seen if e.kind == "command.finished"]
    assert finished[0].data["command"].startswith("goto") and finished[0].data["ok"]
    assert {e.data["source"] for e in finished} == {"human"}


async def test_a_user_agent_no_header_can_carry_is_refused_and_not_kept(s):
    """A control character (as a fuzzed or pasted line may hold) is refused at once; it is
    not kept either, so tabs opened later do not each fail on it in the background."""
    result = await s.run("useragent bad\x07agent")
    assert not result.ok and "control characters" in result.error
    assert s.user_agent is None
    opened = await s.run("newtab about:blank")
    assert opened.ok, opened.error
    await s.run("closetab")
