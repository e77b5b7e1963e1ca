"""Handoff on a real sign-in wizard (Django admin behind django-two-factor-auth): the page
a POST reached (the one-time-code step) survives the relaunch into the window and back,
and so does what the agent typed; the resume report says what the page needs now."""

from __future__ import annotations


from cockpit.core import Session



async def ok(session: Session, line: str):
    result = await session.run(line)
    assert result.ok, f"{line!r} failed: {result.error}"
    return result


async def _captcha(page, shop) -> str:
    """What the picture says (the person reading it)."""
    return shop.captcha_answer(await page.input_value("[name='auth-captcha_0']"))


async def test_the_code_step_survives_the_handoff_both_ways(fresh, shop, display):
    s = fresh
    await ok(s, f"goto {shop.url}/account/login/")
    await ok(s, f"fill '[name=auth-username]' {shop.user}")
    await ok(s, f"fill '[name=auth-password]' {shop.password}")

    # the agent cannot read the CAPTCHA: a person takes over, sees what the agent typed
    handed = await ok(s, "handoff solve the captcha")
    assert s.headed and "NOT carried" not in handed.output
    page = s.active.page
    assert await page.input_value("[name=auth-username]") == shop.user
    assert await page.input_value("[name=auth-password]") == shop.password
    await page.fill("[name=auth-captcha_1]", await _captcha(page, shop))
    async with page.expect_navigation():
        await page.click("button:has-text('Next')")  # POST: to the one-time-code step
    await page.fill("[name=token-otp_token]", "12")  # started typing, then handed back

    result = await ok(s, "resume")
    assert not s.headed
    page = s.active.page
    # the POST-reached step came back to the agent, not the wizard's first step
    assert await page.locator("[name=token-otp_token]").count() == 1
    assert await page.input_value("[name=token-otp_token]") == "12"
    assert "Needs a person now: code" in result.output
    assert "No change" not in result.output
    # the wizard posts to its own URL: a new page there, said as such, not as a diff of
    # the whole first step against the second
    assert "new page at the same URL" in result.output and "On tab 1" not in result.output

    # and it is the live step: the code goes through to the admin
    await ok(s, "handoff type the code")
    page = s.active.page
    assert await page.input_value("[name=token-otp_token]") == "12", "lost in the window"
    await page.fill("[name=token-otp_token]", shop.totp())
    async with page.expect_navigation():
        await page.click("button:has-text('Next')")  # (its "Back" is a submit button too)
    signed_in = await ok(s, "resume")
    # signing in renews the session cookie: said by name, never by value
    assert "sessionid" in signed_in.data["handoff"]["changed_cookies"]
    assert "Cookies: changed csrftoken, sessionid" in signed_in.output
    session_id = next(c["value"] for c in await s.context.cookies()
                      if c["name"] == "sessionid")
    assert session_id not in signed_in.output
    await ok(s, f"goto {shop.url}/admin/")
    assert "Site administration" in await s.active.page.title()
