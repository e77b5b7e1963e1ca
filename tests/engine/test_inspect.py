"""Inspect commands in a real browser: js and eval, attrs, css, is, count, and the session's
console, network and dialog logs, and perf."""

from __future__ import annotations

import asyncio

import pytest
from conftest import fails, ok, ref_of


async def playground(s, site):
    await ok(s, f"goto {site.url}/playground")
    await ok(s, "snapshot -i")


async def until(s, line: str, wanted: str) -> str:
    """Run a read-only line until its output contains `wanted` (bounded), and return it."""
    for _ in range(100):
        output = (await ok(s, line)).output
        if wanted in output:
            return output
        await asyncio.sleep(0.02)
    raise AssertionError(f"{line!r} never showed {wanted!r}; last: {output!r}")


async def test_js_expressions_await_and_statements(s, site):
    await playground(s, site)
    result = await ok(s, "js 6 * 7")
    assert (result.output, result.data["value"]) == ("42", 42)
    assert "diff" not in result.data  # js neither settles nor diffs
    assert (await ok(s, "js document.title")).output.startswith("Playground")
    result = await ok(s, 'js [1, "x", {a: null}, true]')
    assert result.data["value"] == [1, "x", {"a": None}, True]
    assert result.output == '[1, "x", {"a": null}, true]'
    assert (await ok(s, "js undefined")).output == "undefined"
    result = await ok(s, "js await fetch('/api/slow?ms=10').then(r => r.json())")
    assert result.data["value"] == {"ok": True, "ms": 10}
    result = await ok(s, "js const n = document.querySelectorAll('button').length; return n * 2;")
    assert result.data["value"] == 2 * (await ok(s, "count button")).data["count"]


@pytest.mark.parametrize("code, shown", [
    ("throw new Error('boom')", "Error: boom"),
    ("nosuchvariable.field", "ReferenceError: nosuchvariable is not defined"),
])
async def test_js_exception_is_one_line_and_the_session_goes_on(s, site, code, shown):
    await playground(s, site)
    result = await fails(s, f"js {code}")
    assert result.error.startswith(f"JS exception: {shown}") and result.exit_code == 1
    assert (await ok(s, "js 1 + 1")).output == "2"
    assert (await ok(s, "click '#log-console'")).output.startswith("clicked")


async def test_eval_file(s, site, tmp_path):
    await playground(s, site)
    script = tmp_path / "collect.js"
    script.write_text("const names = [...document.querySelectorAll('h2')]"
                      ".map(h => h.textContent);\n"
                      "return {count: names.length, first: names[0]};\n")
    result = await ok(s, f"eval {script}")
    assert result.data["value"] == {"count": 12, "first": "Frame"}
    expression = tmp_path / "expr.js"
    expression.write_text("document.querySelector('h1').textContent\n")
    assert (await ok(s, f"eval {expression}")).output == "Playground"
    result = await fails(s, f"eval {tmp_path / 'missing.js'}")
    assert result.exit_code == 2 and "no such file" in result.error


async def test_attrs(s, site):
    await playground(s, site)
    result = await ok(s, f"attrs {ref_of(s, 'checkbox', 'Subscribe')}")
    assert result.data["attrs"] == {"id": "subscribe", "name": "subscribe", "type": "checkbox"}
    assert result.output.splitlines() == ['id="subscribe"', 'name="subscribe"', 'type="checkbox"']
    result = await ok(s, f"attrs {ref_of(s, 'button', 'Disabled button')}")
    assert result.data["attrs"] == {"type": "button", "disabled": ""}
    assert "matched" in (await fails(s, "attrs button")).error


async def test_css_default_set_and_named_properties(s, site):
    await playground(s, site)
    result = await ok(s, f"css {ref_of(s, 'button', 'Covered button')}")
    found = result.data["css"]
    assert {"display", "visibility", "position", "z-index", "color", "background-color",
            "cursor", "pointer-events", "width", "height"} <= set(found)
    assert found["visibility"] == "visible" and found["cursor"] == "pointer"
    assert "cursor: pointer" in result.output.splitlines()
    result = await ok(s, "css '#consent' z-index position")
    assert result.data["css"] == {"z-index": "10", "position": "absolute"}
    assert result.output == "z-index: 10\nposition: absolute"


async def test_is_visible_enabled_checked(s, site):
    await playground(s, site)
    covered, subscribe = ref_of(s, "button", "Covered button"), ref_of(s, "checkbox", "Subscribe")
    answers = {line: (await ok(s, line)).data["value"] for line in [
        f"is visible {covered}", "is visible 'text=Hidden button'",
        f"is enabled {covered}", f"is enabled {ref_of(s, 'button', 'Disabled button')}",
        f"is checked {subscribe}", f"is checked {ref_of(s, 'radio', 'M')}"]}
    assert list(answers.values()) == [True, False, True, False, False, True], answers
    await ok(s, f"check {subscribe}")
    assert (await ok(s, f"is checked {subscribe}")).output == "true"
    assert (await fails(s, f"is checked {covered}")).exit_code == 2  # not a checkbox


async def test_count(s, site):
    await playground(s, site)
    buttons = (await ok(s, "js document.querySelectorAll('button').length")).data["value"]
    result = await ok(s, "count button")
    assert (result.output, result.data["count"]) == (str(buttons), buttons)
    assert (await ok(s, "count 'input[type=radio]'")).data["count"] == 3
    assert (await ok(s, "count '#nothing-here'")).output == "0"
    assert (await fails(s, "count 'div[['")).exit_code == 2


async def test_console_messages_levels_and_errors(s, site):
    await playground(s, site)
    await ok(s, f"click {ref_of(s, 'button', 'Log to console')}")
    output = await until(s, "console", "demo error")
    lines = output.splitlines()
    for line in ("[info] playground ready", "[log] demo log 1", "[warning] demo warning",
                 "[error] demo error"):
        assert any(x.startswith(line) for x in lines), output
    result = await ok(s, "console --errors")
    assert "demo error" in result.output
    assert "demo log" not in result.output and "demo warning" not in result.output
    assert {m["level"] for m in result.data["messages"]} <= {"error", "pageerror"}

    await ok(s, f"click {ref_of(s, 'button', 'Throw error')}")
    output = await until(s, "console -e", "demo failure")
    assert "[pageerror] Error: demo failure" in output
    assert (await ok(s, "console -n 1")).output.startswith("[pageerror] Error: demo failure")
    assert "demo log" in (await ok(s, "console --clear")).output
    assert (await ok(s, "console")).output == "(no console messages)"


async def test_network_lists_filters_and_failures(s, site):
    await playground(s, site)
    result = await ok(s, "network")
    urls = [r["url"] for r in result.data["requests"]]
    for path in ("/playground", "/static/style.css", "/static/playground.js", "/frame"):
        assert f"{site.url}{path}" in urls, urls
    assert "GET 200" in result.output and "document" in result.output
    result = await ok(s, "network --filter playground")
    requests = result.data["requests"]
    assert requests and all("playground" in r["url"] for r in requests)
    assert (await ok(s, "network --failed")).output == "(no requests)"
    await ok(s, f"goto {site.url}/no-such-page")
    result = await ok(s, "network --failed")
    assert [(r["url"], r["status"]) for r in result.data["requests"]] == [
        (f"{site.url}/no-such-page", 404)]
    assert result.output.startswith("GET 404 ")


async def test_network_records_the_status_of_an_unread_fetch(s, site):
    await playground(s, site)  # no `requestfinished` without reading the body: use the response
    assert (await ok(s, "js await fetch('/no-such-api').then(r => r.status)")).output == "404"
    await until(s, "network --failed", "404")


async def test_dialogs_log(s, site):
    await playground(s, site)
    assert (await ok(s, "dialogs")).output == "(no dialogs)"
    result = await ok(s, f"click {ref_of(s, 'button', 'Show alert')}")
    assert 'dialog opened: "Hello from the demo"' in result.output
    assert (await ok(s, "dialogs")).output.startswith('alert "Hello from the demo" -> OPEN')
    await ok(s, "dialog accept")
    await ok(s, f"click {ref_of(s, 'button', 'Ask name')}")
    await ok(s, "dialog accept Jane")
    assert (await ok(s, "text '#prompt-result'")).output == "Jane"
    result = await ok(s, "dialogs")
    assert [(d["type"], d["message"], d["answer"]) for d in result.data["dialogs"]] == [
        ("alert", "Hello from the demo", "accepted"), ("prompt", "Your name?", "accepted")]
    assert result.output.splitlines()[0].startswith('alert "Hello from the demo" -> accepted')


async def test_perf_after_a_page_load(s, site):
    await playground(s, site)
    result = await ok(s, "perf")
    perf = result.data["perf"]
    assert {"ttfb_ms", "dom_content_loaded_ms", "load_ms", "first_paint_ms",
            "first_contentful_paint_ms", "transfer_bytes", "resources", "dom_nodes"} <= set(perf)
    assert perf["load_ms"] >= perf["dom_content_loaded_ms"] > 0
    assert perf["resources"] >= 3 and perf["transfer_bytes"] > 0  # css, js, frame
    nodes = (await ok(s, "js document.getElementsByTagName('*').length")).data["value"]
    assert perf["dom_nodes"] == nodes
    assert f"dom_nodes: {nodes}" in result.output.splitlines()
