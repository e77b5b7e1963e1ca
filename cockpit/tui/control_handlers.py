"""The app's answers to who is in control: the agent's state, handoff and resume, pages
that need a person, and session notices — on the status bar, the agent pane and as
notifications; and the keys that pause, stop or hand over. The base of CockpitApp
(app.py), kept apart so the app module stays about layout and input: a Textual App whose
state it reads is declared here, and `submit` is the app's."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from textual import work
from textual.app import App

from ..core import events as ev
from ..control.notify import NeedLedger, terminal_call
from ..core import describe as describe_agent
from ..core import SessionSurface, join
from .agent_pane import AgentPane
from .config import key_label
from .confirm import ConfirmNotice
from .picture import PicturePane
from .messages import AgentChanged, ControlChanged, SessionNotice
from .status_bar import NeedsNotice, StatusBar


# What the footer says of the handoff key (F10), by whether the person has control
CONTROL_KEY_SAYS = {False: "Handoff", True: "Give back"}


class ControlHandlers(App[None]):
    """CockpitApp's message handlers and actions about control (app.py sets the state
    declared here in its __init__)."""

    session: SessionSurface
    _human_has_control = False
    _agent_state: dict[str, Any]
    _agents_held = False  # the session holds the agents' commands (a `hold`, a need)
    _picture_due: bool
    _recording_failed: str | None  # why the recording failed, once it has
    _confirm_waiting: list[dict[str, Any]]  # agents' commands waiting for a person
    _needs_told: NeedLedger  # the needs called already (the bell, OSC 9 / 777)

    @property
    def human_has_control(self) -> bool:
        return self._human_has_control

    @human_has_control.setter
    def human_has_control(self, human: bool) -> None:
        """Who has control; the footer says what the handoff key does now (it said
        "Handoff" while it gave the browser back)."""
        if human == self._human_has_control:
            return
        self._human_has_control = human
        said = CONTROL_KEY_SAYS[human]
        for key, bindings in self._bindings.key_to_bindings.items():
            self._bindings.key_to_bindings[key] = [
                replace(b, description=said) if b.id == "handoff" else b for b in bindings]
        self.refresh_bindings()

    def write_to_terminal(self, sequence: str) -> None:
        """A control sequence to the terminal (a desktop notification), through the
        driver App.bell() writes with; nothing in a headless app."""
        driver = getattr(self, "_driver", None)
        if driver is not None and not self.is_headless:
            driver.write(sequence)

    def submit(self, line: str, source: str = "human", typed: bool = False) -> None:
        """Queue a command line (CockpitApp's)."""
        raise NotImplementedError

    def live_changed(self) -> None:
        """The live pictures follow who has control (CockpitApp's)."""
        raise NotImplementedError

    def on_agent_changed(self, message: AgentChanged) -> None:
        data = message.data
        if message.kind == ev.AGENT_STATE:
            self._agent_state = data
            if not self.human_has_control and not self._agents_held:
                # an agent that starts (or exits) is who is in control now
                self.query_one(StatusBar).set(control=self._in_control())
            self._show_agent()
        elif message.kind == ev.AGENTS_HELD and not self.human_has_control:
            self._agents_held = True
            self.query_one(StatusBar).set(control=f"agents wait: {data['reason']}")
        elif message.kind == ev.AGENTS_RELEASED:
            self._agents_held = False
            self.query_one(StatusBar).set(control=self._in_control())

    def on_session_notice(self, message: SessionNotice) -> None:
        data = message.data
        if message.kind == ev.SESSION_CLOSED:
            self.query_one(StatusBar).set(last_error="the session has ended")
            self.notify("the session has ended: commands cannot run any more",
                        title="Session", severity="error", timeout=30, markup=False)
        elif message.kind == ev.CONTROL_REFUSED:
            self.notify(f"a client of the control socket was refused: {data['reason']}",
                        title="Control socket", severity="warning", markup=False)
        else:  # recording.failed, and kinds declared later: said, never lost
            line = ev.kind_of(message.kind).line(data) or message.kind
            if message.kind == ev.RECORDING_FAILED:
                self._recording_failed = f"failed: {data['error']}"
                self.query_one(StatusBar).set(recording=self._recording_failed, last_error=line)
            elif message.kind in (ev.BROWSER_LOST, ev.BROWSER_RECOVERED):
                self.query_one(StatusBar).set(last_error=line)
            self.notify(line, title="Session", severity="error", timeout=30, markup=False)

    def web_link(self) -> str | None:
        """The web view `cockpit web` serves of this session, with its token (this is the
        person's own cockpit): the local session's, or an attached one's state's."""
        view = getattr(self.session, "live_view", None)
        link = getattr(self.session, "web_link", None) or getattr(view, "web_link", None)
        return link if isinstance(link, str) else None

    def _in_control(self) -> str:
        return "agent" if self._agent_state.get("state") not in (None, "exited") else "human"

    def _show_agent(self) -> None:
        state = self._agent_state
        if not state:
            return
        line = describe_agent(state)
        if self.human_has_control and state.get("state") == "waiting":
            line = f"waiting for the human (`{state.get('waiting_for', '')}`)"
        self.query_one(StatusBar).set(agent=line)
        self.query_one(AgentPane).show_state(state, line)

    def on_control_changed(self, message: ControlChanged) -> None:
        """Handoff, resume, and pages that need a person: said loudly, once."""
        data, status = message.data, self.query_one(StatusBar)
        key = key_label(self, "handoff")
        if message.kind == ev.HANDOFF:
            self.human_has_control = True
            self.query_one(NeedsNotice).hide_need()
            status.set(control=f"HUMAN ({data['reason']}; {key} resumes)", need="",
                       mode="headed" if data["mode"] != "terminal" else "headless")
            link = self.web_link()
            web = f", or in the web view at {link}" if link else ""
            where = {"window": "in the browser window", "headed": "in the browser window",
                     "terminal": "here: typed commands, or the mouse and keys on the "
                                 f"live zoom (`zoom`){web}"}.get(data["mode"], "")
            self.notify(f"you have control {where}; {key} or `resume` gives it back",
                        title="Handoff", timeout=10, markup=False)
        elif message.kind == ev.RESUMED:
            self.human_has_control = False
            status.set(control=self._in_control(),
                       mode="headed" if self.session.status()["headed"] else "headless")
            self.notify(f"control is back with the agents after {data['seconds']:g} s",
                        title="Resumed", markup=False)
            self._picture_due = True
        elif message.kind == ev.NEEDS_HUMAN and not self.human_has_control:
            status.set(need=f"{data['need']} ({data['detail']})")
            call = self._needs_told.observe(self.session.name, ev.Event(message.kind, data))
            link = self.web_link()
            if call is not None:  # once per need: the bell, OSC 9 and OSC 777
                self.bell()
                self.write_to_terminal(terminal_call(replace(call, web=link or ""))[1:])
            # one notice at a time: a new need replaces the one shown
            self.query_one(NeedsNotice).show_need(
                f"NEEDS A HUMAN · {data['need']}: {data['detail']} at {data.get('url', '')}"
                f" · {key} hands you the browser"
                + (f" · or take it over live in the web view: {link}" if link else ""))
        elif message.kind == ev.NEEDS_CLEARED:
            self._needs_told.observe(self.session.name, ev.Event(message.kind, data))
            status.set(need="")
            self.query_one(NeedsNotice).hide_need()
        elif message.kind in (ev.CONFIRM_WAITING, ev.CONFIRM_ANSWERED):
            self._confirm_changed(message.kind, data)
        if message.kind in (ev.HANDOFF, ev.RESUMED):
            self.live_changed()
        self._show_agent()

    # --- --confirm: an agent's command waits for a person (core/policy) -----------------
    def _confirm_changed(self, kind: str, data: dict[str, Any]) -> None:
        if kind == ev.CONFIRM_WAITING:
            self._confirm_waiting.append(data)
            self.bell()
        else:
            self._confirm_waiting = [w for w in self._confirm_waiting
                                     if w.get("id") != data.get("id")]
        self.query_one(ConfirmNotice).show_waiting(self._confirm_waiting)
        self.refresh_bindings()  # y/n show in the footer while a command waits
        if self._confirm_waiting:
            self.picture_of_waiting()
        else:
            self._picture_due = True  # the page again, not the element

    @work(group="picture", exclusive=True, exit_on_error=False)
    async def picture_of_waiting(self) -> None:
        """The element the oldest waiting command acts on, in the picture pane."""
        target = (self._confirm_waiting[0].get("target") or {}) if self._confirm_waiting \
            else {}
        pane = self.query_one(PicturePane)
        if target.get("ref") and pane.enabled:
            png = await self.session.picture(target="@" + str(target["ref"]))
            if png is not None:
                pane.show_png(png)

    def answer_key(self, character: str) -> bool:
        """y or n typed at an empty prompt while a command waits for a person: its
        answer (the prompt asks before it takes the letter). True when it was one."""
        if not self._confirm_waiting or character not in ("y", "n"):
            return False
        self.action_confirm_answer(character == "y")
        return True

    def action_confirm_answer(self, approve: bool) -> None:
        """y / n: answer the oldest command waiting, as if `approve` or `deny` was typed."""
        self.submit("approve" if approve else "deny")

    def sync_control(self) -> None:
        """Who has control, as the session says (a cockpit attached during a handoff saw
        no `handoff` event: its own memory would be wrong)."""
        control = self.session.status().get("handoff") or {}
        if not control.get("human_has_control"):
            if control.get("needs") and not self.human_has_control:
                need = control["needs"]
                self.query_one(StatusBar).set(need=f"{need['kind']} ({need['detail']})")
            return
        self.human_has_control = True
        self.live_changed()
        self.query_one(NeedsNotice).hide_need()
        self.query_one(StatusBar).set(
            control=f"HUMAN ({control.get('reason') or 'handed over'}; "
                    f"{key_label(self, 'handoff')} resumes)", need="")

    def action_handoff(self) -> None:
        """One key: take the browser from the agents, or give it back (asked of the
        session: another face may have handed it over or back)."""
        control = self.session.status().get("handoff") or {}
        self.human_has_control = bool(control.get("human_has_control",
                                                  self.human_has_control))
        if self.human_has_control:
            self.submit("resume")
            return
        need = self.query_one(StatusBar).status.need
        self.submit(join(["handoff"] + ([f"needs: {need}"] if need else
                                        ["taken over in the cockpit"])))

    # --- the agent subprocess -------------------------------------------------------------
    # Asked of the session, not of an agent object: an attached TUI's agent runs in the
    # host, and the socket carries the request. Which action a key means comes from the
    # last agent.state event, which every face receives.
    def action_agent_pause(self) -> None:
        paused = self._agent_state.get("state") == "paused"
        self.agent_control("resume" if paused else "pause")

    def action_agent_stop(self, restart: bool = False) -> None:
        """Stop a running agent; start an exited one again (restart: both)."""
        state = self._agent_state.get("state")
        self.agent_control("restart" if restart else
                           "start" if state in ("exited", "not started") else "stop")

    @work(group="agent", exit_on_error=False)
    async def agent_control(self, action: str) -> None:
        message = await self.session.agent_control(action)
        if message.startswith("agent "):
            return  # done: the agent pane and status bar show its new state
        self.notify(message, title="Agent", markup=False)
