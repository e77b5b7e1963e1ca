"""`cockpit report` from a recording on disk (no browser): what a page put in a result
stays text in the report, and a record cannot pull another file in as its picture."""

from __future__ import annotations

import json
from pathlib import Path

from cockpit.record.reader import read
from cockpit.record.report import render


def write(path: Path, steps: list[dict]) -> Path:
    lines = [{"type": "header", "format": "cockpit-recording", "version": 1,
              "session": "unit", "started": 1_700_000_000.0, "cockpit": "0"}]
    lines += [{"type": "step", "n": i, "time": 1_700_000_001.0 + i, "source": "agent",
               "ok": True, "exit_code": 0, "ms": 10.0, "output": "", "error": None,
               "tab": 1, "url": "http://x/", "title": "x", "diff": None, "targets": {},
               **step} for i, step in enumerate(steps, 1)]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def test_a_pages_text_in_a_result_is_escaped(tmp_path):
    rec = read(write(tmp_path / "w.jsonl", [
        {"command": "text", "output": "<img src=x onerror=alert(1)></pre><script>x</script>"},
        {"command": "click '<b>'", "output": "clicked"}]))
    page = render(rec)
    assert "<img src=x" not in page and "<script>" not in page
    assert "&lt;img src=x onerror=alert(1)&gt;&lt;/pre&gt;&lt;script&gt;" in page
    assert "click &#x27;&lt;b&gt;&#x27;" in page


def test_only_a_picture_in_the_recordings_folder_is_read(tmp_path):
    secret = tmp_path / "secret.jpg"
    secret.write_bytes(b"\xff\xd8\xffSECRET")
    (tmp_path / "w.shots").mkdir()
    (tmp_path / "w.shots" / "0001.jpg").write_bytes(b"\xff\xd8\xffPICTURE")
    rec = read(write(tmp_path / "w.jsonl", [
        {"command": "click @e1", "shot": "w.shots/0001.jpg"},
        {"command": "click @e2", "shot": "../secret.jpg"},
        {"command": "click @e3", "shot": str(secret)},
        {"command": "click @e4", "shot": "w.shots/passwd"},
        {"command": "click @e5", "shot": "w.shots/0009.jpg"}]))
    page = render(rec)
    assert page.count("data:image/jpeg;base64,") == 1  # the one in its folder
    assert "U0VDUkVU" not in page  # base64 of SECRET, anywhere
    assert page.count("picture refused") == 3
    assert "picture missing: w.shots/0009.jpg" in page


def test_the_summary_counts_failures_expectations_and_who_drove(tmp_path):
    rec = read(write(tmp_path / "w.jsonl", [
        {"command": "goto http://x/", "source": "human"},
        {"command": "click @e2", "ok": False, "exit_code": 1, "error": "no such element"},
        {"command": "expect @e3 visible", "ok": False, "exit_code": 1,
         "error": "expected @e3 visible, found hidden"},
        {"command": "expect title x"}]))
    page = render(rec)
    assert '<p class="verdict failed" id="verdict">1 failed, 1 expectation failed</p>' in page
    assert '<dt>expectations failed</dt><dd>1 of 2</dd>' in page
    assert '<dt>who drove</dt><dd>human (1 step), agent (3 steps)</dd>' in page
    assert '<dt>duration</dt><dd>5.0 s</dd>' in page
