"""Both exports cover the same steps: a recording holding every kind of command a session
records (each example of every command that may change the page) exports to pytest and
to @playwright/test with a Playwright call for each, never dropped and never left as a
comment, except the few Playwright has no call for (said in the comment, in both)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cockpit.core import REGISTRY
from cockpit.record.export import to_pytest
from cockpit.record.export_ts import to_playwright_test
from cockpit.record.reader import Recording

# Playwright has no call a test could make for these; both exports say why in a comment
NO_CALL = {
    "har": "records a HAR only from a context's creation",
    "credentials": "the password is masked in the recording",
    "device": "a device is the whole test's (browser_context_args / test.use)",
    "eval": "the script file is read where the session ran",
}
READS = {"cookies", "storage", "device list"}  # a listing: nothing to do in a test
ORIGIN = "http://127.0.0.1:8000"


def exported_kinds() -> list[str]:
    """Every recorded command kind that an export writes (not read-only, not a person's
    handoff, not a session control), by its declared examples."""
    lines = []
    for specs in REGISTRY.by_category().values():
        for spec in specs:
            if (spec.read_only and not spec.asserts) or spec.needs_person \
                    or spec.session_control:
                continue
            # its examples, else its synopsis with a ref for TARGET and no optional part
            made = spec.synopsis.split(" [")[0].replace("TARGET", "@e3")
            assert spec.examples or made.split() == [spec.name, *(["@e3"] * (
                len(made.split()) - 1))], f"{spec.name} has no example to export"
            lines += spec.examples or [made]
    return lines


def recording(lines: list[str]) -> Recording:
    steps = []
    targets = {f"e{i}": {"role": "button", "name": f"B{i}", "nth": 0} for i in range(1, 80)}
    for n, line in enumerate(lines, 1):
        steps.append({"type": "step", "n": n, "source": "agent", "ok": True, "command": line,
                      "url": f"{ORIGIN}/x", "tab": 1, "at": {"tab": 1, "url": f"{ORIGIN}/x"},
                      "targets": targets})
    # a mouse click on a named element: taken from its box where it is when the test runs
    steps.append({**steps[0], "n": len(steps) + 1, "command": "mouse click 60 450",
                  "under": [{"ref": "e7", "role": "button", "name": "Verify", "nth": 0,
                             "dx": 20, "dy": 10}]})
    return Recording(Path("every-kind.jsonl"), {"session": "kinds"}, steps)


def by_step(code: str, mark: str) -> dict[int, list[str]]:
    """Each step's statements, by its number (from the `step N:` comments)."""
    steps: dict[int, list[str]] = {}
    current = None
    for line in code.splitlines():
        found = re.match(rf"\s*{re.escape(mark)} step (\d+): ", line)
        if found:
            current = int(found.group(1))
            steps[current] = []
        elif current is not None and line.strip() and not line.startswith(("})", "    return")):
            steps[current].append(line.strip())
    return steps


@pytest.fixture(scope="module")
def exports():
    rec = recording(exported_kinds())
    return rec, by_step(to_pytest(rec, "kinds"), "#"), \
        by_step(to_playwright_test(rec, "kinds"), "//")


def test_every_recorded_kind_is_exported_by_both_with_a_playwright_call(exports):
    rec, python, typescript = exports
    for step in rec.steps:
        command, n = step["command"], step["n"]
        name = command.split()[0]
        for dialect, code, mark in (("pytest", python, "#"), ("playwright-test", typescript,
                                                             "//")):
            lines = code.get(n, [])
            if command in READS or command == "device list":
                assert not lines, f"{dialect}: {command!r} is a read: {lines}"
                continue
            assert lines, f"{dialect} dropped step {n}: {command!r}"
            said = [line for line in lines if line.startswith(mark)]
            calls = [line for line in lines if not line.startswith(mark)]
            if name in NO_CALL:
                assert said and not calls, f"{dialect}: {command!r}: {lines}"
            elif name == "dialog":  # answered by a handler set before the step above
                before = code.get(n - 1, [])
                assert any("page.once('dialog'" in line for line in before), \
                    f"{dialect}: no handler for {command!r}: {before}"
            else:
                assert calls and not said, f"{dialect} left {command!r} as {lines}"
                assert "not exported" not in " ".join(lines), (dialect, command, lines)


def test_the_typescript_export_writes_the_same_calls_in_its_own_words(exports):
    rec, _, typescript = exports
    n = {step["command"]: step["n"] for step in rec.steps}
    ts = {command: "\n".join(typescript.get(number, [])) for command, number in n.items()}
    assert ts["mouse click 200 90 --count 2"] == \
        "await page.mouse.click(200, 90, { clickCount: 2 });"
    assert ts["mouse down --button right"] == "await page.mouse.down({ button: 'right' });"
    assert "await page.mouse.move(360, 300, { steps: 10 });" in ts["mouse drag 40 300 360 300"]
    boxed = ts["mouse click 60 450"]
    assert "const box = await page.getByRole('button', { name: 'Verify', exact: true })" \
        ".boundingBox();" in boxed and "await page.mouse.click(box.x + 20, box.y + 10);" in \
        boxed and boxed.startswith("{") and boxed.endswith("}")
    assert ts["offline on"] == "await page.context().setOffline(true);"
    assert ts["unroute"] == "await page.context().unrouteAll();"
    assert ts["timezone Asia/Tokyo"] == ("await (await cdp(page)).send("
                                        "'Emulation.setTimezoneOverride', "
                                        "{ timezoneId: 'Asia/Tokyo' });")
    assert ts['headers set X-Test-Run "nightly"'] == \
        "await page.context().setExtraHTTPHeaders({ 'X-Test-Run': 'nightly' });"
    assert "await route.abort();" in ts["route **/*.png --abort"]
    assert ts["upload @e12 report.pdf"].endswith(".setInputFiles(['report.pdf']);")
    assert ts["viewport 375 812"] == \
        'await page.setViewportSize({"width": 375, "height": 812});'
    chain = ts["chain fill @e4 jane@example.com ; fill @e5 secret ; click @e6"]
    assert chain.count("\n") == 2 and chain.endswith(".click();")
    # the helpers those steps need come before the test, once
    whole = to_playwright_test(rec, "kinds")
    assert whole.count("async function cdp(page: Page)") == 1
    device = "test.use({ ...devices['iPhone 13'], defaultBrowserType: 'chromium' });"
    assert whole.index(device) < whole.index("test('kinds'")


def test_a_step_that_closes_its_own_tab_is_done_whatever_the_closed_call_says():
    """A popup's Save that closes its window: Playwright may fail the click it still
    waited on as the tab went ("Target page ... has been closed"). Both exports take the
    step as done once its tab closed, and only that step."""
    at = {"tab": 1, "url": f"{ORIGIN}/form"}
    popup = {"tab": 2, "url": f"{ORIGIN}/popup"}
    targets = {"e3": {"role": "button", "name": "Add", "nth": 0},
               "e5": {"role": "button", "name": "Save", "nth": 0},
               "e6": {"role": "button", "name": "Submit", "nth": 0}}
    steps = [{"type": "step", "n": n, "source": "agent", "ok": True, "command": command,
              "url": url, "tab": tab, "at": where, "targets": targets}
             for n, (command, url, tab, where) in enumerate([
                 ("click @e3", f"{ORIGIN}/form", 1, at),
                 ("tab 2", f"{ORIGIN}/popup", 2, at),
                 ("click @e5", f"{ORIGIN}/form", 1, popup),  # its tab closed: back on 1
                 ("click @e6", f"{ORIGIN}/done", 1, at)], 1)]
    rec = Recording(Path("popup.jsonl"), {"session": "popup"}, steps)
    python = to_pytest(rec, "popup")
    compile(python, "popup.py", "exec")  # a test pytest can load
    py, ts = by_step(python, "#"), by_step(to_playwright_test(rec, "popup"), "//")
    assert py[3] == ["try:", "page.get_by_role('button', name='Save', exact=True).click()",
                     "except Error as error:", "closed_by(page, error)"]
    assert ts[3][0] == "try {" and ts[3][-3:] == ["} catch (error) {",
                                                   "await closedBy(page, error);", "}"]
    assert not any("try" in line for n in (1, 2, 4) for line in py[n] + ts[n])
    assert "def closed_by(page: Page, error: Error)" in python
