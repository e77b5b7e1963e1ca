"""A live session: the browser, its control socket and its agent, started and stopped
together (by the TUI, `cockpit serve` and `cockpit demo`)."""

from __future__ import annotations

from pathlib import Path

from ..control.agent_process import AgentProcess
from ..record.recorder import start_recording
from ..control.server import ControlServer


class Host:
    def __init__(self, session, agent_command: str | None = None,
                 workspace: Path | None = None) -> None:
        self.session = session
        self.server = ControlServer(session, workspace)
        self.agent = None
        self.agent_command = agent_command
        self.recorder = None

    async def start(self) -> None:
        """Socket first: a second session of the same name fails (AlreadyLive) before a
        browser is started; the agent last, once it has something to talk to."""
        await self.server.start()
        try:
            await self.session.start()
        except BaseException:
            await self.server.close()
            raise
        self.recorder = start_recording(self.session)  # before the agent's first step
        if self.agent_command:
            self.agent = AgentProcess(self.agent_command, self.session, self.server.socket)
            self.session.agent = self.agent  # F8/F9 and the socket's agent op reach it
            await self.agent.start()

    async def close(self) -> None:
        try:
            if self.agent is not None:
                await self.agent.close()
            await self.server.close()
        finally:
            await self.session.close()
            if self.recorder is not None:
                self.recorder.close()
