"""The policy's patterns: allowed domains and --confirm patterns (core/policy)."""

from __future__ import annotations

import pytest

from cockpit.core.policy.confirm import ConfirmPattern
from cockpit.core.policy.domains import DomainPolicy, allowed, pattern_of
from cockpit.core.language.registry import REGISTRY
from cockpit.core import commands  # noqa: F401  (registers the commands)


@pytest.mark.parametrize("given, host", [
    ("example.com", "example.com"), ("*.Example.COM", "example.com"),
    ("https://example.com/x", "example.com"), ("127.0.0.1:8000", "127.0.0.1"),
    ("localhost", "localhost"), ("example.com.", "example.com"), ("[::1]", "[::1]")])
def test_allow_domain_values_name_a_host(given, host):
    assert pattern_of(given) == host


@pytest.mark.parametrize("bad", ["", "exa mple.com", "http://", "*.", "ex!ample.com"])
def test_a_value_that_names_no_host_is_refused_with_what_to_write(bad):
    with pytest.raises(ValueError, match="is not a domain: give a host name like"):
        pattern_of(bad)


def test_subdomains_are_allowed_and_lookalikes_are_not():
    patterns = ["example.com"]
    assert allowed("example.com", patterns) and allowed("www.example.com", patterns)
    assert not allowed("evilexample.com", patterns)
    assert not allowed("example.com.evil.test", patterns)
    policy = DomainPolicy()
    policy.allow(["example.com", "127.0.0.1"])
    assert policy.allows("https://a.b.example.com/x") and policy.allows("http://127.0.0.1:9/")
    assert not policy.allows("http://localhost:9/") and policy.allows("about:blank")
    assert policy.allows("data:text/html,hi")
    rules = policy.chromium_args()[0]
    assert rules.startswith("--host-resolver-rules=MAP * ~NOTFOUND, ")
    assert "EXCLUDE example.com, EXCLUDE *.example.com" in rules
    assert DomainPolicy().chromium_args() == []  # nothing refused without the flag
    # a proxy's own host must still resolve, or nothing would load at all
    assert policy.chromium_args(reach=("proxy.corp",))[0].endswith(", EXCLUDE proxy.corp")


def confirm(text: str) -> ConfirmPattern:
    return ConfirmPattern.parse(text, REGISTRY)


def test_a_confirm_pattern_matches_the_line_or_the_target_name_without_case():
    delete = confirm("click:*Delete*")
    assert delete.matches("click", "click @e7", ["Delete all"])
    assert delete.matches("click", "click 'button.delete-all'", [])
    assert not delete.matches("click", "click @e8", ["Save"])
    assert not delete.matches("fill", "fill @e7 Delete", ["Delete all"])
    assert confirm("fill:password").matches("fill", "fill @e5 $PW", ["Password"])
    assert confirm("goto:*checkout*").matches("goto", "goto /checkout", [])
    assert confirm("open:*checkout*").word == "goto"  # an alias means its command
    assert confirm("goto").matches("goto", "goto example.com", [])  # every goto


@pytest.mark.parametrize("bad, said", [
    ("clik:*x*", "there is no command 'clik'"), ("click:", "write a command and a glob"),
    (":*x*", "write a command and a glob")])
def test_a_bad_confirm_pattern_says_what_to_write(bad, said):
    with pytest.raises(ValueError, match=said):
        confirm(bad)


class FakeContext:
    """A browser context as DomainPolicy.install uses it."""

    def __init__(self) -> None:
        self.routes: list[str] = []
        self.pages: list[object] = []

    async def route(self, pattern: str, handler: object) -> None:
        self.routes.append(pattern)

    def on(self, event: str, handler: object) -> None:
        pass


@pytest.mark.parametrize("engine", ["firefox", "webkit"])
async def test_an_engine_that_cannot_stop_redirects_is_said_at_start_and_in_status(engine):
    from cockpit.core.policy import Policy
    from cockpit.core.base.events import EventBus
    policy = Policy(EventBus())
    policy.domains.allow(["example.com"])
    await policy.domains.install(FakeContext(), engine, resolver=False)
    assert policy.domains.gap is not None
    assert f"{engine} cannot stop a server redirect" in policy.domains.gap
    assert policy.describe()["allowed_domains_gap"] == policy.domains.gap
    chromium = Policy(EventBus())
    chromium.domains.allow(["example.com"])
    await chromium.domains.install(FakeContext(), "chromium", resolver=True)
    assert chromium.describe()["allowed_domains_gap"] is None
