"""--confirm over MCP: an agent's tool call that matches waits for a person, telling its
client so in progress notices; a denial comes back as a tool error with the reason, an
approval as the command's own result. --allow-domain refuses the agent's navigation."""

from __future__ import annotations

import asyncio

import pytest
from conftest import page
from test_mcp import name, ref, stdio, text

from cockpit.control.async_client import AsyncCockpit

pytest.importorskip("mcp")

BUTTONS = ("<p id=out>nothing deleted</p>"
           "<button onclick=\"out.textContent = 'all deleted'\">Delete all</button>")


async def test_an_mcp_call_waits_for_a_person_and_a_denial_is_a_tool_error(base, tmp_path):
    session, record = name(), tmp_path / "mcp.jsonl"
    url = base + page("mcp-confirm", BUTTONS)
    async with stdio(session, "--confirm", "click:*Delete*", "--allow-domain", "127.0.0.1",
                     "--record", str(record)) as client:
        assert not (await client.call_tool("browser_navigate", {"url": url})).is_error
        refused = await client.call_tool("browser_navigate", {
            "url": url.replace("127.0.0.1", "localhost")})
        assert refused.is_error
        assert "refused: localhost is not an allowed domain" in text(refused)
        snap = text(await client.call_tool("browser_snapshot", {"interactive": True}))
        delete = ref(snap, "button", "Delete all")
        async with AsyncCockpit(session, source="human", client="test") as human:
            said: list[str] = []

            async def progress(done: float, total: float | None, message: str | None):
                said.append(message or "")

            for answer in ("deny not now", "approve"):
                said.clear()

                call = asyncio.ensure_future(client.call_tool(
                    "browser_click", {"target": delete}, progress_callback=progress))
                for _ in range(300):
                    if any("a person must approve it first" in m for m in said):
                        break
                    await asyncio.sleep(0.05)
                assert any("waiting: a person must approve it first (--confirm "
                           "click:*Delete*)" in m for m in said), said
                assert not call.done()
                assert (await human.run(answer)).ok
                result = await asyncio.wait_for(call, 30)
                if answer == "approve":
                    assert not result.is_error, text(result)
                    assert "clicked" in text(result)
                else:
                    assert result.is_error
                    assert "denied by a person: not now" in text(result)
                    assert (await human.run("text '#out'")).output == "nothing deleted"
            assert (await human.run("text '#out'")).output == "all deleted"
    # the recording shows both answers, from the person, and the agent's steps they answered
    from cockpit.record.reader import read
    steps = read(record).steps
    answered = [(st["source"], st["command"], st.get("confirm", {}).get("answer"))
                for st in steps if st.get("confirm")]
    # the answer and the step it answered finish together: in either order
    assert sorted(answered) == sorted([("agent", f"click {delete}", "denied"),
                                       ("human", "deny not now", "denied"),
                                       ("agent", f"click {delete}", "approved"),
                                       ("human", "approve", "approved")])
