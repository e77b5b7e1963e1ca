"""Issue 29's "Done when", on the demo site itself: its inbox's API mocked (in the page and
in the diff), and an agent's click on its "Delete all" under `--confirm click:*Delete*`
denied through `cockpit exec --human` and approved in the TUI, with the recording showing
both. (The rest of the list is proven in test_network, test_emulation,
tests/e2e/test_network_relaunch, test_network_viewport and test_policy_*.)"""

from __future__ import annotations

import asyncio
import json

from test_navigate_read import login
from test_policy_confirm import cockpit_exec, waiting_for
from test_tui import app_for, until

from cockpit.client import AsyncCockpit
from cockpit.tui.confirm import ConfirmNotice

from conftest import ok, ref_of

MOCKED = {"version": 10 ** 9, "count": 1, "archive_label": "Archive",
          "messages": [{"id": 4242, "sender": "Mocked Sender", "subject": "From the route"}]}


async def test_the_inbox_api_mocked_shows_in_the_page_and_in_the_diff(s, site):
    await login(s, site)
    await ok(s, f"route **/api/check-mail --body '{json.dumps(MOCKED)}'")
    try:
        await ok(s, "snapshot -i")
        result = await ok(s, f"click {ref_of(s, 'button', 'Check for new mail')}")
        assert "From the route" in result.output, result.output  # the diff
        assert "1 message" in result.output, result.output
        assert "Mocked Sender" in await s.active.page.inner_text("#messages")
    finally:
        await ok(s, "unroute")


async def test_delete_all_waits_for_a_person_denied_by_exec_approved_in_the_tui(
        s, site, live, tmp_path):
    from cockpit.record.reader import read
    from cockpit.record.recorder import Recorder
    await login(s, site)
    await ok(s, "snapshot -i")
    delete = ref_of(s, "button", "Delete all")
    before = await s.active.page.inner_text("#count")
    s.policy.approvals.require(["click:*Delete*"], s.registry)
    recorder = Recorder(s, tmp_path / "delete-all.jsonl").start()
    try:
        async with AsyncCockpit(socket_path=str(live.socket)) as agent:
            click = asyncio.ensure_future(agent.run(f"click {delete}"))
            await waiting_for(s)
            await asyncio.sleep(0.3)
            assert not click.done()  # it waits for a person
            code, out, err = await cockpit_exec(live, "--human", "deny", "not the inbox")
            assert "denied" in out, out
            assert code == 0, err
            denied = await click
            assert not denied.ok and denied.error == "denied by a person: not the inbox"
            assert await s.active.page.inner_text("#count") == before  # nothing ran

            app = app_for(s)
            async with app.run_test(size=(180, 50)) as pilot:
                notice = app.query_one(ConfirmNotice)
                click = asyncio.ensure_future(agent.run(f"click {delete}"))
                await until(pilot, lambda: notice.display)
                assert 'button "Delete all"' in notice.text, notice.text
                assert not click.done()
                await pilot.press("y")
                approved = await asyncio.wait_for(click, 30)
            assert approved.ok, approved.error
            assert "dialog" in approved.output  # the page's own "Delete all messages?"
            assert (await agent.run("dialog accept")).ok
        assert await s.active.page.inner_text("#count") == "0 messages"
    finally:
        recorder.close()
        s.policy.approvals.require([], s.registry)
    rec = read(tmp_path / "delete-all.jsonl")
    agent_steps = [(st["command"], st["ok"], (st.get("confirm") or {}).get("answer"))
                   for st in rec.steps if st["source"] == "agent"]
    assert agent_steps[:2] == [(f"click {delete}", False, "denied"),
                               (f"click {delete}", True, "approved")], agent_steps
    person = [(st["command"], st["confirm"]["answer"]) for st in rec.steps
              if st["source"] == "human" and st.get("confirm")]
    assert person == [("deny 'not the inbox'", "denied"), ("approve", "approved")], person
