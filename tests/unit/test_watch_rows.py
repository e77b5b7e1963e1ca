"""`cockpit watch` without a browser: a call once per need (never a storm), what the
terminal is sent, the rows made from events and states and their order, and
--remote-header's checks."""

from __future__ import annotations

import pytest

from cockpit.control.monitor import (SessionRow, apply_event, apply_state, apply_status,
                                     browser_kind)
from cockpit.control.notify import Call, NeedLedger, terminal_call
from cockpit.core.base import events as ev
from cockpit.core.browser.attach import attach_request
from cockpit.core.base.events import Event


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def need(kind: str = "captcha", url: str = "http://x/challenge", detail: str = "img") -> Event:
    return Event(ev.NEEDS_HUMAN, {"need": kind, "detail": detail, "url": url})


def cleared(kind: str = "captcha", url: str = "http://x/challenge") -> Event:
    return Event(ev.NEEDS_CLEARED, {"need": kind, "url": url})


def test_a_need_that_stays_raised_calls_once_and_a_new_need_calls_again():
    clock = Clock()
    ledger = NeedLedger(clock=clock)
    first = ledger.observe("a", need())
    assert first == Call("a", "captcha", "img", "http://x/challenge")
    assert first.reason == "captcha (img)"
    for _ in range(5):  # said again while it stands (another tab, another check)
        assert ledger.observe("a", need()) is None
    assert ledger.observe("b", need()) is not None  # another session's need is its own
    clock.now += 1
    assert ledger.observe("a", need("code", "http://x/mfa")) is not None  # a new need
    assert ledger.observe("a", cleared("code", "http://x/mfa")) is None
    clock.now += 1
    assert ledger.observe("a", need("login", "http://x/login")) is not None


def test_a_need_flickering_is_no_storm_but_comes_back_after_a_while():
    clock = Clock()
    ledger = NeedLedger(repeat_s=30, clock=clock)
    calls = []
    for _ in range(10):  # a tab switched back and forth: raised, cleared, raised ...
        calls.append(ledger.observe("a", need()))
        ledger.observe("a", cleared())
        clock.now += 1
    assert len([c for c in calls if c is not None]) == 1
    clock.now += 60  # the same page needing a person again, much later: told again
    assert ledger.observe("a", need()) is not None


def test_a_session_that_ended_is_forgotten():
    ledger = NeedLedger()
    assert ledger.observe("a", need()) is not None
    ledger.forget("a")
    assert not ledger.raised("a")
    assert ledger.observe("a", need()) is not None  # a new session of that name


def test_the_terminal_gets_the_bell_osc_9_and_osc_777_with_nothing_that_escapes():
    call = Call("shop;1", "captcha", "img\x1b]0;pwned\x07", "http://x/c?a=1")
    text = terminal_call(call)
    assert text.startswith("\a\x1b]9;Cockpit: shop,1 needs a human: captcha (img ]0,pwned )")
    assert "\x1b]777;notify;Cockpit: shop,1 needs a human;captcha" in text
    # only our own sequences: two OSCs and their two terminators (ST), and the bell
    assert text.count("\x1b") == 4 and text.count("\x07") == 1
    assert text.endswith("at http://x/c?a=1\x1b\\")


def row(name: str = "s") -> SessionRow:
    return SessionRow(name, "/w", f"/run/{name}.sock", 1)


def test_rows_follow_the_events_and_those_that_need_a_person_come_first():
    a, b, c = row("a"), row("b"), row("c")
    apply_event(b, Event(ev.COMMAND_STARTED, {"command": "click @e3", "source": "agent"}, 10.0))
    assert b.last is not None and b.last.finished is None
    apply_event(b, Event(ev.COMMAND_FINISHED, {"command": "click @e3", "source": "agent",
                                               "ok": False, "error": "not found", "ms": 3},
                         11.0))
    assert (b.last.ok, b.last.error, b.last.finished) == (False, "not found", 11.0)
    apply_event(c, need())
    assert c.needs_person and c.why() == "captcha (img)"
    apply_event(a, Event(ev.HANDOFF, {"reason": "log in", "mode": "window"}))
    assert a.control == "human" and a.control_reason == "log in"
    assert [r.session for r in sorted([a, b, c], key=SessionRow.order)] == ["c", "a", "b"]
    apply_event(c, Event(ev.HANDOFF, {"reason": "needs: captcha", "mode": "window"}))
    assert not c.needs_person  # a person has it now
    apply_event(c, cleared())
    apply_event(a, Event(ev.RESUMED, {"reason": "", "seconds": 3}))
    assert (c.need, a.control) == (None, "agent")
    apply_event(a, Event(ev.AGENT_STATE, {"state": "running", "detail": "", "command": "x"}))
    assert a.agent == "running"
    apply_event(a, Event(ev.RECORDING_FAILED, {"path": "r.jsonl", "error": "disk full"}))
    assert a.recording == "failed: disk full"


def test_a_state_says_browser_control_need_and_recording():
    r = row()
    apply_status(r, {"browser_kind": "local", "headed": True, "agents_held": "paused",
                     "handoff": {"human_has_control": False,
                                 "needs": {"kind": "code", "detail": "otp", "url": "u"}},
                     "recording": "/r/s.jsonl", "active": {"url": "http://x/mfa"}, "tabs": 2})
    assert (r.browser, r.control, r.recording, r.url, r.tabs) == (
        "headed", "held", "on", "http://x/mfa", 2)
    assert r.need == {"kind": "code", "detail": "otp", "url": "u"}
    assert browser_kind({"browser_kind": "local"}) == ("headless", None)
    assert browser_kind({"browser_kind": "cdp", "endpoint": "http://127.0.0.1:9222"}) == (
        "attached", "http://127.0.0.1:9222")
    assert browser_kind({"browser_kind": "ws", "endpoint": "wss://cloud.example/…"})[0] == \
        "remote"


def test_remote_headers_are_checked_and_kept_out_of_repr():
    attach = attach_request(None, "ws://127.0.0.1:3000/x",
                            headers=["Authorization: Bearer s3cret", "X-Api-Key:k2"])
    assert attach is not None
    assert attach.header_dict == {"Authorization": "Bearer s3cret", "X-Api-Key": "k2"}
    assert "s3cret" not in repr(attach)
    with pytest.raises(ValueError, match="give --cdp URL or --ws-endpoint URL"):
        attach_request(None, None, headers=["A: b"])
    with pytest.raises(ValueError, match='takes "Name: value"') as bad:
        attach_request("9222", None, headers=["Bearer s3cret"])
    assert "s3cret" not in str(bad.value)  # no colon: the whole of it may be the secret
    with pytest.raises(ValueError, match="the value is empty"):
        attach_request("9222", None, headers=["X-Key:  "])


def started(line: str, source: str) -> Event:
    return Event(ev.COMMAND_STARTED, {"id": 1, "command": line, "source": source})


def finished(line: str, source: str) -> Event:
    return Event(ev.COMMAND_FINISHED, {"id": 1, "command": line, "source": source, "ok": True})


def test_an_agent_handing_over_asks_for_a_person_and_a_person_taking_over_does_not():
    ledger = NeedLedger()
    handed = Event(ev.HANDOFF, {"reason": "solve the puzzle", "mode": "window"})
    resumed = Event(ev.RESUMED, {"reason": "", "seconds": 1})
    ledger.observe("a", Event(ev.NAVIGATION, {"tab": 1, "url": "http://x/puzzle"}))
    ledger.observe("a", started('handoff "solve the puzzle"', "agent"))
    assert ledger.observe("a", handed) == Call("a", "handoff", "solve the puzzle",
                                               "http://x/puzzle")
    ledger.observe("a", resumed)
    ledger.observe("a", started("handoff", "human"))  # F10 in a cockpit: a person is there
    assert ledger.observe("a", handed) is None
    ledger.observe("a", resumed)
    # --auto-handoff after a CAPTCHA: the CAPTCHA was the call; the handoff is the same need
    assert ledger.observe("a", need()) is not None
    ledger.observe("a", started("handoff 'needs: captcha (img)'", "cockpit"))
    assert ledger.observe("a", handed) is None

    r = row()
    apply_event(r, started('handoff "solve it"', "agent"))
    apply_event(r, Event(ev.HANDOFF, {"reason": "solve it", "mode": "terminal"}))
    assert r.needs_person  # at once: the watch calls on this event, before it finishes
    apply_event(r, finished('handoff "solve it"', "agent"))
    assert r.needs_person and r.why() == "handoff (solve it)"
    apply_event(r, Event(ev.RESUMED, {"reason": "", "seconds": 1}))
    assert not r.needs_person
    for event in (started("handoff", "human"), Event(ev.HANDOFF, {"reason": "taken over",
                                                                  "mode": "window"}),
                  finished("handoff", "human")):
        apply_event(r, event)
    assert r.control == "human" and not r.needs_person


def test_ssh_addresses_are_checked():
    from cockpit.control.over_ssh import parse
    target = parse("ssh://ann@build-box:2222/shop-1")
    assert (target.user, target.host, target.port, target.session) == (
        "ann", "build-box", 2222, "shop-1")
    assert target.destination == ["-p", "2222", "--", "ann@build-box"]
    assert parse("ssh://box").session == "default" and parse("ssh://box").user is None
    assert parse("ssh://box", session=False).host == "box"
    for bad, said in (("ssh:///x", "is not an ssh address"), ("http://box/x", "is not an ssh"),
                      ("ssh://-oProxyCommand=x/s", "is not an ssh address"),
                      ("ssh://box/a/b", "one session name"), ("ssh://box/a b", "invalid"),
                      ("ssh://u:pw@box/s", "the password is ssh's to ask")):
        with pytest.raises(ValueError, match=said):
            parse(bad)
    with pytest.raises(ValueError, match="name the machine only"):
        parse("ssh://box/s", session=False)


def test_a_state_says_the_web_view_served_and_its_call_names_it():
    """`cockpit web` serving a session: its row keeps the web view (with the token: watch
    is the person's), and a call made for it says where to take the page over."""
    r = row()
    status = {"browser_kind": "local", "handoff": {"human_has_control": False}}
    apply_state(r, {"status": status, "web_link": "http://127.0.0.1:8422/live?token=t"})
    assert r.web == "http://127.0.0.1:8422/live?token=t"
    call = Call("s1", "captcha", "img", "http://x/challenge", r.web)
    assert call.text.endswith("take it over live: http://127.0.0.1:8422/live?token=t")
    assert "live: http://127.0.0.1:8422/live?token=t" in terminal_call(call)
    apply_state(r, {"status": status, "web_link": None})  # no longer served
    assert r.web == "" and "live" not in Call("s1", "captcha", "img", "u", r.web).text
