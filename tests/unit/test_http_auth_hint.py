"""What a 401 page tells the agent: `credentials` where a user name and password can
help (Basic, Digest), nothing where they cannot (a token's Bearer, Negotiate), and that
those given were refused when there were some."""

from __future__ import annotations

import pytest

from cockpit.core.page.translate import http_auth_hint

pytestmark = pytest.mark.unit


@pytest.mark.parametrize("challenge", ['Basic realm="shop"', 'Digest realm="a", qop="auth"',
                                       'Negotiate, Basic realm="intranet"'])
def test_a_password_sign_in_is_told_how_to_give_one(challenge):
    hint = http_auth_hint(challenge, given=False)
    assert hint is not None and "`credentials USER PASSWORD`" in hint


@pytest.mark.parametrize("challenge", ['Bearer realm="api", error="invalid_token"',
                                       "Negotiate"])
def test_a_sign_in_a_password_cannot_answer_gets_no_such_advice(challenge):
    assert http_auth_hint(challenge, given=False) is None


def test_credentials_given_and_refused_are_said_to_be_refused():
    hint = http_auth_hint('Basic realm="shop"', given=True)
    assert hint is not None and "refused the user name and password given" in hint
