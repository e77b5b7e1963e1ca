"""What Cockpit says happened, on real apps: Django's admin (its "add another" popup that
posts and closes itself, a form's validation errors, the sign-in form's `required`
fields) and a Streamlit app (its first render over a WebSocket, the title it sets then, a
re-render that lands after the click)."""

from __future__ import annotations

import re

from cockpit.core import Session


async def _ok(s: Session, line: str):
    result = await s.run(line)
    assert result.ok, f"{line!r} failed: {result.error}"
    return result


def _ref(s: Session, role: str, name: str) -> str:
    snap = s.active.snapshot
    assert snap is not None
    for ref, node in snap.refs.items():
        if node.role == role and name in node.name:
            return "@" + ref
    raise AssertionError(f"no {role} {name!r} in:\n{snap.raw}")


async def _signed_in(s: Session, shop) -> None:
    """Through the two-step sign-in, as a person who reads the CAPTCHA would."""
    await _ok(s, f"goto {shop.url}/account/login/")
    await _ok(s, "snapshot -i")
    key = await s.active.page.locator("input[name='auth-captcha_0']").input_value()
    await _ok(s, f"fill {_ref(s, 'textbox', 'Username')} {shop.user}")
    await _ok(s, f"fill {_ref(s, 'textbox', 'Password')} {shop.password}")
    await _ok(s, f"fill {_ref(s, 'textbox', 'Captcha')} {shop.captcha_answer(key)}")
    await _ok(s, f"click {_ref(s, 'button', 'Next')}")
    await _ok(s, "snapshot -i")
    await _ok(s, f"fill {_ref(s, 'textbox', 'Token')} {shop.totp()}")
    r = await _ok(s, f"click {_ref(s, 'button', 'Next')}")
    assert "/admin/" in r.output, r.output


async def test_the_admin_says_what_its_forms_and_popup_did(shop):
    async with Session("real-settle-shop") as s:
        # the sign-in form's own `required` check refuses an empty submit: said, and why
        await _ok(s, f"goto {shop.url}/account/login/")
        await _ok(s, "snapshot -i")
        r = await _ok(s, f"click {_ref(s, 'button', 'Next')}")
        assert "not submitted: the browser refused the form (@" in r.output, r.output
        assert 'textbox "Username:"' in r.output and "No change" not in r.output, r.output

        await _signed_in(s, shop)
        await _ok(s, f"goto {shop.url}/admin/shop/product/add/")
        await _ok(s, "snapshot -i")
        # a submit with errors answers on the same URL: its title and errors come first
        r = await _ok(s, f"click {_ref(s, 'button', 'Save')}")
        lines = r.output.splitlines()
        assert lines[1] == ('new page /admin/shop/product/add/ (POST, same URL): '
                            '"Error: Add product | Django site admin"'), r.output
        assert lines[2] == "alert: Please correct the errors below.", r.output
        assert re.match(r'@e\d+ textbox "Name:": This field is required\.', lines[3]), r.output

        # the "+" popup: it posts, gets a tiny document that sets the opener's select and
        # closes itself; the click says so, and the session is back on the product form
        await _ok(s, "snapshot -i")
        r = await _ok(s, f"click {_ref(s, 'link', 'Add another category')}")
        assert "opened tab 2" in r.output, r.output
        await _ok(s, "tab 2")
        await _ok(s, "wait --selector input[name=name]")
        await _ok(s, "snapshot -i")
        await _ok(s, f"fill {_ref(s, 'textbox', 'Name')} Tools")
        r = await _ok(s, f"click {_ref(s, 'button', 'Save')}")
        assert "tab 2 closed (the page closed its window); now on tab 1: " in r.output, \
            r.output
        assert re.search(r'combobox "Category:" \(selected: "-+" -> "Tools"\)', r.output), \
            r.output
        assert s.active.index == 1 and len(s.tabs) == 1
        r = await _ok(s, "wait 100")  # no raw "Target page ... has been closed"

        # a successful save: the list page and its success message
        await _ok(s, "snapshot -i")
        await _ok(s, f"fill {_ref(s, 'textbox', 'Name')} Rake")
        await _ok(s, f"fill {_ref(s, 'textbox', 'SKU')} R-1")
        await _ok(s, f"fill {_ref(s, 'spinbutton', 'Price')} 12.5")
        r = await _ok(s, f"click {_ref(s, 'button', 'Save')}")
        assert 'new page /admin/shop/product/: "Select product to change' in r.output, r.output
        assert "message: The product “Rake” was added successfully." in r.output, r.output


async def test_streamlit_goto_waits_for_the_first_render_and_clicks_for_the_rerender(
        data_app):
    async with Session("real-settle-data") as s:
        r = await _ok(s, f"goto {data_app}")
        # the app names its tab as it renders, after `load`: the goto says the name it
        # has now (it said `opened: Streamlit`, the HTML's, while the tab read another)
        assert r.output.splitlines()[0] == "opened: Plant orders", r.output
        assert r.data["title"] == "Plant orders" == r.data["tab"]["title"], r.data
        # the widgets come over the WebSocket after `load`: the goto lists them all
        for control in ('combobox "Category"', 'slider "Quantity', 'textbox "Note"',
                        'checkbox "Urgent"', 'button "Place order"'):
            assert control in r.output, r.output
        await _ok(s, "snapshot -i")
        for value in (3, 4):
            failed = await s.run("click @e999")  # a failed command right before
            assert not failed.ok
            await _ok(s, f"focus {_ref(s, 'slider', 'Quantity')}")
            r = await _ok(s, "press ArrowRight")
            # the rerun's answer lands after the key: it is in the key's own result
            assert f'"Current: {value - 1} x Garden" -> "Current: {value} x Garden"' in \
                r.output, r.output


async def _run_cells(s: Session, notebook: str, codes: list[tuple[int, str]]) -> None:
    """Give the notebook's second cell each code in turn (its `total`: sum(range(n))), as
    a person types it, and run it with Shift+Enter: the key's own result holds the cell's
    new output (the kernel's answer comes over marimo's socket after the run request)."""
    await _ok(s, f"goto {notebook}")
    page = s.active.page
    editor = page.locator(".cm-content").nth(1)  # `total = sum(range(10))`
    await editor.wait_for(timeout=30_000)
    for n, code in codes:
        await editor.click()
        await page.keyboard.press("Control+a")
        await page.keyboard.type(code.format(n=n))
        await _ok(s, "snapshot")  # as the agent's own typing would have left it
        r = await _ok(s, "press Shift+Enter")
        assert re.search(rf'\b{sum(range(n))}\b"?', r.output), r.output
        assert "note:" not in r.output, r.output


async def test_a_notebook_cell_run_answers_with_its_output(notebook):
    async with Session("real-settle-notebook") as s:
        await _run_cells(s, notebook, [(n, "total = sum(range({n}))\ntotal") for n in (21, 22)])


async def test_a_cell_that_computes_a_while_answers_with_its_output(notebook):
    # the kernel says "running" and marimo counts the elapsed time each frame while the
    # cell sleeps: the result had the counter at ~0.4 s and the run button disabled, and
    # not the output; it waits while the page counts, and has the output
    async with Session("real-settle-notebook-slow") as s:
        await _run_cells(s, notebook, [
            (31, "import time\ntime.sleep(1.2)\ntotal = sum(range({n}))\ntotal"),
            (10, "total = sum(range({n}))\ntotal")])  # (as the file had it)
