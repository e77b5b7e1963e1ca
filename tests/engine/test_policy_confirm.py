"""--confirm through the control socket: an agent's matching command waits for a person,
holding nothing (the person's own commands, and other agents', run meanwhile); a person
approves or denies it with `cockpit exec --human`, and an agent cannot (core/policy)."""

from __future__ import annotations

import asyncio
import os
import sys

import pytest
from conftest import page, ref_of

from cockpit.client import AsyncCockpit
from cockpit.control import discovery as paths
from cockpit.control.protocol import ENV_AGENT
from cockpit.core.base import events as ev
BUTTONS = ("<p id=out>nothing deleted</p>"
           "<button onclick=\"out.textContent = 'all deleted'\">Delete all</button>"
           "<button onclick=\"out.textContent = 'saved'\">Save</button>")


async def cockpit_exec(server, *args: str, env=None) -> tuple[int, str, str]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "cockpit", "exec", *args,
        env={**os.environ, paths.ENV_SOCKET: str(server.socket), **(env or {})},
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    return proc.returncode, out.decode(), err.decode()


@pytest.fixture
async def confirming(s, base):
    """The shared session confirming agents' clicks on anything named *Delete*."""
    s.policy.approvals.require(["click:*Delete*", "goto:*checkout*"], s.registry)
    assert (await s.run(f"goto {base}{page('confirm-buttons', BUTTONS)}")).ok
    assert (await s.run("snapshot -i")).ok
    yield s
    s.policy.approvals.require([], s.registry)


async def waiting_for(s, count: int = 1) -> None:
    """Until `count` commands wait for a person."""
    for _ in range(400):
        if len(s.policy.approvals.waiting) >= count:
            return
        await asyncio.sleep(0.02)
    raise AssertionError("no command waits for a person")


async def page_says(s) -> str:
    return (await s.run("text '#out'", source="human")).output


async def test_an_agent_click_waits_until_a_person_approves_through_exec(confirming, live):
    s = confirming
    delete = ref_of(s, "button", "Delete all")
    events: list = []
    unsubscribe = s.bus.subscribe(lambda e: events.append(e) if e.kind in (
        ev.CONFIRM_WAITING, ev.CONFIRM_ANSWERED) else None)
    try:
        async with AsyncCockpit(socket_path=str(live.socket)) as agent, \
                AsyncCockpit(socket_path=str(live.socket)) as other_agent:
            click = asyncio.ensure_future(agent.run(f"click {delete}"))
            await waiting_for(s)
            assert not click.done()
            # nothing is held: the person's commands and another agent's run meanwhile
            assert await page_says(s) == "nothing deleted"
            assert (await other_agent.run("title")).ok
            assert (await other_agent.run(f"click {ref_of(s, 'button', 'Save')}")).ok
            # an agent cannot answer for a person
            refused = await other_agent.run("approve")
            assert not refused.ok and refused.exit_code == 2
            assert "only a person can approve" in refused.error
            code, _, err = await cockpit_exec(live, "approve")  # exec is an agent's
            assert code == 2 and "only a person can approve" in err
            code, _, err = await cockpit_exec(live, "--human", "approve",
                                              env={ENV_AGENT: "1"})
            assert code == 2 and "--human is refused here" in err
            assert not click.done()
            code, out, err = await cockpit_exec(live, "--human", "approve")
            assert code == 0, err
            assert f'approved `click {delete}` (button "Delete all") from agent' in out
            result = await click
    finally:
        unsubscribe()
    assert result.ok, result.error
    assert result.data["confirm"] == {"answer": "approved", "by": "human",
                                      "pattern": "click:*Delete*"}
    assert await page_says(s) == "all deleted"
    waiting = next(e for e in events if e.kind == ev.CONFIRM_WAITING)
    assert waiting.data["target"]["name"] == "Delete all"
    assert waiting.data["command"] == f"click {delete}"
    assert [e.data["answer"] for e in events if e.kind == ev.CONFIRM_ANSWERED] == \
        ["approved"]


async def test_a_denial_is_a_failed_result_with_the_reason_and_nothing_runs(confirming,
                                                                           live):
    s = confirming
    delete = ref_of(s, "button", "Delete all")
    code, out, err = await cockpit_exec(live, "--human", "deny")
    assert code == 1 and "no command waits for a person" in err
    async with AsyncCockpit(socket_path=str(live.socket)) as agent:
        click = asyncio.ensure_future(agent.run(f"click {delete}"))
        await waiting_for(s)
        code, out, err = await cockpit_exec(live, "--human", "deny", "not", "today")
        assert code == 0 and "denied" in out, err
        result = await click
    assert not result.ok and result.exit_code == 1
    assert result.error == "denied by a person: not today"
    assert await page_says(s) == "nothing deleted"


async def test_exec_says_it_waits_and_a_person_typing_never_waits(confirming, live):
    s = confirming
    delete = ref_of(s, "button", "Delete all")
    waiting = asyncio.ensure_future(cockpit_exec(live, "goto", "/checkout"))
    await waiting_for(s)
    # the person's own matching command runs at once
    assert (await s.run(f"click {delete}", source="human")).ok
    assert await page_says(s) == "all deleted"
    assert (await s.run("deny wrong page", source="human")).ok
    code, _, err = await waiting
    assert code == 1 and "denied by a person: wrong page" in err
    assert "waiting: a person must approve it first (--confirm goto:*checkout*)" in err


async def test_no_answer_within_the_timeout_is_exit_code_4(confirming, live):
    s = confirming
    code, _, err = await cockpit_exec(live, "--timeout", "0.5",
                                      f"click {ref_of(s, 'button', 'Delete all')}")
    assert code == 4 and "waiting for a person to approve it" in err, err
    assert not s.policy.approvals.waiting
    assert await page_says(s) == "nothing deleted"


async def test_the_recording_shows_the_answers_and_the_steps_they_answered(confirming,
                                                                          tmp_path):
    from cockpit.record.reader import read
    from cockpit.record.recorder import Recorder
    from cockpit.record.replay import Replayer
    s = confirming
    delete = ref_of(s, "button", "Delete all")
    recorder = Recorder(s, tmp_path / "confirm.jsonl").start()
    try:
        click = asyncio.ensure_future(s.run(f"click {delete}", source="agent"))
        await waiting_for(s)
        assert (await s.run("deny not yet", source="human")).ok
        assert not (await click).ok
        click = asyncio.ensure_future(s.run(f"click {delete}", source="agent"))
        await waiting_for(s)
        assert (await s.run("approve", source="human")).ok
        assert (await click).ok
    finally:
        recorder.close()
    rec = read(tmp_path / "confirm.jsonl")
    assert not rec.problems
    # the agent's steps say how a person answered them; the person's, what they answered
    agent = [(st["command"], st["ok"], st["error"], st.get("confirm"))
             for st in rec.steps if st["source"] == "agent"]
    assert agent == [
        (f"click {delete}", False, "denied by a person: not yet",
         {"answer": "denied", "by": "human", "pattern": "click:*Delete*",
          "reason": "not yet"}),
        (f"click {delete}", True, None,
         {"answer": "approved", "by": "human", "pattern": "click:*Delete*"})]
    person = [(st["command"], st["ok"], st["confirm"]["answer"], st["confirm"]["command"])
              for st in rec.steps if st["source"] == "human"]
    assert person == [("deny not yet", True, "denied", f"click {delete}"),
                      ("approve", True, "approved", f"click {delete}")]
    answered = [e["data"]["answer"] for e in rec.events if e["kind"] == ev.CONFIRM_ANSWERED]
    assert answered == ["denied", "approved"]
    assert sum(e["kind"] == ev.CONFIRM_WAITING for e in rec.events) == 2
    # replay: the answers need a person and the denied click never ran: both skipped
    assert (await s.run("goto about:blank")).ok
    replayer = Replayer(s, rec)
    for st in rec.steps:
        if st["source"] == "human" or not st["ok"]:
            report = await replayer.step(st)
            assert report.status == "skipped", report.reasons
            needs = f"`{st['command'].split()[0]}` needs a person; replay goes on without"
            assert (st["source"] == "human") == (needs in report.reasons), report.reasons


async def test_status_says_the_policy_and_what_waits(confirming):
    s = confirming
    s.policy.domains.allow(["127.0.0.1"])  # said only: no route is installed here
    try:
        click = asyncio.ensure_future(
            s.run(f"click {ref_of(s, 'button', 'Delete all')}", source="agent"))
        await waiting_for(s)
        status = await s.run("status", source="agent")  # nothing holds status back
        assert "allowed domains: 127.0.0.1 (and their subdomains)" in status.output
        assert "a person confirms agents' click:*Delete*, goto:*checkout*" in status.output
        assert "waiting for a person: `click @e" in status.output
        assert status.data["policy"]["waiting"][0]["target"]["name"] == "Delete all"
        assert (await s.run("deny", source="human")).ok
        assert not (await click).ok
    finally:
        s.policy.domains.allow([])


async def test_a_caller_that_leaves_withdraws_its_waiting_command(confirming, live):
    s = confirming
    answers: list[str] = []
    unsubscribe = s.bus.subscribe(lambda e: answers.append(e.data["answer"])
                                  if e.kind == ev.CONFIRM_ANSWERED else None)
    try:
        async with AsyncCockpit(socket_path=str(live.socket)) as agent:
            click = asyncio.ensure_future(
                agent.run(f"click {ref_of(s, 'button', 'Delete all')}"))
            await waiting_for(s)
            click.cancel()
        for _ in range(200):
            if not s.policy.approvals.waiting:
                break
            await asyncio.sleep(0.02)
    finally:
        unsubscribe()
    assert not s.policy.approvals.waiting and answers == ["withdrawn"]
    result = await s.run("approve", source="human")  # nothing left to answer
    assert not result.ok and "no command waits for a person" in result.error
    assert await page_says(s) == "nothing deleted"


async def test_a_chain_waits_when_one_of_its_lines_matches(confirming):
    s = confirming
    chain = s.command('chain "title" "click \'main button\'"')
    found = s.policy.approvals.match(chain, "agent", s.registry, s.active.snapshot)
    assert found is None  # a selector: its line has no Delete in it
    delete = ref_of(s, "button", "Delete all")
    chain = s.command(f"chain title ; click {delete}")
    found = s.policy.approvals.match(chain, "agent", s.registry, s.active.snapshot)
    assert found is not None and found[0].text == "click:*Delete*"
    assert found[1]["name"] == "Delete all"
    assert s.policy.approvals.match(s.command(f"click {delete}"), "human", s.registry,
                                    s.active.snapshot) is None
