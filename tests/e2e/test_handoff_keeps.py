"""A handoff keeps the page: what the agent typed, checked and chose, the scroll, and a
page that a form's POST reached are in the window for the human (under Xvfb), and what
the human left comes back to the agent the same way; the resume report says it compactly,
with what the page needs now."""

from __future__ import annotations

import asyncio
import http.server
import threading
import urllib.parse

import pytest


from conftest import ok, to_the_mfa_code

FORM = """<!doctype html><html><head><title>Order</title></head><body>
<form method="post" action="/step2">
  <label>Name <input name="name"></label>
  <label><input type="checkbox" name="gift"> Gift</label>
  <label>Size <select name="size"><option>S</option><option>M</option><option>L</option>
  </select></label>
  <label>Upload <input type="file" name="upload"></label>
  <button>Next</button>
</form><div style="height:3000px"></div><p>bottom</p></body></html>"""

STEP2 = """<!doctype html><html><head><title>Step 2</title></head><body>
<h1>Enter the code</h1><p>for {name}</p>
<form method="post" action="/done"><label>Code <input name="code"></label>
<button>Verify</button></form></body></html>"""


class Server(http.server.ThreadingHTTPServer):
    posts: list[str]


class Handler(http.server.BaseHTTPRequestHandler):
    server: Server

    def _send(self, html: str) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        # as sign-in wizards send it: nothing for a browser to restore from its cache
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(html.encode())

    def do_GET(self) -> None:
        pages = {"/form": FORM, "/framed": "<title>Framed</title><iframe srcdoc='<input>'>"
                 "</iframe>"}
        self._send(pages.get(self.path, "<title>Start over</title>start over"))

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode()
        fields = dict(urllib.parse.parse_qsl(body))
        self.server.posts.append(self.path)
        if self.path == "/step2":
            self._send(STEP2.format(name=fields.get("name", "")))
        else:
            self._send(f"<title>Done</title><p>verified {fields.get('code')}</p>")

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def server():
    httpd = Server(("127.0.0.1", 0), Handler)
    httpd.posts = []
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()


FIELDS = """() => [document.querySelector('[name=name]').value,
  document.querySelector('[name=gift]').checked, document.querySelector('[name=size]').value,
  Math.round(scrollY)]"""


async def test_handoff_keeps_typed_fields_and_the_page_a_post_reached(fresh, server,
                                                                       display):
    s = fresh
    url = f"http://127.0.0.1:{server.server_address[1]}"
    await ok(s, f"goto {url}/form")
    await ok(s, "fill '[name=name]' Ada")
    await ok(s, "click 'button'")  # POST -> step 2
    assert "Enter the code" in (await ok(s, "text h1")).output
    await ok(s, "fill '[name=code]' 12")
    await ok(s, f"newtab {url}/form")  # a second tab, filled in and scrolled, not sent
    await ok(s, "fill '[name=name]' Grace")
    await ok(s, "check '[name=gift]'")
    await ok(s, "select '[name=size]' L")
    await s.active.page.evaluate("() => window.scrollTo(0, 1200)")
    posts = len(server.posts)

    handed = await ok(s, "handoff finish the order")
    assert s.headed and "NOT carried" not in handed.output
    first, second = s.tabs[0].page, s.tabs[1].page
    # the human sees what the agent left: the POST-reached page, not asked for again
    assert await first.title() == "Step 2" and "for Ada" in await first.inner_text("body")
    assert await first.input_value("[name=code]") == "12"
    assert len(server.posts) == posts, "the POST was sent again"
    name, gift, size, scroll = await second.evaluate(FIELDS)
    assert (name, gift, size) == ("Grace", True, "L") and abs(scroll - 1200) < 5

    # the human finishes typing the code, unticks the box; then hands back
    await first.fill("[name=code]", "123456")
    await second.uncheck("[name=gift]")
    result = await ok(s, "resume")
    assert not s.headed
    first, second = s.tabs[0].page, s.tabs[1].page
    assert await first.title() == "Step 2"
    assert await first.input_value("[name=code]") == "123456"
    assert (await second.evaluate(FIELDS))[:3] == ["Grace", False, "L"]
    assert "No change" not in result.output and "nothing changed" not in result.output
    assert len(server.posts) == posts
    # the carried page works: its form goes where it went
    await ok(s, "tab 1")
    await ok(s, "click 'button'")
    assert "verified 123456" in (await ok(s, "text p")).output


async def test_what_cannot_be_carried_is_said_before_the_human_starts(fresh, server, display,
                                                                       tmp_path):
    s = fresh
    url = f"http://127.0.0.1:{server.server_address[1]}"
    await ok(s, f"goto {url}/form")
    picked = tmp_path / "invoice.pdf"
    picked.write_bytes(b"%PDF-1.4")
    await s.active.page.set_input_files("[name=upload]", str(picked))
    handed = await ok(s, "handoff")
    assert "NOT carried: tab 1: the file(s) chosen in upload (choose again)" in handed.output
    assert "Back/forward history starts anew" in handed.output
    await ok(s, "resume")
    await ok(s, f"goto {url}/framed")
    handed = await ok(s, "handoff")
    assert "NOT carried: tab 1: anything typed inside its 1 frame(s)" in handed.output
    await ok(s, "resume")


async def test_a_need_raised_while_the_human_had_control_is_said_in_text(s, site,
                                                                         monkeypatch):
    monkeypatch.delenv("DISPLAY", raising=False)  # the terminal handoff: no relaunch
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    await ok(s, f"goto {site.url}/playground")
    await ok(s, "handoff sign in")
    try:
        await to_the_mfa_code(s, site)  # the human signs in; the next page is a CAPTCHA
        await ok(s, "click 'button[type=submit]'")
    finally:
        result = await ok(s, "resume")
    assert "Needs a person now: captcha on tab 1" in result.output
    assert result.data["handoff"]["needs"]["kind"] == "captcha"


async def test_the_resume_report_is_compact_after_a_new_page(s, site, monkeypatch):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    await ok(s, f"goto {site.url}/playground")
    await ok(s, "handoff --terminal")
    await ok(s, f"goto {site.url}/reference")  # the human goes to another page
    await s.context.add_cookies([{"name": "seen", "value": "secret-value", "url": site.url}])
    result = await ok(s, "resume")
    snapshot = result.data["handoff"]["snapshot"]
    text = result.output
    assert text.count(snapshot) == 1, "the snapshot is printed once"
    head = text[:text.index(snapshot)].splitlines()
    # what changed, not the whole page again: a line or two per fact
    assert len(head) <= 5, head
    assert f"{site.url}/playground -> {site.url}/reference" in text
    assert "Cookies: new seen" in text and "secret-value" not in text


async def test_the_report_says_nothing_changed_when_nothing_did(fresh, server, display):
    s = fresh
    url = f"http://127.0.0.1:{server.server_address[1]}"
    await ok(s, f"goto {url}/form")
    await ok(s, "fill '[name=name]' Ada")
    await ok(s, "handoff")
    await asyncio.sleep(0.2)
    result = await ok(s, "resume")
    assert "On tab 1: nothing changed" in result.output
    assert await s.active.page.input_value("[name=name]") == "Ada"
