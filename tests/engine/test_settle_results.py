"""What a command's result says happened, on the patterns real apps use: a popup that
posts to its own URL and closes itself, a submit the browser refuses, a server-rendered
form's answer on the same URL, and Playwright's raw errors said in words."""

from __future__ import annotations

import http.server
import threading
import urllib.parse

import pytest

from conftest import fails, ok, page, ref_of

OPENER = """<!doctype html><html><head><title>Product</title></head><body><main>
<h1>Product</h1><label for=cat>Category</label>
<select id=cat><option value=''>---------</option></select>
<a href='/popup' onclick="window.open(this.href, 'add', 'width=500,height=400');
 return false">Add another category</a>
<script>function added(value) { const o = new Option(value, value, true, true);
 document.getElementById('cat').add(o); }</script></main></body></html>"""

POPUP = """<!doctype html><html><head><title>Add category</title></head><body><main>
<form method=post><label for=name>Name</label><input id=name name=name>
<button>Save</button></form></main></body></html>"""

# What an admin answers the popup's POST with: a nearly empty document whose script
# tells the opener and closes its own window (as Django's popup_response.js does)
POPUP_DONE = """<!doctype html><html><head><title></title></head><body>
<script>opener.added(%r); window.close();</script></body></html>"""

FORM = """<!doctype html><html><head><title>%s</title></head><body><main><h1>Sign up</h1>
%s<form method=post novalidate><label for=email>Email</label>
<input id=email name=email %s><ul class=errorlist id=email_error>%s</ul>
<button>Save</button></form></main></body></html>"""

REQUIRED = """<!doctype html><html><head><title>Required</title></head><body><main>
<form method=post><label for=who>Your name</label><input id=who name=who required>
<button>Send</button></form></main></body></html>"""


class _Handler(http.server.BaseHTTPRequestHandler):
    def _send(self, html: str) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.end_headers()
        self.wfile.write(html.encode())

    def do_GET(self) -> None:
        path = self.path.split("?")[0]
        if path == "/form":
            self._send(FORM % ("Sign up", "", "", ""))
        else:
            self._send({"/opener": OPENER, "/popup": POPUP, "/required": REQUIRED}.get(
                path, "missing"))

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        fields = urllib.parse.parse_qs(self.rfile.read(length).decode())
        if self.path.startswith("/popup"):
            self._send(POPUP_DONE % fields.get("name", [""])[0])
        else:  # /form: the same URL answers with its errors
            self._send(FORM % ("Error: Sign up", "<p class=errornote role=alert>Please "
                               "correct the errors below.</p>",
                               "aria-invalid=true aria-describedby=email_error",
                               "<li>Enter a valid email address.</li>"))

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def poster():
    """A server whose pages post forms back to themselves."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


async def test_a_popup_that_posts_and_closes_itself_reports_the_openers_change(s, poster):
    await ok(s, f"goto {poster}/opener")
    await ok(s, "snapshot -i")
    r = await ok(s, f"click {ref_of(s, 'link', 'Add another category')}")
    assert "opened tab 2" in r.output, r.output
    await ok(s, "tab 2")
    await ok(s, "wait --text Name")
    await ok(s, "snapshot -i")
    await ok(s, f"fill {ref_of(s, 'textbox', 'Name')} Tools")
    r = await ok(s, f"click {ref_of(s, 'button', 'Save')}")
    # the popup's POST answered with a script that changed the opener and closed it: the
    # click's own result says both, and the session is back on the opener
    assert "tab 2 closed (the page closed its window); now on tab 1: Product" in r.output, \
        r.output
    assert "Tools" in r.output and "No change" not in r.output, r.output
    assert r.data["closed_tabs"] == [2] and s.active.index == 1
    assert s.active.page.url.endswith("/opener")
    # the next command acts on the opener, no raw "Target page ... closed"
    r = await ok(s, "wait 50")


async def test_a_submit_the_browser_refuses_says_which_field_and_why(s, poster):
    await ok(s, f"goto {poster}/required")
    await ok(s, "snapshot -i")
    field = ref_of(s, "textbox", "Your name")
    r = await ok(s, f"click {ref_of(s, 'button', 'Send')}")
    assert r.output.splitlines()[1].startswith(
        f'not submitted: the browser refused the form ({field} textbox "Your name": '), r.output
    assert "No change" not in r.output, r.output
    assert r.data["refused"][0]["message"], r.data
    assert s.active.page.url.endswith("/required")


async def test_a_same_url_post_says_where_it_is_its_title_and_its_errors_first(s, poster):
    await ok(s, f"goto {poster}/form")
    await ok(s, "snapshot -i")
    await ok(s, f"fill {ref_of(s, 'textbox', 'Email')} nope")
    r = await ok(s, f"click {ref_of(s, 'button', 'Save')}")
    lines = r.output.splitlines()
    assert lines[1] == 'new page /form (POST, same URL): "Error: Sign up"', r.output
    assert lines[2] == "alert: Please correct the errors below.", r.output
    assert lines[3].endswith('textbox "Email": Enter a valid email address.'), r.output
    assert {m["kind"] for m in r.data["messages"]} == {"alert", "error"}


STYLED = page("news-styled", """
<p class="message-error">no such column: nope</p>
<div class="notice notice-success"><p>Settings saved.</p></div>
<div class="flash">Signed out.</div>
<div class="message">a chat message, not a word from the page</div>
<form class="error"><input name=q aria-label=Query></form>
<ul>""" + "".join(f"<li class='row error'>log line {i}</li>" for i in range(5)) + "</ul>")
TO_STYLED = page("news-link", f"<a href='{STYLED}'>Run</a>")


async def test_a_new_page_says_the_messages_it_styles_as_such(s, base):
    """Apps tell their messages apart by class, not only by role or Django's names:
    Datasette's `message-error`, WordPress's `notice notice-success`, Rails' `flash`.
    Not a chat's `message`, a form styled `error`, nor rows that all wear `error`."""
    await ok(s, f"goto {base}{TO_STYLED}")
    await ok(s, "snapshot -i")
    r = await ok(s, f"click {ref_of(s, 'link', 'Run')}")
    lines = r.output.splitlines()
    assert lines[2:5] == ["alert: no such column: nope", "message: Settings saved.",
                          "message: Signed out."], r.output
    assert [m["text"] for m in r.data["messages"]] == [
        "no such column: nope", "Settings saved.", "Signed out."], r.data["messages"]


async def test_raw_playwright_errors_are_said_in_words(s, base):
    from conftest import page
    await ok(s, f"goto {base}" + page("settle-number", "<input type=number aria-label=Qty>"))
    await ok(s, "snapshot -i")
    r = await fails(s, f"fill {ref_of(s, 'spinbutton', 'Qty')} abc")
    assert "number field takes a number only" in r.error, r.error
    assert "input[type=number]" not in r.error
    # a tab that closes itself while a command waits on it
    await ok(s, "js window.open('about:blank')")
    await ok(s, "tab 2")
    await ok(s, "js setTimeout(() => window.close(), 300)")
    r = await fails(s, "wait --text Never --timeout 5000")
    assert r.error.startswith("wait: the tab closed while this ran"), r.error
    assert "Target page" not in r.error


async def test_a_favicon_swapped_while_working_keeps_the_diff_incremental(s, base, fulls):
    # an app that shows it is busy in its favicon (marimo, as a cell runs) has not changed
    # the page as a whole: the click's diff comes from what changed, not a full snapshot
    from conftest import page
    await ok(s, f"goto {base}" + page("settle-favicon", (
        "<button onclick=\"document.querySelector('link[rel=icon]').href ="
        " 'data:image/x-icon;base64,AAAB'; document.getElementById('out').textContent ="
        " 'ran'\">Run</button><p id=out>idle</p>"),
        head="<link rel=icon href='data:,'>"))
    await ok(s, "snapshot -i")
    before = fulls["n"]
    r = await ok(s, f"click {ref_of(s, 'button', 'Run')}")
    assert '"idle" -> "ran"' in r.output, r.output
    assert fulls["n"] == before, "a favicon's change made the diff a full snapshot"
