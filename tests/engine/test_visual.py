"""screenshot and pdf in a real browser: the files they write, and their sizes in pixels."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest
from conftest import fails, ok, ref_of

from cockpit.core.commands.visual import MAX_SHOT_PX

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def png_size(path: str | Path) -> tuple[int, int]:
    """Width and height from the PNG header (big-endian ints at bytes 16-24 of IHDR)."""
    head = Path(path).read_bytes()[:24]
    assert head[:8] == PNG_SIGNATURE, f"{path} is not a PNG"
    return struct.unpack(">II", head[16:24])


async def saved(s, line: str) -> tuple[Path, dict]:
    """Run a screenshot/pdf line; check the file it names exists and matches its data."""
    result = await ok(s, line)
    path = Path(result.data["path"])
    assert path.is_file() and result.output.startswith(f"saved {path} (")
    assert path.stat().st_size == result.data["bytes"] > 0
    return path, result.data


async def playground(s, site):
    await ok(s, f"goto {site.url}/playground")
    await ok(s, "snapshot -i")


async def js(s, code: str):
    return (await ok(s, f"js {code}")).data["value"]


async def test_full_page_and_viewport(s, site):
    await playground(s, site)
    path, _ = await saved(s, "screenshot")
    assert path.parent == s.files_dir and path.suffix == ".png"
    width, height = await js(s, "[document.documentElement.scrollWidth, "
                                "document.documentElement.scrollHeight]")
    assert png_size(path) == (width, height)
    view = await js(s, "[innerWidth, innerHeight]")
    assert height > view[1]  # the playground is longer than a screen
    for flag in ("--viewport", "-v"):
        shot, _ = await saved(s, f"screenshot {flag}")
        assert shot != path and list(png_size(shot)) == view


async def test_a_very_tall_page_gives_its_top_and_says_so(s, site, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # a relative name: said in full in the result
    await playground(s, site)
    await ok(s, "js document.body.style.minHeight = '60000px'")
    path, _ = await saved(s, "screenshot tall.png")
    assert path == tmp_path / "tall.png"
    _, height = png_size(path)
    assert height == MAX_SHOT_PX < 60000
    result = await ok(s, "screenshot tall2.png")
    assert f"this is its top {MAX_SHOT_PX:,} px" in result.output and "--clip" in result.output


async def test_element_by_ref_and_by_selector(s, site):
    await playground(s, site)
    for target, element in [(ref_of(s, "button", "Covered button"), "covered"),
                            ("'#consent'", "consent")]:
        path, _ = await saved(s, f"screenshot {target}")
        box = await js(s, f"(r => [r.width, r.height])(document.getElementById('{element}')"
                          ".getBoundingClientRect())")
        width, height = png_size(path)
        assert abs(width - box[0]) < 2 and abs(height - box[1]) < 2, (target, box)


async def test_clip(s, site):
    await playground(s, site)
    path, _ = await saved(s, "screenshot --clip 0,0,200,100")
    assert png_size(path) == (200, 100)


async def test_clip_below_the_fold(s, site):  # a clip is in page pixels, not the viewport's
    await playground(s, site)
    assert await js(s, "innerHeight") < 2000 < await js(s, "document.body.scrollHeight")
    path, _ = await saved(s, "screenshot --clip 100,2000,320,240")
    assert png_size(path) == (320, 240)


@pytest.mark.parametrize("clip", ["0,0,abc", "0,0,200", "0,0,0,100", "0,0,200,-5"])
async def test_bad_clip_is_a_usage_error(s, site, clip):
    await playground(s, site)
    result = await fails(s, f"screenshot --clip {clip}")
    assert result.exit_code == 2 and "--clip" in result.error


async def test_annotate_draws_refs_and_cleans_up(s, site):
    await playground(s, site)
    log = ref_of(s, "button", "Log to console")
    plain, _ = await saved(s, "screenshot -v")
    path, data = await saved(s, "screenshot --annotate -v")
    buttons = await js(s, "[...document.querySelectorAll('button')]"
                          ".filter(b => b.offsetParent !== null).length")
    assert data["annotated"] >= buttons > 0
    assert f"{data['annotated']} refs drawn" in (await ok(s, "screenshot -a -v")).output
    assert png_size(path) == png_size(plain) and path.read_bytes() != plain.read_bytes()
    x, y, w, h = await js(s, "(r => [r.x, r.y, r.width, r.height].map(Math.round))(document"
                             ".getElementById('log-console').getBoundingClientRect())")
    clip = f"--clip {x - 4},{y - 4},{w + 8},{h + 8}"  # a box is drawn right on the button
    plain, _ = await saved(s, f"screenshot {clip}")
    drawn, _ = await saved(s, f"screenshot --annotate {clip}")
    assert drawn.read_bytes() != plain.read_bytes()
    assert await js(s, "document.getElementById('__cockpit_annotations') === null") is True
    assert (await ok(s, "count '#__cockpit_annotations'")).output == "0"
    result = await ok(s, f"click {log}")  # the refs from before still work
    assert result.output.startswith(f'clicked {log}\n')


async def test_annotate_boxes_refs_inside_a_frame_where_they_are(s, site):
    await playground(s, site)  # aria_snapshot's boxes in an iframe are relative to it
    x, y = await js(s, "(f => { const r = f.getBoundingClientRect(); "
                       "return [Math.round(r.x + f.clientLeft), Math.round(r.y + f.clientTop)]; })"
                       "(document.querySelector('iframe'))")
    button = await js(s, "(b => { const r = b.getBoundingClientRect(); "
                         "return [r.x, r.y, r.width, r.height].map(Math.round); })(document"
                         ".querySelector('iframe').contentDocument.querySelector('button'))")
    clip = f"{x + button[0] - 4},{y + button[1] - 4},{button[2] + 8},{button[3] + 8}"
    plain, _ = await saved(s, f"screenshot --clip {clip}")
    drawn, _ = await saved(s, f"screenshot --annotate --clip {clip}")
    assert drawn.read_bytes() != plain.read_bytes(), "no box drawn on the frame's button"


async def test_out_file(s, site, tmp_path):
    await playground(s, site)
    target = tmp_path / "shots" / "page.png"  # the folder does not exist yet
    path, _ = await saved(s, f"screenshot -v -o {target}")
    assert path == target and png_size(target) == tuple(await js(s, "[innerWidth, innerHeight]"))
    path, _ = await saved(s, f"screenshot --out {tmp_path / 'b.png'} --clip 0,0,50,40")
    assert png_size(path) == (50, 40)
    result = await fails(s, f"screenshot -o {tmp_path / 'page.jpg'}")
    assert result.exit_code == 2 and "should end in .png" in result.error


async def test_pdf(s, site, tmp_path):
    await playground(s, site)
    path, _ = await saved(s, "pdf")
    assert path.parent == s.files_dir and path.read_bytes()[:4] == b"%PDF"
    target = tmp_path / "out" / "playground.pdf"
    path, _ = await saved(s, f"pdf {target}")
    assert path == target and target.read_bytes()[:5] == b"%PDF-"
    assert (await fails(s, f"pdf {tmp_path / 'x.txt'}")).exit_code == 2


async def test_session_picture_for_views_with_and_without_ref_labels(s, site):
    await ok(s, f"goto {site.url}/login")
    await ok(s, "snapshot -i")
    plain = await s.picture()
    labelled = await s.picture(labels=True)
    assert plain[:8] == b"\x89PNG\r\n\x1a\n" and labelled[:8] == plain[:8]
    assert labelled != plain  # the labels are in the picture...
    assert (await ok(s, "js !!document.getElementById('__cockpit_annotations')")).output \
        == "false"  # ...and gone from the page
    await ok(s, f"click {ref_of(s, 'textbox', 'Email')}")  # refs still resolve after it
