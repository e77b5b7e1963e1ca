"""Recognising pages that need a person (captcha, one-time code, sign-in), on a real browser.

The demo's own sign-in steps must be recognised as they are; synthetic pages cover the
real-world widgets (reCAPTCHA, hCaptcha, Turnstile, Cloudflare interstitials) offline:
iframes are judged by their src, so no request for them ever has to succeed.
"""

from __future__ import annotations

import asyncio
import statistics
import time

import pytest
from cockpit.core.handoff.needs import Need, detect_need


async def need_of(s) -> Need | None:
    return await detect_need(s.active.page)


# The page is driven through Playwright itself, not `s.run(...)`: commands now check for
# needs on their own, and these tests are about the detector, not that wiring.
async def test_demo_sign_in_steps(s, site):
    page = s.active.page
    await page.goto(f"{site.url}/login")
    assert await need_of(s) is None, "a login page we asked for needs nobody"
    await page.fill("#email", site.email)
    await page.fill("#password", site.password)
    await page.click("button[type=submit]")
    await page.wait_for_url("**/mfa")
    need = await need_of(s)
    assert need is not None and need.kind == "code", need
    assert need.detail == 'input autocomplete="one-time-code"'
    assert need.url == f"{site.url}/mfa"
    assert need.to_json() == {"kind": "code", "detail": need.detail, "url": need.url}

    await page.fill("#code", site.mfa_code)
    await page.click("button[type=submit]")
    await page.wait_for_url("**/challenge")
    need = await need_of(s)
    assert need is not None and need.kind == "captcha", need
    assert need.detail == "element img.captcha"

    await page.fill("#answer", site.captcha_answer)
    await page.click("button[type=submit]")
    await page.wait_for_url("**/inbox")
    assert await need_of(s) is None
    assert await detect_need(page, redirected=True) is None, "no password box here"

    # One check after every navigation must stay cheap.
    times = []
    for _ in range(50):
        started = time.perf_counter()
        await need_of(s)
        times.append(time.perf_counter() - started)
    median_ms = statistics.median(times) * 1000
    print(f"detect_need on the inbox: median {median_ms:.2f} ms")
    assert median_ms < 50


@pytest.mark.parametrize("path", ["/", "/reference", "/playground", "/report"])
async def test_ordinary_demo_pages_need_nobody(s, site, path):
    await s.active.page.goto(f"{site.url}{path}")
    assert await need_of(s) is None


async def test_sign_in_after_a_redirect_is_a_login_need(s, site):
    await s.active.page.goto(f"{site.url}/inbox")  # signed out: the site sends us to /login
    assert s.active.url == f"{site.url}/login"
    need = await need_of(s)  # the page's navigation timing says it was redirected
    assert need is not None and need.kind == "login", need
    assert need.detail == "password field after a redirect"


CAPTCHA, CODE, LOGIN = "captcha", "code", "login"
SYNTHETIC = {
    "recaptcha iframe": ('<iframe src="https://www.google.com/recaptcha/api2/anchor?k=x" '
                         'width="304" height="78"></iframe>', CAPTCHA),
    "hcaptcha marker": ('<div class="h-captcha" data-sitekey="x"></div>', CAPTCHA),
    "turnstile marker": ('<div class="cf-turnstile"></div>', CAPTCHA),
    "turnstile iframe": ('<iframe src="https://challenges.cloudflare.com/cdn-cgi/x"></iframe>',
                         CAPTCHA),
    "cloudflare interstitial": ("<title>Just a moment...</title><p>Please wait</p>", CAPTCHA),
    "checking your browser": ("<p>Checking your browser before accessing the site.</p>",
                              CAPTCHA),
    "data-captcha marker": ('<div data-captcha>Type the letters</div>', CAPTCHA),
    "one-time-code input": ('<input autocomplete="one-time-code">', CODE),
    "short numeric input": ('<input inputmode="numeric" maxlength="6">', CODE),
    "input named otp": ('<input name="userOtp">', CODE),
    "one box per digit": ('<input inputmode="numeric" maxlength="1">' * 6, CODE),
    # Look-alikes and hidden things that need nobody.
    "search box": ('<form><input type="search" name="q" placeholder="Search"></form>', None),
    "newsletter form": ('<form><label>Email <input type="email" name="email"></label>'
                        '<button>Subscribe</button></form>', None),
    "zip code": ('<input name="zip" inputmode="numeric" maxlength="5">', None),
    "hidden one-time-code": ('<input autocomplete="one-time-code" style="display:none">', None),
    "invisible recaptcha": ('<iframe src="https://www.google.com/recaptcha/api2/anchor?k=x'
                            '&size=invisible"></iframe>', None),
    "recaptcha v3 on a button": ('<button class="g-recaptcha" data-sitekey="x">Send</button>',
                                 None),
    "password not redirected": ('<input type="password" name="pw">', None),
}


@pytest.mark.parametrize("name", list(SYNTHETIC))
async def test_synthetic_pages(s, name):
    html, kind = SYNTHETIC[name]
    await s.active.page.set_content(html)
    need = await need_of(s)
    if kind is None:
        assert need is None, need
    else:
        assert need is not None and need.kind == kind, need


async def test_password_field_is_a_login_need_only_after_a_redirect(s):
    await s.active.page.set_content('<form><input name="user"><input type="password"></form>')
    assert await detect_need(s.active.page, redirected=False) is None
    need = await detect_need(s.active.page, redirected=True)
    assert need is not None and need.kind == "login", need
    assert need.url == s.active.page.url


async def test_captcha_comes_before_code_and_login(s):
    await s.active.page.set_content('<input type="password"><input autocomplete="one-time-code">'
                                    '<div class="g-recaptcha" data-sitekey="x"></div>')
    need = await detect_need(s.active.page, redirected=True)
    assert need is not None and need.kind == "captcha", need


async def test_a_closed_page_is_no_need_and_no_error(s):
    page = await s.context.new_page()
    await page.close()
    assert await detect_need(page) is None
    assert await detect_need(page, redirected=True) is None


async def test_checks_during_a_navigation_never_raise(s, site):
    page = s.active.page
    await page.goto(f"{site.url}/reference")
    going = asyncio.ensure_future(page.goto(f"{site.url}/playground"))
    seen = []
    while not going.done():  # old document, no document, new document: all answerable
        seen.append(await detect_need(page))
    await going
    assert seen and all(need is None for need in seen)
