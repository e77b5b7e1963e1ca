"""Settling on apps that render what their server sends over a WebSocket (Streamlit,
marimo): the Python side of sockets_js.py. How long the page's sockets are waited for
after an action, from what the page tells of them (PROBE_JS: their messages, the pace of
the server's answer, a page that shows it waits for the rest), and the note when settling
stopped while the page still showed that it waited. settle.py reads the caps here as
`sockets.NAME` at each use: a test shortens them."""

from __future__ import annotations

from typing import Any

# WebSocket apps: the answer to what the action sent (a rerun, a cell run) comes by then;
# a socket the new page opened has its first message by then (its first render).
WS_REPLY_CAP_S = 3.0
# Messages keep coming in bursts while the server works: still this long after the last,
# the answer is in (a socket that streams without end is followed until CHAIN_CAP_S).
# Long while the page has rendered none of them (a status or bookkeeping message: marimo's
# first ones come 60 ms before its output), and after the page sent over its socket: that
# starts server work that answers in parts (Streamlit's rerun: "running" at once, which
# may re-render, and the output once the script has run, 70-190 ms later on a loaded
# machine; 100 ms missed it); ...
WS_QUIET_S = 0.3
# ... the answer to an HTTP ask (marimo's cell run: a POST, then the kernel's messages)
# once a message has changed the DOM is being rendered, and what is left of it comes at
# the server's pace (marimo: its output, then "idle" and "completed-run", 1-25 ms apart):
# still for twice the longest pause between its messages so far, or as long as the server
# took to send the first after the page asked (20-40 ms for marimo's kernel; a loaded
# server is slow at both, and pauses as long inside its answer), and at least this long,
# it is in (PROBE_JS `quietOf`).
WS_RENDERED_QUIET_S = 0.04
# ... and once the server's last message said that it finished (marimo's `completed-run`)
# and the page changed after it, for the page to render what came (a frame, and a task).
WS_FINISHED_QUIET_S = 0.02
# An app that asks its server over HTTP and gets the answer over its socket (marimo's
# cell run): after the action's fetch ended, a silent socket is waited for this long.
WS_ASKED_CAP_S = 1.5
# The most a look waits in the page for the socket (PROBE_JS `held`) before it answers:
# settling's other checks (its caps, a tab the page opened) run between such looks.
HOLD_S = 0.25


def socket_quiet(state: dict[str, Any]) -> float:
    """How long the page's sockets must have been silent for the answer to be in, as
    the page worked it out (PROBE_JS `quietOf`): WS_QUIET_S, or, once the page has
    rendered one of the messages since the action, if it sent nothing over its socket
    and does not show that it waits for its server (a control it disabled, a region it
    marked `aria-busy`, as it rendered a message), the pace of the server's answer:
    twice the longest pause between its messages, or as long as it took to send the
    first (at least WS_RENDERED_QUIET_S)."""
    return float(state.get("wsQuiet", WS_QUIET_S * 1000)) / 1000


def socket_delay(state: dict[str, Any], elapsed: float, chain_cap: float
                 ) -> float | None:
    """Seconds to wait for the page's WebSockets (settle_js), or None: a socket opened
    since the action has had no message yet, or what the page sent has had no answer
    yet (both until WS_REPLY_CAP_S), or the action's fetch ended with the page's socket
    silent since (until WS_ASKED_CAP_S after it), or the server has begun to answer and
    the page still shows that it waits for it (`awaited`), or a message came more
    recently than `socket_quiet` (until `chain_cap`: a socket that streams without end
    is not waited out). `elapsed`: seconds since the action began."""
    sent, got = state.get("wsSent", -1), state.get("wsIn", -1)
    if elapsed < WS_REPLY_CAP_S and (state.get("wsNew") or (sent >= 0 and not
                                                             0 <= got <= sent)):
        return 0.02
    if 0 <= state.get("wsAsked", -1) < WS_ASKED_CAP_S * 1000:
        return 0.02  # asked over HTTP, the socket silent since: its answer may come there
    if awaited(state):
        return 0.02
    quiet = socket_quiet(state)
    if 0 <= got < quiet * 1000 and elapsed < chain_cap:
        # looked at again within the short quiet: a message may be rendered meanwhile,
        # and the long wait then becomes the short one
        return min(max(0.005, quiet - float(got) / 1000), WS_RENDERED_QUIET_S)
    return None


def awaited(state: dict[str, Any]) -> bool:
    """Whether the page still shows that it waits for its server's answer to the action,
    whose first message has come (PROBE_JS `awaited`: a control it disabled as the action
    asked, disabled still; or a text it redraws frame after frame since, as a running
    cell's elapsed time), within that wait's cap. No pause of the server's ends settling
    then. (marimo: a cell that ran 0.4 s and more, or its first run after the notebook
    loaded, was reported as its run button disabled, without its output.)"""
    wait = state.get("wsAwait")
    return wait is not None and not wait["late"]


def still_working(why: str, elapsed: float) -> str:
    """The note for a page that still showed it awaited its server when settling stopped
    (PROBE_JS `awaited`'s `why`). A disabled control says less than a counter: a chat's
    Send button, disabled as it posts with the box emptied, stays so; the note then says
    only what is so."""
    if why == "control":
        return (f"a control the page disabled as the action asked its server was still "
                f"disabled {elapsed:.1f} s after the action: if it waits for the server's "
                "answer, that may come later; `snapshot -i` shows the page as it is then")
    return (f"the page still showed it was waiting for its server {elapsed:.1f} s after the "
            "action (it still redraws a text frame after frame, as a timer counting): its "
            "answer may come later; `snapshot -i` shows the page as it is then")


def socket_held(state: dict[str, Any]) -> bool:
    """Whether all settling waits for is what a look can wait for in the page (PROBE_JS
    `held`, the same test): the action's fetches, an answer asked over HTTP, a page that
    shows it waits for its server, the socket's quiet."""
    got = state.get("wsIn", -1)
    return bool(state["fetches"] or 0 <= state.get("wsAsked", -1) < WS_ASKED_CAP_S * 1000
                or awaited(state) or 0 <= got < state.get("wsQuiet", 0))


def caps_ms() -> list[float]:
    """The waits PROBE_JS's socket code is given (ms; its `socket` argument, in order)."""
    return [WS_QUIET_S * 1000, WS_RENDERED_QUIET_S * 1000, WS_ASKED_CAP_S * 1000,
            WS_REPLY_CAP_S * 1000, WS_FINISHED_QUIET_S * 1000]
