"""What a person's action on `cockpit web`'s live picture becomes: a `mouse` or `press`
command (or the handoff and resume of its buttons); anything malformed is refused."""

from __future__ import annotations

import pytest

from cockpit.cli.web_live import command_for


def test_actions_become_the_humans_commands():
    assert command_for({"type": "click", "at": [12.34, 50]}) == "mouse click 12.3 50"
    assert command_for({"type": "click", "at": [1, 2], "button": "right", "count": 2}) == \
        "mouse click 1 2 --button right --count 2"
    # a press and a release as they happen (a double-click's second one counted 2); the
    # pointer's way while pressed
    assert command_for({"type": "down", "at": [60, 140]}) == "mouse down 60 140"
    assert command_for({"type": "down", "at": [5, 6], "button": "left", "count": 2}) == \
        "mouse down 5 6 --count 2"
    assert command_for({"type": "up", "button": "right", "count": 1}) == \
        "mouse up --button right"
    assert command_for({"type": "up", "at": [440, 140.04], "count": 2}) == \
        "mouse up 440 140 --count 2"
    assert command_for({"type": "move", "at": [200, 141]}) == "mouse move 200 141"
    assert command_for({"type": "drag", "from": [60, 140], "to": [440, 141.5]}) == \
        "mouse drag 60 140 440 141.5"
    assert command_for({"type": "wheel", "at": [5, 5], "dx": 0, "dy": -120}) == \
        "mouse wheel 0 -120"
    assert command_for({"type": "key", "key": "Control+a"}) == "press Control+a"
    assert command_for({"type": "key", "key": '"'}) == "press '\"'"
    assert command_for({"type": "key", "key": "-"}) == "press -- -"  # a key, not a flag
    assert command_for({"type": "take"}) == "handoff --terminal 'taken over in the web view'"
    assert command_for({"type": "give"}) == "resume"
    assert command_for({"type": "something else"}) is None


@pytest.mark.parametrize("message", [
    {"type": "click", "at": ["x", 1]}, {"type": "click", "at": [float("nan"), 1]},
    {"type": "click", "at": [1, 2], "button": "side"}, {"type": "drag", "from": [1, 2]},
    {"type": "down", "at": [1, "y"]}, {"type": "up", "at": [1, 2], "button": "side"},
    {"type": "move"}, {"type": "key", "key": "Enter; goto evil"}, {"type": "key", "key": "a b"}])
def test_malformed_actions_are_refused(message):
    with pytest.raises((ValueError, KeyError, TypeError)):
        command_for(message)
