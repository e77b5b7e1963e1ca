"""Network: routes that mock, fail or slow requests (seen in the page and in the diff),
`request N` in full with its secrets masked, and a HAR written by `har start|stop`."""

import json

import pytest
from conftest import fails, ok, page, ref_of

USERS = page("w3n-users", "<button onclick='load()'>Load users</button><ul id='list'></ul>"
             "<p id='state'>idle</p>",
             head="<script>async function load() {"
                  "  try { const r = await fetch('/api/users');"
                  "    const users = await r.json();"
                  "    document.getElementById('list').innerHTML ="
                  "      users.map(u => '<li>' + u.name + '</li>').join('');"
                  "    document.getElementById('state').textContent = 'status ' + r.status;"
                  "  } catch (e) { document.getElementById('state').textContent = 'failed'; }"
                  "}</script>")


@pytest.fixture
async def net(s):
    """The shared session; its routes and HAR recording gone afterwards."""
    yield s
    await ok(s, "unroute")
    if s.network.recorder is not None:
        await ok(s, "har stop")


async def load_users(s) -> str:
    await ok(s, "snapshot -i")
    result = await ok(s, f"click {ref_of(s, 'button', 'Load users')}")
    return result.output


async def test_a_mocked_api_response_shows_in_the_page_and_in_the_diff(net, base):
    s = net
    await ok(s, 'route **/api/users --body \'[{"name": "Ada Lovelace"}, {"name": "Alan"}]\'')
    await ok(s, f"goto {base}{USERS}")
    diff = await load_users(s)
    assert "Ada Lovelace" in diff and "status 200" in diff, diff
    assert await s.active.page.inner_text("#list") == "Ada Lovelace\nAlan"
    listing = (await ok(s, "routes")).output
    assert "**/api/users -> fulfil 200" in listing and "answered 1" in listing
    status = await ok(s, "status")
    assert "routes (1): **/api/users" in status.output
    assert status.data["network"]["routes"][0].startswith("**/api/users")
    await ok(s, "unroute **/api/users")
    assert (await ok(s, "routes")).output == "(no routes)"
    await ok(s, f"goto {base}{USERS}")
    assert "Ada" not in await load_users(s)  # the server's own 404 page: not JSON


async def test_route_abort_status_times_and_regex(net, base):
    s = net
    await ok(s, f"goto {base}{USERS}")
    await ok(s, "route **/api/users --abort")
    assert "failed" in await load_users(s)
    await ok(s, "unroute")
    await ok(s, r"route /\/api\/USERS$/i --status 503 --body [] --times 1")
    assert "status 503" in await load_users(s)
    second = await load_users(s)  # used up: the server answers (its 404 is no JSON)
    assert "failed" in second, second
    assert "answered 1/1" in (await ok(s, "routes")).output
    await ok(s, "unroute")
    await ok(s, "route /users$/ --status 503 --body []")
    assert "status 503" in await load_users(s)
    await ok(s, "unroute /users$/")  # a regex route is removed by its pattern too
    assert "failed" in await load_users(s)


async def test_route_header_content_type_file_and_delay(net, base, tmp_path):
    s = net
    body = tmp_path / "users.json"
    body.write_text(json.dumps([{"name": "From a file"}]))
    await ok(s, f"route **/api/users --file {body} --header 'X-Mock: yes' --delay 50")
    await ok(s, f"goto {base}{USERS}")
    assert "From a file" in await load_users(s)
    headers = await s.active.page.evaluate(
        "fetch('/api/users').then(r => [r.headers.get('x-mock'), "
        "r.headers.get('content-type')])")
    assert headers == ["yes", "application/json"]


async def test_bad_routes_are_refused_with_a_clear_line(net):
    s = net
    assert "regular expression" in (await fails(s, "route /a(b/")).error
    assert "not both" in (await fails(s, "route **/x --body a --file b")).error
    assert "no such file" in (await fails(s, "route **/x --file /nope/missing.json")).error
    assert "Name: value" in (await fails(s, "route **/x --header nocolon")).error
    assert "--abort" in (await fails(s, "route **/x --abort --status 404")).error
    assert "no route for" in (await fails(s, "unroute **/never")).error
    assert "no routes" in (await ok(s, "unroute")).output


SECRET_PAGE = page("w3n-secrets", "<p>secrets</p>")


async def test_request_n_shows_it_in_full_with_secrets_masked(net, base):
    s = net
    await ok(s, 'route **/api/me* --body \'{"me": "ada"}\' '
                '--header "Set-Cookie: sid=cookie-value-42" --header "X-Plain: visible"')
    await ok(s, f"goto {base}{SECRET_PAGE}")
    await ok(s, "cookies set session cookie-value-41")
    await ok(s, "js await fetch('/api/me?access_token=tok-abcdef123&q=plain', {method: 'POST', "
                "headers: {Authorization: 'Bearer abcdefghijklmnop', 'Content-Type': "
                "'application/x-www-form-urlencoded'}, body: 'user=ada&password=hunter2pass'})"
                ".then(r => r.text())")
    listing = (await ok(s, "network --filter api/me")).output
    assert "tok-abcdef123" not in listing and "access_token=***" in listing
    number = int(listing.split("#")[-1])
    shown = await ok(s, f"request {number}")
    text = shown.output + json.dumps(shown.data)
    for secret in ("tok-abcdef123", "abcdefghijklmnop", "cookie-value-41", "cookie-value-42",
                   "hunter2pass"):
        assert secret not in text, secret
    out = shown.output
    assert out.startswith(f"#{number} POST {base}/api/me?access_token=***&q=plain")
    assert "status: 200 OK" in out and "authorization: ***" in out
    # (Chromium keeps a fulfilled Set-Cookie to itself; tests/unit masks one)
    assert "cookie: ***" in out and "x-plain: visible" in out
    assert "user=ada&password=***" in out and '{"me": "ada"}' in out
    assert "timing (ms from start):" in out
    assert "there is no request #99999" in (await fails(s, "request 99999")).error


async def test_har_start_and_stop_write_the_responses(net, base, tmp_path):
    s = net
    har = tmp_path / "users.har"
    await ok(s, 'route **/api/users --body \'[{"name": "Recorded"}]\'')
    await ok(s, f"har start {har} --url-filter **/api/**")
    assert "recording 0 requests" in (await ok(s, "status")).output
    await ok(s, f"goto {base}{USERS}")
    await load_users(s)
    assert "har stop first" in (await fails(s, f"har start {har}")).error.replace("`", "")
    result = await ok(s, "har stop")
    assert result.data["entries"] == 1, result.output
    assert oct(har.stat().st_mode & 0o777) == "0o600"
    entry = json.loads(har.read_text())["log"]["entries"][0]
    assert entry["request"]["url"] == f"{base}/api/users"
    assert json.loads(entry["response"]["content"]["text"]) == [{"name": "Recorded"}]
    assert "no HAR is being recorded" in (await fails(s, "har stop")).error


async def test_the_tui_status_bar_shows_routes_and_emulation(net):
    from test_tui import app_for, type_command, until

    from cockpit.tui.status_bar import StatusBar
    s = net
    app = app_for(s)
    async with app.run_test(size=(220, 40)) as pilot:
        bar = app.query_one(StatusBar)
        await type_command(pilot, "route **/api/users --abort")
        await until(pilot, lambda: bar.status.network == "1 route")
        await type_command(pilot, "offline on")
        await until(pilot, lambda: bar.status.network == "1 route · offline")
        assert "net 1 route · offline" in bar.render().plain
        await type_command(pilot, "offline off")
        await until(pilot, lambda: bar.status.network == "1 route")
