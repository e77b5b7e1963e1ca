"""The session surface is kept: mypy checks that every session a face may be given has it.

Not a test module (nothing runs here); `test_surface.py` runs mypy on it. Removing a
method from `RemoteSession` (or changing its signature) makes mypy fail here.
"""

from __future__ import annotations

from tui_fake import FakeSession

from cockpit.control.agent_process import AgentProcess
from cockpit.control.remote_session import RemoteSession
from cockpit.core.session.agent import Agent
from cockpit.core.session.session import Session
from cockpit.core.session.surface import SessionSurface


def local(session: Session) -> SessionSurface:
    return session


def remote(session: RemoteSession) -> SessionSurface:
    return session


def fake(session: FakeSession) -> SessionSurface:
    return session


def agent(process: AgentProcess) -> Agent:  # what Session.agent_control drives
    return process
