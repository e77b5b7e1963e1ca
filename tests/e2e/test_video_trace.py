"""`video start|stop`, `--video DIR` and `trace start|stop`: what a user gets is a real
video (ffprobe reads a length, its pictures follow the steps, one file across a
handoff's browser relaunches, the steps as chapters and captions) and a trace in
Playwright's zip format holding the steps and never a secret."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from PIL import Image

from cockpit.core import Session
from cockpit.record.reader import read as read_recording

from conftest import fails, ok, ref_of

COCKPIT = [sys.executable, "-m", "cockpit"]
TOKEN = "tok-Vid3o-5521"  # given with --secret
TYPED = "pw-Trace-8830"  # typed into a password field



@pytest.fixture
def ffmpeg() -> None:
    """ffmpeg and ffprobe, or the test is skipped (failed under CI=true: CI must run it)."""
    if shutil.which("ffmpeg") is None or shutil.which("ffprobe") is None:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail("ffmpeg is missing: `bash .ci/setup --test` installs it")
        pytest.skip("ffmpeg is not installed (apt-get install ffmpeg)")


def probe(path: Path) -> dict:
    out = subprocess.run(["ffprobe", "-v", "error", "-show_format", "-show_streams",
                          "-show_chapters", "-of", "json", str(path)],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def picture_at(path: Path, seconds: float) -> tuple[int, int, int]:
    """The average colour of the video's picture `seconds` in."""
    png = subprocess.run(["ffmpeg", "-v", "error", "-ss", f"{seconds:.3f}", "-i", str(path),
                          "-frames:v", "1", "-f", "image2pipe", "-c:v", "png", "-"],
                         capture_output=True, check=True).stdout
    picture = Image.open(io.BytesIO(png)).convert("RGB").resize((1, 1), Image.BOX)
    return picture.getpixel((0, 0))


def near(colour: tuple[int, int, int], want: tuple[int, int, int]) -> bool:
    return all(abs(a - b) < 40 for a, b in zip(colour, want))


def data_page(colour: str, body: str = "") -> str:
    return f"'data:text/html,<body style=background:{colour}>{body}</body>'"


@pytest.fixture
async def fresh(request):
    session = Session(f"video-{request.node.name[:30]}")
    session.secrets.add(f"TOK={TOKEN}")
    await session.start()
    yield session
    await session.close()


@pytest.mark.usefixtures("ffmpeg")
async def test_one_video_spans_a_handoff_relaunch_with_the_steps_as_chapters(
        fresh, tmp_path, display):
    s = fresh
    video = tmp_path / "walk.webm"
    await ok(s, f"video start {video}")
    await ok(s, f"goto {data_page('rgb(0,160,0)')}")  # green
    await ok(s, "wait 800")
    handed = await ok(s, "handoff look at it")
    assert s.headed, handed.output  # the browser was relaunched in a window
    await ok(s, f"goto {data_page('rgb(200,0,0)')}")  # red, in the window
    await ok(s, "wait 800")
    await ok(s, "resume")  # relaunched headless again
    assert not s.headed
    await ok(s, f"goto {data_page('rgb(0,0,200)')}")  # blue
    await ok(s, "wait 800")
    stopped = await ok(s, "video stop")

    assert stopped.data["path"] == str(video)
    assert [p.name for p in tmp_path.iterdir() if p.suffix == ".webm"] == ["walk.webm"]
    assert video.stat().st_mode & 0o077 == 0  # it shows what the pages showed
    info = probe(video)
    assert float(info["format"]["duration"]) > 2
    assert info["streams"][0]["codec_name"] == "vp8"
    # the pictures follow the steps, before, during and after the handoff
    waits = [c for c in info["chapters"] if c["tags"]["title"] == "wait 800"]
    assert len(waits) == 3
    middles = [(float(c["start_time"]) + float(c["end_time"])) / 2 for c in waits]
    assert near(picture_at(video, middles[0]), (0, 160, 0))
    assert near(picture_at(video, middles[1]), (200, 0, 0))  # the headed window
    assert near(picture_at(video, middles[2]), (0, 0, 200))  # after the second relaunch
    titles = [c["tags"]["title"] for c in info["chapters"]]
    assert "handoff look at it" in titles and "resume" in titles
    captions = video.with_suffix(".vtt").read_text()
    assert captions.startswith("WEBVTT") and "handoff look at it" in captions
    assert "-->" in captions


@pytest.mark.usefixtures("ffmpeg")
async def test_video_titles_never_hold_a_secret(fresh, tmp_path):
    s = fresh
    video = tmp_path / "login.mp4"
    await ok(s, "goto 'data:text/html,<input aria-label=user><input type=password "
                "aria-label=pw>'")
    started = await ok(s, f"video start {video}")
    assert "a --secret Cockpit types into a field shows as discs, but one the page shows " \
        "elsewhere or a person types shows in it" in started.output
    await ok(s, "snapshot -i")
    await ok(s, f"fill {ref_of(s, 'textbox', 'user')} $TOK")
    await ok(s, f"fill {ref_of(s, 'textbox', 'pw')} {TYPED}")
    await ok(s, "video stop")
    info = probe(video)
    assert info["streams"][0]["codec_name"] == "h264"
    everything = json.dumps(info) + video.with_suffix(".vtt").read_text()
    assert "$TOK" in everything and TOKEN not in everything and TYPED not in everything


async def test_a_missing_ffmpeg_is_one_clear_line_and_the_session_goes_on(
        s, tmp_path, monkeypatch):
    monkeypatch.delenv("COCKPIT_FFMPEG", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))  # no ffmpeg on it
    refused = await fails(s, f"video start {tmp_path / 'v.webm'}")
    assert "ffmpeg" in refused.error and "apt-get install ffmpeg" in refused.error
    assert not (tmp_path / "v.webm").exists()
    stopped = await fails(s, "video stop")
    assert "no video is being recorded" in stopped.error
    await ok(s, "goto about:blank")


def test_video_flag_without_ffmpeg_is_a_usage_error(tmp_path):
    env = {**os.environ, "PATH": str(tmp_path), "COCKPIT_STATE_DIR": str(tmp_path / "st")}
    done = subprocess.run([*COCKPIT, "run", "--no-record", "--video", str(tmp_path / "v")],
                          input="status\n", capture_output=True, text=True, env=env,
                          cwd=tmp_path, timeout=60)
    assert done.returncode == 2, done.stderr
    assert "ffmpeg" in done.stderr and len(done.stderr.strip().splitlines()) == 1


@pytest.mark.usefixtures("ffmpeg")
def test_video_flag_records_the_whole_session_into_the_folder(tmp_path, site):
    folder = tmp_path / "videos"
    done = subprocess.run(
        [*COCKPIT, "run", "--session", "vidflag", "--video", str(folder),
         "--record", str(tmp_path / "walk.jsonl")],
        input=f"goto {site.url}/login\nwait 500\ngoto {site.url}/\nwait 500\n",
        capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr
    videos = list(folder.glob("vidflag-*.webm"))
    assert len(videos) == 1, list(folder.iterdir())
    info = probe(videos[0])
    assert float(info["format"]["duration"]) > 0.5
    titles = [c["tags"]["title"] for c in info["chapters"]]
    assert f"script: goto {site.url}/login" in titles, titles


async def test_trace_starts_mid_session_and_holds_the_steps_but_no_secret(fresh, tmp_path):
    s = fresh
    await ok(s, "goto 'data:text/html,<title>before</title>'")  # not in the trace
    trace = tmp_path / "mid.zip"
    await ok(s, f"trace start {trace}")
    refused = await fails(s, f"trace start {tmp_path / 'again.zip'}")
    assert "already tracing" in refused.error
    await ok(s, "goto 'data:text/html,<title>login</title><input aria-label=user>"
                "<input type=password aria-label=pw><button>Go</button>'")
    await ok(s, "snapshot -i")
    user, pw, go = ref_of(s, "textbox", "user"), ref_of(s, "textbox", "pw"), \
        ref_of(s, "button", "Go")
    await ok(s, f"fill {user} $TOK")
    await ok(s, f"fill {pw} {TYPED}")
    await ok(s, f"click {go}")
    stopped = await ok(s, "trace stop")
    assert stopped.data["path"] == str(trace)
    assert trace.stat().st_mode & 0o077 == 0
    with zipfile.ZipFile(trace) as z:  # the format `playwright show-trace` opens
        names = z.namelist()
        assert "trace.trace" in names and "trace.network" in names
        events = [json.loads(line) for line in
                  z.read("trace.trace").decode().splitlines() if line.strip()]
        text = "".join(z.read(n).decode("utf-8", "replace") for n in names)
    assert events[0]["type"] == "context-options"
    # each step is a group in the trace, named by its command line (masked)
    groups = [e["title"] for e in events
              if e.get("type") == "before" and e.get("method") == "tracingGroup"]
    assert groups == [f"trace start {tmp_path / 'again.zip'}",
                      groups[1], "snapshot -i", f"fill {user} $TOK", f"fill {pw} ••••••",
                      f"click {go}", "trace stop"], groups
    assert groups[1].startswith("goto 'data:text/html,<title>login")
    gotos = [e["params"]["url"] for e in events
             if e.get("type") == "before" and e.get("method") == "goto"]
    assert len(gotos) == 1 and "<title>login" in gotos[0]  # it began at `trace start`
    assert TOKEN not in text and TYPED not in text
    assert "$TOK" in text  # masked, not dropped
    again = await fails(s, "trace stop")
    assert "no trace is being recorded" in again.error


async def test_a_trace_started_mid_session_spans_a_relaunch_in_parts(fresh, tmp_path):
    s = fresh
    trace = tmp_path / "parts.zip"
    await ok(s, f"trace start {trace}")
    await ok(s, "goto 'data:text/html,<title>one</title>'")
    await ok(s, "device 'iPhone 13'")  # relaunches the browser
    await ok(s, "goto 'data:text/html,<title>two</title>'")
    stopped = await ok(s, "trace stop")
    assert stopped.data["parts"] == [str(tmp_path / "parts-1.zip"), str(trace)]
    for part in (tmp_path / "parts-1.zip", trace):
        with zipfile.ZipFile(part) as z:
            assert "trace.trace" in z.namelist()


async def test_session_controls_are_recorded_but_not_replayed_or_exported(tmp_path, site):
    from cockpit.record.export import to_pytest
    from cockpit.record.export_ts import to_playwright_test
    rec = tmp_path / "controls.jsonl"
    done = subprocess.run(
        [*COCKPIT, "run", "--session", "controls", "--record", str(rec)],
        input=f"trace start {tmp_path / 't.zip'}\ngoto {site.url}/login\ntrace stop\n",
        capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr
    recording = read_recording(rec)
    commands = [step["command"] for step in recording.steps]
    assert commands[0].startswith("trace start") and commands[-1] == "trace stop"
    for code in (to_pytest(recording, "controls"), to_playwright_test(recording, "controls")):
        assert "trace" not in code.split("ORIGIN", 1)[1].lower(), code
    (tmp_path / "t.zip").unlink()
    replayed = subprocess.run([*COCKPIT, "replay", "--session", "controls-replay",
                               "--no-record", str(rec)],
                              capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    assert "session control" in replayed.stdout
    assert not (tmp_path / "t.zip").exists()  # the recorded session's file is left alone
