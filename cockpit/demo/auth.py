"""Sign-in flow: password, one-time code, human check; and signing out."""

from __future__ import annotations

import hmac
from typing import TYPE_CHECKING

from .pages import error_block, esc, page
from .state import Session

if TYPE_CHECKING:
    from .server import DemoHandler

STEPS = ("/login", "/mfa", "/challenge")


def require(h: DemoHandler, step: str | None) -> Session | None:
    """The session if every step before `step` is done (None: all steps); else redirect.

    Sends the browser to the first missing step, so a deep link always lands somewhere
    that makes sense; returns None when it did so (the caller just returns).
    """
    session = h.session
    missing = session.missing_step if session else "/login"
    if missing is None or (step is not None and STEPS.index(missing) >= STEPS.index(step)):
        return session
    h.redirect(missing)
    return None


def _same(given: str, expected: str) -> bool:
    # Constant-time compare: a habit worth keeping even in a demo.
    return hmac.compare_digest(given.encode("utf-8"), expected.encode("utf-8"))


# -- password -----------------------------------------------------------------------

def _login_page(h: DemoHandler, error: str | None = None, email: str = "") -> str:
    return page("login.html", "Sign in", error=error_block(error), email=esc(email),
                demo_email=esc(h.site.email), demo_password=esc(h.site.password))


def login_form(h: DemoHandler) -> None:
    h.send_html(_login_page(h))


def login_submit(h: DemoHandler) -> None:
    form = h.form()
    email, password = form.get("email", "").strip(), form.get("password", "")
    if not (_same(email.lower(), h.site.email.lower()) and _same(password, h.site.password)):
        h.send_html(_login_page(h, "Wrong email or password", email))
        return
    h.site.state.logout(_token(h))  # a new sign-in starts a new session
    session = h.site.state.login()
    h.redirect("/mfa", [h.session_cookie(session.token)])


def _token(h: DemoHandler) -> str | None:
    session = h.session
    return session.token if session else None


def logout(h: DemoHandler) -> None:
    h.site.state.logout(_token(h))
    h.redirect("/", [h.session_cookie(None)])


# -- one-time code ------------------------------------------------------------------

def _mfa_page(h: DemoHandler, error: str | None = None) -> str:
    return page("mfa.html", "Verification code", error=error_block(error),
                code=esc(h.site.mfa_code))


def mfa_form(h: DemoHandler) -> None:
    if require(h, "/mfa"):
        h.send_html(_mfa_page(h))


def mfa_submit(h: DemoHandler) -> None:
    session = require(h, "/mfa")
    if session is None:
        return
    code = "".join(h.form().get("code", "").split())  # "246 810" is fine too
    if not _same(code, h.site.mfa_code):
        h.send_html(_mfa_page(h, "That code is not right"))
        return
    if not h.site.human_check:  # benchmarks: a script cannot read the picture
        h.site.state.mark(session, mfa_ok=True, verified=True)
        h.redirect("/inbox")
        return
    h.site.state.mark(session, mfa_ok=True)
    h.redirect("/challenge")


# -- human check --------------------------------------------------------------------

def _challenge_page(h: DemoHandler, error: str | None = None) -> str:
    return page("challenge.html", "Verify you are human", error=error_block(error),
                generation=h.site.captcha.generation)


def challenge_form(h: DemoHandler) -> None:
    if require(h, "/challenge"):
        h.send_html(_challenge_page(h))


def challenge_image(h: DemoHandler) -> None:
    h.send_body(h.site.captcha.svg.encode("utf-8"), "image/svg+xml")


def challenge_submit(h: DemoHandler) -> None:
    session = require(h, "/challenge")
    if session is None:
        return
    if not h.site.captcha.check(h.form().get("answer", "")):
        h.site.captcha.rotate()  # a wrong guess earns a new picture, as real ones do
        h.send_html(_challenge_page(h, "Those characters do not match"))
        return
    h.site.state.mark(session, verified=True)
    h.redirect("/inbox")
