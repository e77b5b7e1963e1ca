"""A GET form with a password field puts the password in the URL it navigates to: no
result, event or file shows it there."""

from __future__ import annotations

from conftest import ok, page

PASSWORD = "getform-sekrit-31337"
FORM = page("debt-get-form", "<form method=get action='/debt-get-form'>"
            "<input name=user aria-label=User><input type=password name=pw aria-label=Pass>"
            "<button>Sign in</button></form>")


async def test_a_get_forms_password_is_not_shown_in_the_url(s, base):
    events: list[str] = []
    unsubscribe = s.bus.subscribe(lambda event: events.append(repr(event.data)))
    try:
        await ok(s, f"goto {base}{FORM}")
        await ok(s, "fill 'input[name=user]' ada")
        await ok(s, f"fill 'input[name=pw]' {PASSWORD}")
        clicked = await ok(s, "click 'form button'")
        assert "pw=" in s.active.page.url and PASSWORD in s.active.page.url  # the page's own
        written = s.redactor.files.text(s.active.page.url)  # recordings, logs, traces
        shown = [written, clicked.output, repr(clicked.data), (await ok(s, "url")).output,
                 (await ok(s, "tabs")).output, (await ok(s, "status")).output]
    finally:
        unsubscribe()
    for text in shown + events:
        assert PASSWORD not in text, text
