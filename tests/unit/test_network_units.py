"""Network pieces without a browser: route patterns, masking of requests, HAR filters,
the session flags' checks, and the emulation a context is launched with."""

import re

import pytest

from cockpit.core.base.errors import UsageError
from cockpit.core.network.har import url_filter
from cockpit.core.network.options import check_har, check_locale, check_timezone
from cockpit.core.network.requests import mask_body, mask_headers, mask_url
from cockpit.core.network.routes import RouteRule, header_pairs, matcher
from cockpit.core.network.state import NetworkState, proxy_option, shown_proxy
from cockpit.core.language.parser import parse


def test_patterns_are_globs_or_regexes():
    assert matcher("**/api/*") == "**/api/*"
    regex = matcher("/api\\/users$/i")
    assert isinstance(regex, re.Pattern) and regex.search("https://x/API/USERS")
    with pytest.raises(UsageError, match="regular expression"):
        matcher("/a(b/")


def test_repeatable_header_flag_parses_in_order():
    inv = parse('route **/x --header "A: 1" --header "B: two words" --status 201')
    assert inv.header == ["A: 1", "B: two words"] and inv.status == 201
    assert header_pairs(inv.header) == {"A": "1", "B": "two words"}
    assert parse("route **/x").header == []


def test_route_rule_describes_itself_and_checks_its_options():
    rule = RouteRule("**/api", status=404, body="{}", times=2, delay_ms=5)
    assert rule.describe() == "**/api -> fulfil 404 with 2 characters (after 5 ms); " \
                              "answered 0/2"
    assert RouteRule("**/x", abort=True).describe().startswith("**/x -> abort")
    with pytest.raises(UsageError, match="100-599"):
        RouteRule("**/x", status=42)
    with pytest.raises(UsageError, match="1 or more"):
        RouteRule("**/x", times=0)


def test_urls_headers_and_bodies_are_masked():
    assert mask_url("https://u:pw@h/p?access_token=abc&api_key=k&q=1") == \
        "https://u:***@h/p?access_token=***&api_key=***&q=1"
    assert mask_url("https://h/p?q=1") == "https://h/p?q=1"
    headers = mask_headers({"Set-Cookie": "sid=1", "Cookie": "a=b", "Authorization": "x",
                            "Proxy-Authorization": "y", "X-Other": "Bearer abcdefghijklmnopq"})
    assert headers["Set-Cookie"] == headers["Cookie"] == headers["Authorization"] == \
        headers["Proxy-Authorization"] == "***"
    assert "abcdefghijklmnopq" not in headers["X-Other"]
    assert mask_body("user=a&password=p1", "application/x-www-form-urlencoded") == \
        "user=a&password=***"
    assert "eyJ" not in mask_body('{"t": "eyJhbGciOiJIUzI1.eyJzdWIiOiIxMjM0.sig"}')


def test_har_url_filters():
    assert url_filter(None) is None
    assert url_filter("**/api/**").search("http://h/api/users")
    assert not url_filter("**/api/*").search("http://h/api/a/b")
    assert url_filter("users").search("http://h/api/users")
    assert url_filter("/u.ers/").search("http://h/users")


def test_session_flag_checks(tmp_path):
    assert check_timezone("Asia/Tokyo") == "Asia/Tokyo"
    with pytest.raises(ValueError, match="IANA"):
        check_timezone("Mars/Olympus")
    assert check_locale("pt-BR") == "pt-BR"
    with pytest.raises(ValueError, match="language tag"):
        check_locale("not a tag")
    bad = tmp_path / "x.har"
    bad.write_text("{}")
    with pytest.raises(ValueError, match="not a HAR"):
        check_har(bad)
    with pytest.raises(ValueError, match="No such file"):
        check_har(tmp_path / "missing.har")


def test_proxy_option_takes_the_password_out_and_never_shows_it():
    assert proxy_option("http://me:pw@proxy:3128") == {
        "server": "http://proxy:3128", "username": "me", "password": "pw"}
    assert proxy_option("proxy:8080") == {"server": "http://proxy:8080"}
    assert shown_proxy("http://me:pw@proxy:3128") == "http://me:***@proxy:3128"


def test_launch_options_carry_every_setting_and_summary_hides_the_password():
    state = NetworkState(device="iPhone 13", device_options={"is_mobile": True},
                         geo={"latitude": 1.0, "longitude": 2.0, "accuracy": 3.0},
                         offline=True, color_scheme="dark", headers={"X-A": "1"},
                         credentials=("ada", "s3cret-pw"), permissions=["notifications"],
                         proxy="http://u:pp@h:1")
    options = state.launch_options()
    assert options["is_mobile"] and options["color_scheme"] == "dark"
    assert "offline" not in options  # set once a relaunch has loaded the tabs again
    assert options["permissions"] == ["notifications", "geolocation"]
    assert options["http_credentials"] == {"username": "ada", "password": "s3cret-pw"}
    assert options["proxy"]["server"] == "http://h:1"
    shown = str(state.summary())
    assert "s3cret-pw" not in shown and "pp@" not in shown and "credentials ada / ***" in shown


def test_export_forms_of_routes_and_device():
    from cockpit.record.export_network import Exporter
    exporter = Exporter()

    def lines(line: str) -> list[str]:
        inv = parse(line)
        return exporter.step(inv.spec.name, inv.params)

    assert lines("route /API/i --abort --times 2 --delay 30") == [
        "def answer(route):", "    page.wait_for_timeout(30)", "    route.abort()",
        "page.context.route(re.compile('API', re.I), answer, times=2)"]
    assert lines("route **/x --header 'X-A: 1'")[1:3] == [
        "    response = route.fetch()",
        "    route.fulfill(response=response, headers={**response.headers, **{'X-A': '1'}})"]
    assert lines("unroute") == ["page.context.unroute_all()"]
    assert lines('device "iPhone 13"') == [
        "# device 'iPhone 13': Playwright cannot change the device of a running context, "
        "so the whole test runs on it, from its first step (browser_context_args)"]
    assert "playwright.devices['iPhone 13']" in exporter.helpers["device"]
    assert lines('device "Pixel 7"') == [
        "# device 'Pixel 7': not exported (Playwright cannot change the device of a running "
        "context); the test stays on 'iPhone 13'"]
    assert lines("device off")[0].startswith("# device off: not exported")
    assert "playwright.devices['iPhone 13']" in exporter.helpers["device"]  # the first
    assert lines("headers set X-A 1") == ["page.context.set_extra_http_headers({'X-A': '1'})"]
    assert lines("headers set X-B $TOKEN") == [
        "page.context.set_extra_http_headers({'X-A': '1', 'X-B': os.environ['TOKEN']})"]
    assert lines("offline on") == ["page.context.set_offline(True)"]
    assert lines("click @e1") is None


def test_the_route_tool_takes_repeated_headers_as_a_list():
    from cockpit.control import mcp_tools
    tool = mcp_tools.by_name()["browser_route"]
    assert tool.input_schema["properties"]["header"] == {
        "type": "array", "items": {"type": "string"},
        "description": "a response header (repeatable)"}
    line = tool.line({"pattern": "**/api/*", "header": ["A: 1", "B: 2"], "status": 201})
    assert parse(line).header == ["A: 1", "B: 2"] and parse(line).status == 201
