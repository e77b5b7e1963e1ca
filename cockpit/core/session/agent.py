"""The agent a live session may run (`cockpit --agent CMD`), as the engine sees it: what it
can be asked to do, and its state in one line for views.

The process itself lives in the control layer (`control.agent_process.AgentProcess`); the
lifecycle that starts one sets `session.agent`, and every face asks for pause, stop or
start through `Session.agent_control`, so an attached TUI can too (over the socket).
"""

from __future__ import annotations

from typing import Any, Protocol

ACTIONS = ("pause", "resume", "stop", "start", "restart")
NO_AGENT = "no agent: start one with cockpit --agent CMD"


class Agent(Protocol):
    """What the session needs of its agent (AgentProcess has it)."""

    @property
    def state(self) -> str: ...  # not started, running, waiting, paused, exited

    @property
    def running(self) -> bool: ...

    def pause(self) -> None: ...

    def resume(self) -> None: ...

    async def stop(self) -> None: ...

    async def start(self) -> None: ...

    async def restart(self) -> None: ...


async def control(agent: Agent | None, action: str) -> str:
    """Do `action` to the agent and say in one line what it is now (or why not)."""
    if action not in ACTIONS:
        return f"unknown agent action {action!r}: one of {', '.join(ACTIONS)}"
    if agent is None:
        return NO_AGENT
    if action == "pause":
        agent.pause()
    elif action == "resume":
        agent.resume()
    elif action == "stop":
        await agent.stop()
    elif action == "start":
        await agent.start()
    else:
        await agent.restart()
    return f"agent {agent.state}"


def describe(state: dict[str, Any]) -> str:
    """One line for views, from an agent.state event's data."""
    if state.get("state") == "waiting" and state.get("waiting_for"):
        return f"waiting for `{state['waiting_for']}`"
    if state.get("state") == "exited":
        return state.get("detail") or "exited"
    return state.get("state") or "no agent"
