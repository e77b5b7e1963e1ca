"""The live zoom's mapping of a terminal cell to the page's CSS pixels (half-block rows
are two pixel rows a cell; the picture is scaled and centred in its widget, and may show
an element's area rather than the whole viewport), and of typed keys to `press`."""

from __future__ import annotations

from textual import events

from cockpit.tui.live import cell_to_css, press_line

# a 1280x720 viewport drawn 160 cells wide from cell 20, 45 rows (90 pixel rows) from row 2
CELLS, ROWS, PAGE = (20, 2, 160, 45), 90, (0.0, 0.0, 1280.0, 720.0)


def test_a_cell_is_the_css_pixel_under_its_middle():
    assert cell_to_css(20, 2, CELLS, ROWS, PAGE) == (4.0, 8.0)  # 8 px a cell, 2 rows
    assert cell_to_css(179, 46, CELLS, ROWS, PAGE) == (1276.0, 712.0)
    assert cell_to_css(100, 24, CELLS, ROWS, PAGE) == (644.0, 360.0)


def test_outside_the_picture_is_no_point():
    for col, row in [(19, 10), (180, 10), (50, 1), (50, 47)]:
        assert cell_to_css(col, row, CELLS, ROWS, PAGE) is None
    assert cell_to_css(0, 0, (0, 0, 0, 0), 0, PAGE) is None  # not drawn yet


def test_an_element_zoom_maps_into_its_area_of_the_viewport():
    # a 300x300 image grid at (40, 120), drawn 100 cells by 50 rows (100 pixel rows)
    area = (40.0, 120.0, 300.0, 300.0)
    assert cell_to_css(0, 0, (0, 0, 100, 50), 100, area) == (41.5, 123.0)
    assert cell_to_css(50, 25, (0, 0, 100, 50), 100, area) == (191.5, 273.0)


def test_an_odd_last_pixel_row_stays_in_the_picture():
    # 5 pixel rows: 3 cell rows, the last holding one pixel row only
    assert cell_to_css(0, 2, (0, 0, 10, 3), 5, (0.0, 0.0, 10.0, 5.0)) == (0.5, 5.0)


def key(name: str, character: str | None = None) -> events.Key:
    return events.Key(name, character)


def test_typed_keys_become_press_commands():
    assert press_line(key("a", "a")) == "press a"
    assert press_line(key("A", "A")) == "press A"
    assert press_line(key("quotation_mark", '"')) == "press '\"'"
    assert press_line(key("space", " ")) == "press Space"
    assert press_line(key("minus", "-")) == "press -- -"  # a key, not a flag
    assert press_line(key("enter", "\r")) == "press Enter"
    assert press_line(key("left")) == "press ArrowLeft"
    assert press_line(key("shift+left")) == "press Shift+ArrowLeft"
    assert press_line(key("ctrl+a", "\x01")) == "press Control+a"
    assert press_line(key("f13")) is None  # no such key on a page
