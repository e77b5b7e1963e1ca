"""A walkthrough of Django's admin, recorded with its sign-in carried by `state save` /
`state load`, replayed and exported: replay refuses to click the popup's "Save" for the
product form's "Save" once the popup stayed open (its category exists now), and the
exported test runs."""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
import uuid

import pytest

from cockpit.record.reader import read
from cockpit.record.recorder import Recorder

COCKPIT = [sys.executable, "-m", "cockpit"]


async def ok(s, line: str):
    result = await s.run(line)
    assert result.ok, f"{line!r} failed: {result.error}"
    return result


def ref_of(s, role: str, name: str) -> str:
    """The first element of this role whose name has `name`, in the last snapshot."""
    return "@" + next(ref for ref, r, n, _ in s.refs_info() if r == role and name in n)


async def sign_in(s, shop) -> None:
    """Password and CAPTCHA, then the one-time code: as a person would, in the page."""
    await ok(s, f"goto {shop.url}/account/login/")
    await ok(s, "snapshot -i")
    key = (await ok(s, "js document.querySelector('[name=auth-captcha_0]').value")).output
    await ok(s, f"fill {ref_of(s, 'textbox', 'Username')} {shop.user}")
    await ok(s, f"fill {ref_of(s, 'textbox', 'Password')} {shop.password}")
    await ok(s, f"fill {ref_of(s, 'textbox', 'Captcha')} "
                f"{shop.captcha_answer(key.strip().strip(chr(34)))}")
    await ok(s, f"click {ref_of(s, 'button', 'Next')}")
    await ok(s, "snapshot -i")
    await ok(s, f"fill {ref_of(s, 'textbox', 'Token')} {shop.totp()}")
    await ok(s, f"click {ref_of(s, 'button', 'Next')}")
    assert "/account/login/" not in (await ok(s, "url")).output


async def until(condition, timeout: float = 10.0) -> None:
    import asyncio
    deadline = asyncio.get_running_loop().time() + timeout
    while not condition():
        assert asyncio.get_running_loop().time() < deadline, "condition not met in time"
        await asyncio.sleep(0.05)


def rows(shop, sql: str, *args) -> list[tuple]:
    with sqlite3.connect(shop.db) as db:
        return db.execute(sql, args).fetchall()


async def test_a_recorded_admin_walk_replays_on_its_own_pages_and_exports(
        s, shop, tmp_path):
    login = tmp_path / "login.json"
    await sign_in(s, shop)
    await ok(s, f"state save {login}")
    await s.context.clear_cookies()  # the walk carries its sign-in itself
    category, sku = f"Teas {uuid.uuid4().hex[:6]}", f"TP-{uuid.uuid4().hex[:6]}"
    path = tmp_path / "admin.jsonl"
    recorder = Recorder(s, path).start()
    try:
        await ok(s, f"state load {login}")
        await ok(s, f"goto {shop.url}/admin/shop/product/add/")
        await ok(s, "snapshot -i")
        await ok(s, f"fill {ref_of(s, 'textbox', 'Name')} Teapot")
        await ok(s, f"fill {ref_of(s, 'textbox', 'SKU')} {sku}")
        await ok(s, f"fill {ref_of(s, 'spinbutton', 'Price')} 12.50")
        await ok(s, f"click {ref_of(s, 'link', 'Add another category')}")  # the popup
        await ok(s, "tab 2")
        await ok(s, "snapshot -i")
        await ok(s, f"fill {ref_of(s, 'textbox', 'Name')} '{category}'")
        await ok(s, f"click {ref_of(s, 'button', 'Save')}")
        await until(lambda: len(s.tabs) == 1)  # the popup closes itself, tab 1 is back
        await ok(s, "snapshot -i")
        await ok(s, f"click {ref_of(s, 'button', 'Save')}")  # the product form's
    finally:
        recorder.close()
    assert rows(shop, "SELECT p.name, c.name FROM shop_product p JOIN shop_category c "
                      "ON p.category_id = c.id WHERE p.sku = ?", sku) == [("Teapot", category)]
    steps = read(path).steps
    assert [st["command"].split()[:2] for st in steps[:1]] == [["state", "load"]]
    assert len(steps) == 13 and steps[-1]["at"]["tab"] == 1  # no step lost

    # replayed: the category exists now, so the popup shows an error and stays open
    await s.context.clear_cookies()
    replayed = subprocess.run(COCKPIT + ["replay", str(path), "--no-record", "--session",
                                         "admin-replay", "--json", "--keep-going"],
                              capture_output=True, text=True, timeout=300)
    reports = {r["n"]: r for r in map(json.loads, replayed.stdout.splitlines())}
    assert replayed.returncode == 1, replayed.stdout + replayed.stderr
    assert reports[1]["status"] == "same" and reports[2]["status"] == "same", \
        [(r["n"], r["reasons"]) for r in reports.values()]
    save = reports[13]  # the product form's Save, on the popup's page: refused
    assert save["status"] == "diverged" and save["reasons"][-1] == "not run", save
    assert re.fullmatch(r'wrong tab and page: recorded on tab 1 "Add product \| Django site '
                        r'admin" \S+/admin/shop/product/add/, this is tab 2 "Error: Add '
                        r'category \| Django site admin" \S+/admin/shop/category/add/\?'
                        r'_to_field=id&_popup=1', save["reasons"][0]), save["reasons"][0]
    assert rows(shop, "SELECT count(*) FROM shop_category WHERE name = ?", category) == [(1,)]
    stopped = subprocess.run(COCKPIT + ["replay", str(path), "--no-record", "--session",
                                        "admin-replay"],
                             capture_output=True, text=True, timeout=300)
    assert stopped.returncode == 1 and "(stopped at the first divergence" in stopped.stdout

    # exported: with the category and product gone again, the test runs and passes
    pytest.importorskip("pytest_playwright", reason="pip install pytest-playwright")
    rows(shop, "DELETE FROM shop_product WHERE sku = ?", sku)
    rows(shop, "DELETE FROM shop_category WHERE name = ?", category)
    test = tmp_path / "test_admin.py"
    made = subprocess.run(COCKPIT + ["export", str(path), "--to", "pytest", "-o", str(test)],
                          capture_output=True, text=True, timeout=60)
    assert made.returncode == 0, made.stderr
    code = test.read_text()
    assert f"load_state(page, {str(login)!r})" in code and "page = after_close(page, 1)" in code
    ran = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          "-p", "playwright", test.name], cwd=tmp_path,
                         capture_output=True, text=True, timeout=300, env=os.environ)
    assert "1 passed" in ran.stdout, code + ran.stdout + ran.stderr
    assert rows(shop, "SELECT count(*) FROM shop_product WHERE sku = ?", sku) == [(1,)]
