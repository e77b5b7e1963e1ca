"""A recorded wheel (`scroll down`, `mouse wheel`) exports as the test's own `wheel`
helper, which waits for the scroll the wheel starts: Chromium scrolls a frame or more
after the event, so a check right after a bare `page.mouse.wheel` could see the page
unscrolled (1 run in 40 on an idle machine). A test with no wheel step has no helper."""

from __future__ import annotations

from pathlib import Path

import pytest

from cockpit.core import WHEEL_WAITED_JS, WHEEL_WATCH_JS
from cockpit.record.export import to_pytest
from cockpit.record.export_ts import to_playwright_test
from cockpit.record.reader import Recording

ORIGIN = "http://127.0.0.1:8000"


def recording(*lines: str) -> Recording:
    steps = [{"type": "step", "n": n, "source": "agent", "ok": True, "command": line,
              "url": f"{ORIGIN}/x", "tab": 1, "at": {"tab": 1, "url": f"{ORIGIN}/x"}}
             for n, line in enumerate(lines, 1)]
    return Recording(Path("wheel.jsonl"), {"session": "wheel"}, steps)


@pytest.mark.parametrize("export, call, helper", [
    (to_pytest, "wheel(page, 0, int(page.viewport_size[\"height\"] * 0.8))",
     "def wheel(page: Page"),
    (to_playwright_test, "await wheel(page, 0, Math.trunc(page.viewportSize()!.height * 0.8));",
     "async function wheel(page: Page"),
])
def test_a_scroll_and_a_mouse_wheel_wait_for_their_scroll(export, call, helper):
    code = export(recording(f"goto {ORIGIN}/x", "scroll down", "mouse wheel 0 -300",
                            "scroll up --by 200"), "wheel")
    assert call in code
    assert "wheel(page, 0, -300)" in code and "wheel(page, 0, -200)" in code
    assert "page.mouse.wheel(0" not in code  # every wheel goes through the helper
    assert code.count(helper) == 1
    helper_code = code[code.index(helper):]
    assert repr(WHEEL_WATCH_JS) in helper_code and repr(WHEEL_WAITED_JS) in helper_code


@pytest.mark.parametrize("export", [to_pytest, to_playwright_test])
def test_no_wheel_no_helper(export):
    code = export(recording(f"goto {ORIGIN}/x", "scroll bottom", "mouse click 10 10"), "plain")
    assert "wheel(" not in code and "__cockpitWheel" not in code
