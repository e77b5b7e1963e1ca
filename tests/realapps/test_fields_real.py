"""Fields of real apps as Cockpit reports and works them (apps.py starts them): Streamlit's
custom-styled checkbox is checked through its label at once, and a Django admin select of
records (ids for values) answers with the label chosen."""

from __future__ import annotations

from conftest import ok, ref_of


async def test_streamlit_checkbox_is_checked_through_its_label(s, data_app):
    """Its input is clipped out of sight under a styled square of its own label: Playwright
    waited 5 s for it, then said to dismiss the label."""
    await ok(s, f"goto {data_app}")
    await ok(s, 'wait --text "Current:" --timeout 30000')
    await ok(s, "wait 'input[type=checkbox]'")
    await ok(s, "snapshot -i")
    urgent = ref_of(s, "checkbox", "Urgent")
    saved, s.action_timeout = s.action_timeout, 2  # no waiting for the covered input
    try:
        checked = await ok(s, f"check {urgent}")
    finally:
        s.action_timeout = saved
    assert f'{urgent} checkbox "Urgent" (checked: - -> true)' in checked.output
    await ok(s, f"click {ref_of(s, 'button', 'Place order')}")
    await ok(s, 'wait --text "(urgent)"')
    await ok(s, f"uncheck {ref_of(s, 'checkbox', 'Urgent')}")


async def signed_in(s, shop) -> None:
    """Through the admin's two-step sign-in, in the page itself (what other tests test)."""
    page = s.active.page
    await ok(s, f"goto {shop.url}/account/login/")
    await page.fill("#id_auth-username", shop.user)
    await page.fill("#id_auth-password", shop.password)
    key = await page.get_attribute("#id_auth-captcha_0", "value")
    await page.fill("#id_auth-captcha_1", shop.captcha_answer(key or ""))
    await page.click("button:has-text('Next')")
    await page.wait_for_selector("input[name='token-otp_token']")
    await page.fill("input[name='token-otp_token']", shop.totp())
    await page.click("button:has-text('Next')")
    await page.wait_for_url(lambda url: "/login" not in url, wait_until="load")


async def test_admin_select_answers_with_the_label(s, shop):
    await signed_in(s, shop)
    await ok(s, f"goto {shop.url}/admin/shop/product/add/")
    await ok(s, "snapshot -i")
    category = ref_of(s, "combobox", "Category")
    chosen = await ok(s, f"select {category} Kitchen")
    assert chosen.output.splitlines()[0] == f"selected Kitchen in {category}", chosen.output
    assert chosen.data["labels"] == ["Kitchen"] and chosen.data["selected"] != ["Kitchen"]
