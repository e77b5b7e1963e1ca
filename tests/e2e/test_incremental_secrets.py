"""Incremental diffs and password fields: a region snapshot (changes.py) goes through the same
masking as a full one, so what is typed into a password field (by the agent, or by the human
straight into the page during a handoff) never shows in a region diff, the patched
snapshot, `snapshot`, `snapshot -D`, the events or the recording.

Each test checks that the incremental path was taken (no full snapshot for the action),
else it would prove nothing, and greps everything for the value itself."""

from __future__ import annotations

import json

import pytest
from conftest import ok, ref_of

from cockpit.core import Session
from cockpit.core.secrets.mask import MASK
from cockpit.core.page.render import View, render
from cockpit.record.recorder import Recorder

TYPED = "pw-Region-5523"  # typed by the human straight into the page
FILLED = "pw-Filled-8812"  # filled by the agent

# A form that re-renders itself on "Check" (as frameworks do: new elements, the typed
# values carried over), so the region snapshotted after the click holds the password field.
FORM = ("<!doctype html><title>login</title><main><h1>Sign in</h1><div id=box></div>"
        "<nav><button>Untouched</button></nav></main><script>"
        "let n = 0;"
        "function draw(user, pass) {"
        "  box.innerHTML = '<form><label>User <input id=u></label>' +"
        "    '<label>Password <input id=p type=password></label>' +"
        "    '<p>' + (n ? 'Checked ' + n + ' times' : 'Not checked') + '</p>' +"
        "    '<button type=button id=c>Check</button></form>';"
        "  u.value = user; p.value = pass;"
        "  c.onclick = () => { n++; draw(u.value, p.value); };"
        "}"
        "draw('', '');</script>")


@pytest.fixture
async def fresh(request, tmp_path):
    """A session of its own, every event kept and every step recorded."""
    session = Session(f"incsec-{request.node.name[:30]}")
    await session.start()
    events: list = []
    session.bus.subscribe(events.append)
    session.events = events
    recording = tmp_path / "steps.jsonl"
    recorder = Recorder(session, recording).start()
    session.recording_file = recording
    yield session
    recorder.close()
    await session.close()


async def _incremental(s, line: str, fulls) -> object:
    fulls["n"] = 0
    result = await ok(s, line)
    assert fulls["n"] == 0, f"{line}: a full snapshot was taken, the test proves nothing"
    return result


async def _open_form(s, tmp_path):
    page = tmp_path / "login.html"
    page.write_text(FORM, encoding="utf-8")
    await ok(s, f"goto {page.as_uri()}")
    await ok(s, "snapshot -i")
    return s


def _everything(s, results: list) -> str:
    return json.dumps([[e.kind, e.data] for e in s.events] + [r.to_json() for r in results]
                      + [s.refs_info(), render(s.active.snapshot, View())],
                      default=str, ensure_ascii=False)


async def test_a_region_snapshot_masks_what_the_human_typed(fresh, tmp_path, fulls):
    s = await _open_form(fresh, tmp_path)
    # the human types into the page itself (a window handoff): no command saw the value
    await s.active.page.fill("#p", TYPED)
    click = await _incremental(s, f"click {ref_of(s, 'button', 'Check')}", fulls)
    assert "Checked 1 times" in json.dumps(click.data["diff"])  # the region was diffed
    assert any(n.role == "textbox" and n.value == MASK for n in s.active.snapshot.refs.values())
    results = [click, await ok(s, "snapshot -D"), await ok(s, "snapshot"),
               await ok(s, "snapshot -i")]
    assert MASK in results[2].output
    assert TYPED not in _everything(s, results)
    assert TYPED not in s.recording_file.read_text(encoding="utf-8")
    assert await s.active.page.input_value("#p") == TYPED  # the page still has it


async def test_a_filled_password_stays_masked_through_rerenders(fresh, tmp_path, fulls):
    s = await _open_form(fresh, tmp_path)
    results = [await _incremental(s, f"fill {ref_of(s, 'textbox', 'Password')} {FILLED}",
                                  fulls)]
    results.append(await _incremental(s, f"click {ref_of(s, 'button', 'Check')}", fulls))
    await s.active.page.fill("#p", FILLED + "2")  # then changed by hand
    results.append(await _incremental(s, f"click {ref_of(s, 'button', 'Check')}", fulls))
    # refs outside the regions still work after the password fields were looked up
    results.append(await _incremental(s, f"click {ref_of(s, 'button', 'Untouched')}", fulls))
    results += [await ok(s, "snapshot -D"), await ok(s, "snapshot")]
    everything = _everything(s, results)
    for value in (FILLED, FILLED + "2"):
        assert value not in everything, value
        assert value not in s.recording_file.read_text(encoding="utf-8"), value


async def test_a_show_password_toggle_does_not_unmask(fresh, tmp_path, fulls):
    """A field that was a password field stays masked when the page turns it into a plain
    text box ("show password"), in the region diff and in a full snapshot alike."""
    s = fresh
    page = tmp_path / "toggle.html"
    page.write_text("<!doctype html><main><label>Password <input id=p type=password></label>"
                    "<button onclick=\"p.type = p.type === 'text' ? 'password' : 'text'\">"
                    "Show</button></main>", encoding="utf-8")
    await ok(s, f"goto {page.as_uri()}")
    await ok(s, "snapshot -i")
    results = [await _incremental(s, f"fill {ref_of(s, 'textbox', 'Password')} {FILLED}",
                                  fulls)]
    results.append(await ok(s, f"click {ref_of(s, 'button', 'Show')}"))
    assert await s.active.page.get_attribute("#p", "type") == "text"
    results += [await ok(s, "snapshot -D"), await ok(s, "snapshot")]
    assert MASK in results[-1].output
    assert FILLED not in _everything(s, results)
