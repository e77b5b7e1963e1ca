"""Django's admin behind django-two-factor-auth, driven through Cockpit as a user does:
the sign-in with an image CAPTCHA and a one-time code, then a CRUD round on its products
with a validation error, the "+" add-related popup and the delete confirmation.

Each test checks what Cockpit's results SAY (titles, needs, diff lines), not only that the
browser got somewhere: an agent acts on the text."""

from __future__ import annotations

import itertools
import json
import re

from steps import look, ok, ref, said, sign_in, signed_in

from cockpit.core import Session
from cockpit.core.base.result import Result

_names = itertools.count(1)


def unique(word: str) -> str:
    """A name no other test of this run used (the shop's database lives for the run)."""
    return f"{word} {next(_names)}"


async def test_the_sign_in_reports_the_captcha_then_the_code_then_the_admin(s, shop):
    opened, user, password, captcha, to_code, typed, signed = await sign_in(s, shop)
    assert opened.output.splitlines()[0].endswith(": Login"), opened.output
    assert opened.data["needs"] == "captcha"
    assert "needs: captcha: ask a person with `handoff`" in opened.output
    assert 'textbox "Captcha:"' in opened.output and 'button "Next"' in opened.output
    assert password.data["secret"] is True
    steps = [opened, user, password, captcha, to_code, typed, signed]
    assert not any(shop.password in json.dumps(r.to_json()) for r in steps)
    # the second step of the wizard: a one-time code is a person's job too
    assert to_code.data["needs"] == "code"
    assert "needs: code: ask a person with `handoff`" in to_code.output
    assert 'textbox "Token:"' in to_code.output
    # signed in: the admin's index, and no need any more
    # (after a note when Django's dev server was slow to serve the page: once, with two
    # busy loops beside the run, the result said "the page was still loading after 10 s"
    # first, truly)
    told = [line for line in said(signed).splitlines()[1:]
            if not line.startswith("note: the page was still loading")]
    assert told[0].startswith("new page /admin/"), signed.output
    assert signed.data["tab"]["title"] == "Site administration | Django site admin"
    assert "needs" not in signed.data and "needs:" not in signed.output


async def test_a_sign_in_step_posted_to_its_own_url_names_the_page_it_reached(s, shop):
    to_code = (await sign_in(s, shop))[4]
    # the code page has the password page's URL: the result must still say where it is
    text = said(to_code)
    assert "/account/login/" in text or "Login" in text, to_code.output


async def test_a_sign_in_the_browser_refuses_says_which_field_is_missing(s, shop):
    opened = await ok(s, f"goto {shop.url}/admin/")
    await ok(s, f"fill {ref(opened.output, 'textbox', 'Username')} {shop.user}")
    refused = await ok(s, f"click {ref(opened.output, 'button', 'Next')}")
    # the browser stopped the form at the empty Password field (its `required`): say so
    assert "No change" not in refused.output, refused.output
    assert "Password" in refused.output, refused.output


async def crud_round(s: Session, shop, name: str, sku: str) -> dict[str, Result]:
    """Add a product (first without its required SKU), change its price, delete it: each
    step's result by what it did."""
    done: dict[str, Result] = {}
    await signed_in(s, shop)
    done["open"] = await ok(s, f"goto {shop.url}/admin/shop/product/add/")
    page = await look(s)
    await ok(s, f"fill {ref(page, 'textbox', 'Name')} '{name}'")
    await ok(s, f"fill {ref(page, 'spinbutton', 'Price')} 12.50")
    done["select"] = await ok(s, f"select {ref(page, 'combobox', 'Category')} Garden")
    done["refused"] = await ok(s, f"click {ref(page, 'button', 'Save', exact=True)}")
    done["refused page"] = page = await look(s)
    await ok(s, f"fill {ref(page, 'textbox', 'SKU')} {sku}")
    done["added"] = await ok(s, f"click {ref(page, 'button', 'Save', exact=True)}")
    page = await look(s)
    done["edit"] = await ok(s, f"click {ref(page, 'link', name, exact=True)}")
    page = await look(s)
    await ok(s, f"fill {ref(page, 'spinbutton', 'Price')} 14")
    done["changed"] = await ok(s, f"click {ref(page, 'button', 'Save', exact=True)}")
    page = await look(s)
    await ok(s, f"click {ref(page, 'link', name, exact=True)}")
    page = await look(s)
    done["confirm"] = await ok(s, f"click {ref(page, 'link', 'Delete', exact=True)}")
    page = await look(s)
    done["deleted"] = await ok(s, f"click {ref(page, 'button', 'Yes')}")
    done["list"] = await look(s)
    return done


_ROUNDS: dict[str, tuple[str, dict[str, Result]]] = {}


async def the_round(s: Session, shop) -> tuple[str, dict[str, Result]]:
    """The run's one CRUD round (a dozen page loads on a slow machine): its product's name
    and results, for the tests that read them, whichever runs first."""
    if shop.url not in _ROUNDS:
        name, sku = unique("Watering can"), unique("WC").replace(" ", "-")
        _ROUNDS[shop.url] = name, await crud_round(s, shop, name, sku)
    return _ROUNDS[shop.url]


async def test_a_product_is_added_refused_changed_and_deleted(s, shop):
    """The round reaches every page of it, and the pages' state reads right."""
    name, done = await the_round(s, shop)
    assert done["open"].data["title"] == "Add product | Django site admin"
    assert 'combobox "Category:" (selected: "---------" -> "Garden")' in done["select"].output
    # the SKU was left empty: the admin's error page, the typed values kept
    assert done["refused"].data["tab"]["title"] == "Error: Add product | Django site admin"
    assert re.search(r'textbox "SKU:" \[invalid\]', done["refused page"])
    assert f'textbox "Name:" [active]: {name}' in done["refused page"]
    assert 'combobox "Category:": Garden' in done["refused page"]
    assert "new page /admin/shop/product/" in said(done["added"]), done["added"].output
    assert done["edit"].data["tab"]["title"] == f"{name} | Change product | Django site admin"
    assert done["changed"].data["tab"]["url"] == f"{shop.url}/admin/shop/product/"
    assert done["confirm"].data["tab"]["title"] == "Delete | Django site admin"
    assert f'link "{name}"' not in done["list"]


async def test_form_results_say_what_the_admin_answered(s, shop):
    done = (await the_round(s, shop))[1]
    refused = done["refused"].output
    assert "This field is required." in refused or "Please correct the error" in refused, \
        refused
    assert "was added successfully" in done["added"].output, done["added"].output
    assert "was changed successfully" in done["changed"].output, done["changed"].output
    # the delete confirmation page, by its title (its heading asks "Are you sure?")
    assert "Delete | Django site admin" in said(done["confirm"]) or \
        "Are you sure?" in done["confirm"].output, done["confirm"].output
    assert "was deleted successfully" in done["deleted"].output, done["deleted"].output


async def test_select_answers_with_the_label_it_chose(s, shop):
    await signed_in(s, shop)
    await ok(s, f"goto {shop.url}/admin/shop/product/add/")
    page = await look(s)
    chose = await ok(s, f"select {ref(page, 'combobox', 'Category')} Kitchen")
    assert "Kitchen" in chose.output.splitlines()[0], chose.output


async def test_the_add_related_popup_opens_a_tab_and_its_save_changes_the_opener(s, shop):
    category = unique("Seeds")
    await signed_in(s, shop)
    await ok(s, f"goto {shop.url}/admin/shop/product/add/")
    page = await look(s)
    opened = await ok(s, f"click {ref(page, 'link', 'Add another category')}")
    assert "opened tab 2: " in opened.output and "_popup=1" in opened.output
    await ok(s, "tab 2")
    popup = await look(s)
    assert 'heading "Add category"' in popup
    await ok(s, f"fill {ref(popup, 'textbox', 'Name')} '{category}'")
    saved = await ok(s, f"click {ref(popup, 'button', 'Save', exact=True)}")
    # the popup closed itself and the product form's dropdown now holds the new category
    assert "closed" in said(saved), saved.output
    assert category in saved.output, saved.output
    assert len((await ok(s, "tabs")).data["tabs"]) == 1
    await ok(s, "tab 1")
    assert f'combobox "Category:": {category}' in await look(s)
