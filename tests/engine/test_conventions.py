"""Conventions agents know from other tools, and hints that are true when followed:
`screenshot FILE.png`, `wait N`, a clear word for `@nope`, quiet closed pipes, downloads
that never overwrite, a streak hint only for page failures, a needs notice said once, a
resume report said once and per tab, and `snapshot -D` right after a long diff."""

from __future__ import annotations

import os
import subprocess
import sys

from conftest import fails, ok, ref_of


async def test_screenshot_takes_a_file_name(s, site, tmp_path):
    await ok(s, f"goto {site.url}/")
    target = tmp_path / "shot.png"
    r = await ok(s, f"screenshot {target}")
    assert target.stat().st_size > 0 and str(target) in r.output


async def test_wait_takes_a_bare_number_of_milliseconds(s, site):
    await ok(s, f"goto {site.url}/")
    r = await ok(s, "wait 50")
    assert "50 ms" in r.output


async def test_an_at_word_that_is_no_ref_says_so(s, site):
    await ok(s, f"goto {site.url}/")
    await ok(s, "snapshot -i")
    r = await fails(s, "click @nope")
    assert "`@nope` is not a ref" in r.error and "snapshot -i" in r.error
    assert r.exit_code == 2


async def test_downloads_are_reported_and_never_overwrite(s, site):
    await ok(s, f"goto {site.url}/playground")
    await ok(s, "snapshot -i")
    link = ref_of(s, "link", "Download file")
    first = await ok(s, f"click {link}")
    await ok(s, "snapshot -i")
    second = await ok(s, f"click {ref_of(s, 'link', 'Download file')}")
    paths = [r.data["downloads"][0]["path"] for r in (first, second)]
    assert paths[0] != paths[1] and all(os.path.getsize(p) > 0 for p in paths)
    assert f"downloaded {paths[0]}" in first.output and f"downloaded {paths[1]}" in second.output


async def test_usage_errors_do_not_count_towards_the_failure_streak(s, site):
    await ok(s, f"goto {site.url}/playground")
    for _ in range(4):
        r = await s.run("clik '#x'", source="agent")  # a typo: exit 2
        assert r.exit_code == 2 and "in a row" not in r.error
    assert (await s.run("url", source="agent")).ok


async def test_a_needs_notice_is_said_once_per_page(s, site):
    await ok(s, f"goto {site.url}/settle/login")
    r = await ok(s, f"goto {site.url}/settle/mfa")
    assert "needs: code" in r.output
    again = await ok(s, "snapshot -i")
    assert "needs:" not in again.output
    await ok(s, "snapshot -i")
    status = await ok(s, "status")
    assert "code" in status.output
    await ok(s, f"goto {site.url}/")


async def test_snapshot_D_right_after_a_step_shows_its_whole_diff(s, site):
    await ok(s, f"goto {site.url}/settle")
    await ok(s, "snapshot -i")
    r = await ok(s, f"click {ref_of(s, 'button', 'Go in 150 ms')}")
    assert r.data["diff"]["new_page"]
    full = await ok(s, "snapshot -D")
    assert "No change since the last step" in full.output
    # the result listed the small new page's controls; -D shows every line of it
    assert "Back to settling" in r.output and "opened by a timer" not in r.output
    assert "Back to settling" in full.output and "opened by a timer" in full.output


async def test_resume_is_reported_once_and_per_tab(s, site, monkeypatch):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    await ok(s, f"goto {site.url}/playground")
    await ok(s, "newtab")
    await ok(s, f"goto {site.url}/settle")
    await ok(s, "handoff --terminal")
    try:
        await ok(s, "tab 1")
        await ok(s, f"goto {site.url}/")
    finally:
        r = await s.run("resume", source="agent")
    assert r.ok, r.error
    assert r.output.count("handed the browser back") == 1, r.output
    assert f"Tab 1 (in front): {site.url}/playground -> {site.url}/" in r.output, r.output
    assert f"Tab 2: {site.url}/settle (unchanged)" in r.output, r.output


def test_output_into_a_closed_pipe_ends_quietly(site):
    lines = "\n".join([f"goto {site.url}/reference"] + ["text"] * 6) + "\n"
    done = subprocess.run(
        f"{sys.executable} -m cockpit run --session pipe-test | head -1; "
        "exit ${PIPESTATUS[0]}", shell=True, executable="/bin/bash", input=lines,
        capture_output=True, text=True, timeout=120, env=os.environ.copy())
    assert done.returncode == 0, done.stderr
    assert "BrokenPipeError" not in done.stderr and "Traceback" not in done.stderr
