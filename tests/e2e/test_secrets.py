"""No secret leaks: `--secret` values and what is typed into (or shown in) a password field
never reach an output, an event, a pane's history, a recording, a trace or a log; and page
text never drives the terminal (escape sequences are shown as symbols in plain output).

Every test greps for the secret itself, so each one fails on a Cockpit that leaks it."""

from __future__ import annotations

import asyncio
import io
import json
import logging
import os
import subprocess
import sys
import uuid
import zipfile

import pytest
from conftest import ok, ref_of

from cockpit.core import Session
from cockpit.core.base import events as ev
from cockpit.core.secrets.mask import MASK
from cockpit.core.base.terminal import visible
from cockpit.tui.history import History

COCKPIT = [sys.executable, "-m", "cockpit"]
TOKEN = "tok-S3CRET-9917"  # given with --secret
TYPED = "pw-Typed-4471"  # typed into a password field


@pytest.fixture
async def fresh(site, request):
    """A session of its own with a --secret, every event kept."""
    session = Session(f"secrets-{request.node.name[:30]}")
    session.secrets.add(f"TOK={TOKEN}")
    await session.start()
    events: list = []
    session.bus.subscribe(events.append)
    session.events = events
    yield session
    await session.close()


def _everything(session: Session, results: list) -> str:
    return json.dumps([[e.kind, e.data] for e in session.events] +
                      [r.to_json() for r in results], default=str, ensure_ascii=False)


async def test_results_and_events_hold_no_secret_and_the_fill_still_works(fresh, site):
    s = fresh
    await ok(s, f"goto {site.url}/login")
    await ok(s, "snapshot -i")
    email, password = ref_of(s, "textbox", "Email"), ref_of(s, "textbox", "Password")
    results = [await ok(s, f"fill {email} $TOK"),  # a secret in an ordinary field
               await ok(s, f"fill {password} {TYPED}")]
    assert results[1].command == f"fill {password} {MASK}" and results[1].data["secret"]
    # the page got the real values
    page = s.active.page
    assert await page.input_value("#password") == TYPED
    assert await page.input_value("#email") == TOKEN
    snap = await ok(s, "snapshot")
    assert 'textbox "Password"' in snap.output and MASK in snap.output
    assert "$TOK" in snap.output  # the secret's value on the page comes back as its name
    results += [snap, await ok(s, "snapshot -D"), await ok(s, "snapshot -i"),
                await ok(s, "js document.querySelector('#email').value")]
    # a selector target is not known to be a password field until it ran: its queued and
    # started events (an agent's `waiting_for`, the log's row) already hide the text
    results.append(await ok(s, f"fill '#password' {TYPED}x"))
    results.append(await ok(s, f"chain fill {email} plain@example.com ; "
                               f"fill {password} {TYPED}y"))
    assert "plain@example.com" in results[-1].command  # an ordinary field's text stays
    queued = [e.data["command"] for e in s.events
              if e.kind in (ev.COMMAND_QUEUED, ev.COMMAND_STARTED)]
    assert f"fill '#password' {MASK}" in queued
    everything = _everything(s, results)
    for secret in (TOKEN, TYPED, f"{TYPED}x", f"{TYPED}y"):
        assert secret not in everything, secret


async def test_the_humans_password_never_reaches_the_agent(fresh, site, monkeypatch):
    """What the human typed during a handoff (at the prompt, or into the page itself) comes
    back to the agent as the mask in the resume note's diff, snapshot and commands."""
    s = fresh
    monkeypatch.delenv("DISPLAY", raising=False)  # a terminal handoff: no window needed
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    await ok(s, f"goto {site.url}/login")
    await ok(s, "snapshot -i")
    password = ref_of(s, "textbox", "Password")
    await ok(s, "handoff sign in for me")
    waiting = asyncio.ensure_future(s.run("snapshot -i", source="agent"))
    await ok(s, f"fill {password} {TYPED}")  # the human, at the prompt
    await s.active.page.fill("#email", "human@example.com")
    await ok(s, "resume")
    result = await asyncio.wait_for(waiting, 30)
    note = json.dumps(result.to_json(), ensure_ascii=False)
    assert "handoff" in result.data and MASK in note
    assert "human@example.com" in note  # an ordinary field's value is news for the agent
    assert TYPED not in note and TYPED not in _everything(s, [])
    # typed straight into the page (a window handoff): masked at the snapshot
    await s.active.page.fill("#password", "straight-into-page-77")
    again = await ok(s, "snapshot")
    assert "straight-into-page-77" not in again.output and MASK in again.output


def test_run_leaves_no_secret_in_any_output_or_file(tmp_path, site):
    """`cockpit run --record --trace --secret` filling a password field: the outputs, the
    recording and the trace (every entry of the zip) hold neither value, and the files are
    the user's own (0600). Replay still gets names: $TOK and $PASSWORD."""
    rec, trace = tmp_path / "rec.jsonl", tmp_path / "trace.zip"
    state = tmp_path / "state"
    session = f"sec-{uuid.uuid4().hex[:6]}"
    lines = [f"goto {site.url}/login", "snapshot -i", "fill '#email' $TOK",
             f"fill '#password' {TYPED}", "snapshot", "snapshot -D", "forms"]
    env = {**os.environ, "COCKPIT_STATE_DIR": str(state)}
    done = subprocess.run(COCKPIT + ["run", "--json", "--session", session, "--record",
                                     str(rec), "--trace", str(trace), "--secret",
                                     f"TOK={TOKEN}"],
                          input="\n".join(lines) + "\n", capture_output=True, text=True,
                          timeout=180, env=env)
    assert done.returncode == 0, done.stderr
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert all(a["ok"] for a in answers), answers
    assert answers[2]["command"] == "fill '#email' $TOK"
    assert answers[3]["command"] == f"fill '#password' {MASK}"
    written = {"stdout": done.stdout, "stderr": done.stderr,
               "recording": rec.read_text(encoding="utf-8")}
    with zipfile.ZipFile(trace) as z:
        for name in z.namelist():
            written[f"trace:{name}"] = z.read(name).decode("utf-8", "replace")
    for path in state.rglob("*"):  # what Cockpit keeps of the session (not the profile)
        if path.is_file() and "profile-" not in str(path):
            written[str(path)] = path.read_text(encoding="utf-8", errors="replace")
    for where, text in written.items():
        for secret in (TOKEN, TYPED):
            assert secret not in text, f"{secret} in {where}"
    assert os.stat(rec).st_mode & 0o777 == 0o600
    assert os.stat(trace).st_mode & 0o777 == 0o600
    steps = [json.loads(x) for x in written["recording"].splitlines()]
    commands = [x["command"] for x in steps if x["type"] == "step"]
    assert "fill '#email' $TOK" in commands and "fill '#password' $PASSWORD" in commands


def test_the_history_file_is_private_and_keeps_no_password(tmp_path):
    path = tmp_path / "history"
    path.write_text("goto example.com\n", encoding="utf-8")
    os.chmod(path, 0o644)  # as an older Cockpit left it
    history = History(path)
    assert os.stat(path).st_mode & 0o777 == 0o600
    history.add(f"fill @e5 {TYPED}")
    assert TYPED not in path.read_text(encoding="utf-8")  # not before it ran
    history.settle(f"fill @e5 {TYPED}", f"fill @e5 {MASK}")  # the session masked it
    history.add("fill @e4 $TOK")
    history.settle("fill @e4 $TOK", "fill @e4 $TOK")
    text = path.read_text(encoding="utf-8")
    assert TYPED not in text and MASK not in text and "fill @e4 $TOK" in text
    assert history.lines == ["goto example.com", "fill @e4 $TOK"]  # recall would type
    assert os.stat(path).st_mode & 0o777 == 0o600  # the mask: it is not offered


def test_log_lines_mask_secrets_and_typed_passwords():
    session = Session(f"log-{uuid.uuid4().hex[:6]}")  # not started: no browser needed
    session.secrets.add(f"TOK={TOKEN}")
    session.redactor.files.add(TYPED, MASK)  # as a password fill teaches it
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    logger = logging.getLogger("cockpit.test_secrets")
    logger.addHandler(handler)
    try:
        logger.error("internal error in %r", f"fill #pw {TYPED}")
        try:
            raise ValueError(f"bad {TOKEN}")
        except ValueError:
            logger.exception("with a traceback")
    finally:
        logger.removeHandler(handler)
    text = out.getvalue()
    assert "internal error" in text and "ValueError" in text
    assert TOKEN not in text and TYPED not in text and "$TOK" in text


# Chromium turns control characters in a title into spaces itself; the text keeps them.
HOSTILE = """<!doctype html><title>x</title><pre id="t"></pre><script>
  const E = String.fromCharCode(27), B = String.fromCharCode(7);
  document.title = E + "]0;pwned title" + B + "T" + E + "[2J";
  document.getElementById("t").textContent =
    "before" + E + "[2J" + E + "]52;c;cHduZWQ=" + B + "after\\tend";
  console.log(E + "]0;console title" + B + "logged");
</script>"""


def test_page_escape_sequences_never_reach_the_terminal(tmp_path):
    page = tmp_path / "hostile.html"
    page.write_text(HOSTILE, encoding="utf-8")
    lines = f"goto {page.as_uri()}\ntitle\ntext\nconsole\n"
    env = {**os.environ, "COCKPIT_STATE_DIR": str(tmp_path / "state")}
    args = ["run", "--session", f"esc-{uuid.uuid4().hex[:6]}", "--no-record"]
    plain = subprocess.run(COCKPIT + args, input=lines.encode(), capture_output=True,
                           timeout=120, env=env)
    assert plain.returncode == 0, plain.stderr
    assert b"\x1b" not in plain.stdout and b"\x07" not in plain.stdout
    assert b"\x1b" not in plain.stderr
    out = plain.stdout.decode("utf-8")
    assert "before␛[2J␛]52;c;cHduZWQ=␇after" in out
    assert "after\tend" in out  # tabs and newlines stay
    assert "␛]0;console title␇logged" in out
    exact = subprocess.run(COCKPIT + [*args, "--json"], input=lines, capture_output=True,
                           text=True, timeout=120, env=env)
    answers = [json.loads(line) for line in exact.stdout.splitlines()]
    assert answers[2]["output"] == "before\x1b[2J\x1b]52;c;cHduZWQ=\x07after\tend"  # exact
    assert "\x1b" not in exact.stdout  # json.dumps escapes it: \u001b


def test_visible_keeps_newlines_and_tabs_and_shows_the_rest():
    assert visible("a\tb\nc") == "a\tb\nc"
    assert visible("x\r\ny") == "x\ny"
    assert visible("\x1b[2J\x07\x00\x7f\x9b\r") == "␛[2J␇␀␡\\x9b␍"


def test_a_value_is_masked_in_every_form_a_trace_holds_it():
    """Inside JSON, in a DOM snapshot's HTML, in a posted form body."""
    from cockpit.core.secrets.mask import Masker
    masker = Masker({"TOK": 'a b&"c'}, tokens=False)
    for form in ('a b&"c', 'a b&amp;&quot;c', "a+b%26%22c", "a%20b%26%22c", 'a b&\\"c'):
        assert masker.text(f"[{form}]") == "[$TOK]", form


async def test_a_password_field_in_a_frame_is_masked_too(fresh, tmp_path):
    page = tmp_path / "framed.html"
    page.write_text('<iframe srcdoc="<input aria-label=user><input type=password '
                    'aria-label=secret>"></iframe>', encoding="utf-8")
    s = fresh
    await ok(s, f"goto {page.as_uri()}")
    await ok(s, "snapshot -i")
    user, secret = ref_of(s, "textbox", "user"), ref_of(s, "textbox", "secret")
    refs = s.active.snapshot.refs
    assert refs[user[1:]].in_frame and refs[secret[1:]].in_frame
    await ok(s, f"fill {user} visible-name")
    result = await ok(s, f"fill {secret} {TYPED}")
    snap = await ok(s, "snapshot")
    assert "visible-name" in snap.output and MASK in snap.output
    assert TYPED not in _everything(s, [result, snap])
    await ok(s, f"click {user}")  # the refs still work after the fields were looked up


def test_blind_masking_covers_main_frame_boxes_numbered_like_a_frames():
    """When the main frame's password fields cannot be looked up (a busy page), every box
    is masked blindly — also on a page whose main-frame refs Playwright numbered `f1eN`
    after a navigation (they were missed: only `eN` counted as the main frame's)."""
    from cockpit.core.secrets.secret_fields import MASK, mask_secret_fields
    from cockpit.core.model.snapshot import Snapshot
    snap = Snapshot.from_text('- textbox "Password" [ref=f1e8]: hunter2\n'
                              '- button "Sign in" [ref=f1e9]',
                              url="http://x/login", title="", doc="d")
    shown = mask_secret_fields(snap, set(), blind="e")
    assert shown == ["hunter2"] and snap.refs["f1e8"].value == MASK
    assert "hunter2" not in snap.raw


def test_blind_masking_of_frames_leaves_main_frame_boxes_alone():
    """Frames that did not answer mask the boxes inside iframes only (the tree says which:
    the main frame's refs may look like a frame's, `f1eN`)."""
    from cockpit.core.secrets.secret_fields import MASK, boxes_in_frames, mask_secret_fields
    from cockpit.core.model.snapshot import Snapshot
    snap = Snapshot.from_text('- textbox "Search" [ref=f1e3]: shoes\n'
                              '- iframe [ref=f1e4]:\n'
                              '  - textbox "Card" [ref=f2e2]: 4242',
                              url="http://x/pay", title="", doc="d")
    assert boxes_in_frames(snap)
    assert mask_secret_fields(snap, set(), blind="f") == ["4242"]
    assert snap.refs["f1e3"].value == "shoes" and snap.refs["f2e2"].value == MASK
    assert not boxes_in_frames(Snapshot.from_text('- textbox "Search" [ref=f1e3]',
                                                  url="http://x/", title="", doc="d"))


TEXT_SECURITY_JS = "e => getComputedStyle(e).webkitTextSecurity"


async def test_a_secret_typed_into_an_ordinary_field_is_drawn_as_discs(fresh, site):
    """A video, a screenshot or the live view would show a --secret in an ordinary field:
    the field Cockpit types it into draws its text as discs (its value is unchanged)."""
    s = fresh
    await ok(s, f"goto {site.url}/login")
    await ok(s, "snapshot -i")
    email = ref_of(s, "textbox", "Email")
    page = s.active.page
    await ok(s, f"fill {email} plain@example.com")  # no secret: drawn as it is
    assert await page.eval_on_selector("#email", TEXT_SECURITY_JS) == "none"
    await ok(s, f"fill {email} $TOK")  # a ref: the quick fill
    assert await page.eval_on_selector("#email", TEXT_SECURITY_JS) == "disc"
    assert await page.input_value("#email") == TOKEN
    await ok(s, "goto about:blank")
    await ok(s, f"goto {site.url}/login")
    await ok(s, "type '#email' x$TOK")  # a selector: the checked way, key by key
    assert await page.eval_on_selector("#email", TEXT_SECURITY_JS) == "disc"
    assert await page.input_value("#email") == f"x{TOKEN}"
