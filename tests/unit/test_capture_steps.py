"""What a person did (as the page reports it) becomes a command line and its targets:
the element by role and name, a password as $PASSWORD, values quoted as the parser reads
them back."""

from __future__ import annotations

import pytest

from cockpit.core.capture.capture import step_of
from cockpit.core.language.command import Command
from cockpit.core.language.registry import REGISTRY

EMAIL = {"role": "textbox", "name": "Email", "nth": 0}


@pytest.mark.parametrize(("action", "line", "said"), [
    ({"kind": "click", "target": {"role": "button", "name": "Sign in", "nth": 1}},
     "click @e1", 'clicked button "Sign in"'),
    ({"kind": "dblclick", "target": {"role": "row", "name": "Lunch"}}, "dblclick @e1",
     'double-clicked row "Lunch"'),
    ({"kind": "fill", "target": EMAIL, "value": "jane doe's"},
     "fill @e1 'jane doe'\"'\"'s'", 'filled textbox "Email"'),
    ({"kind": "fill", "target": EMAIL, "value": ""}, "fill @e1 ''", 'filled textbox "Email"'),
    ({"kind": "fill", "target": {"role": "textbox", "name": "Password"}, "secret": True,
      "value": "never sent, never used"}, "fill @e1 $PASSWORD", 'filled textbox "Password"'),
    ({"kind": "select", "target": {"role": "combobox", "name": "Plan"},
      "values": ["Pro", "Big team"]}, "select @e1 Pro 'Big team'",
     'selected Pro, Big team in combobox "Plan"'),
    ({"kind": "uncheck", "target": {"role": "checkbox", "name": "Remember me"}},
     "uncheck @e1", 'unchecked checkbox "Remember me"'),
    ({"kind": "press", "key": "Control+Enter"}, "press Control+Enter",
     "pressed Control+Enter"),
    ({"kind": "goto", "url": "http://127.0.0.1:8000/inbox?x=1&y=2"},
     "goto 'http://127.0.0.1:8000/inbox?x=1&y=2'", "went to http://127.0.0.1:8000/inbox?x=1&y=2"),
])
def test_an_action_is_a_line_the_language_reads_back(action, line, said):
    step = step_of(action)
    assert step is not None
    got, targets, output = step
    assert (got, output) == (line, said)
    if "target" in action:
        assert targets == {"e1": {"role": action["target"]["role"],
                                  "name": action["target"]["name"],
                                  "nth": action["target"].get("nth", 0)}}
    command = Command.of(got, REGISTRY)
    assert command.spec is not None and command.spec.name == got.split()[0]
    assert "never sent" not in got


@pytest.mark.parametrize(("action", "line", "read_back"), [
    ({"kind": "fill", "target": EMAIL, "value": "-x y"}, "fill -- @e1 '-x y'",
     {"target": "@e1", "text": "-x y"}),
    ({"kind": "press", "key": "-"}, "press -- -", {"key": "-"}),
    ({"kind": "select", "target": EMAIL, "values": ["-", "b"]}, "select -- @e1 - b",
     {"target": "@e1", "options": ["-", "b"]}),
])
def test_a_value_that_starts_with_a_dash_is_no_flag(action, line, read_back):
    """Typed text such as `-x` reads back as text: without `--` the step could not be
    replayed or exported (the language took it for a flag)."""
    from cockpit.core.language.parser import parse
    step = step_of(action)
    assert step is not None and step[0] == line
    params = parse(line, REGISTRY).params
    assert {k: params[k] for k in read_back} == read_back


@pytest.mark.parametrize("action", [
    {"kind": "click"},  # no element
    {"kind": "click", "target": {"name": "x"}},  # no role: nothing could find it again
    {"kind": "select", "target": EMAIL, "values": []},
    {"kind": "press", "key": ""},
    {"kind": "hover", "target": EMAIL},  # not an action that is a step
])
def test_what_is_not_a_step(action):
    assert step_of(action) is None


def test_a_drag_in_a_frame_names_both_elements_and_their_frame():
    frame = ['iframe[name="board"]', "iframe >> nth=1"]
    step = step_of({"kind": "drag", "frame": frame,
                    "source": {"role": "listitem", "name": "", "nth": 2, "label": "Gamma"},
                    "target": {"role": "region", "name": "Done", "nth": 0, "label": "x"}})
    assert step == ("drag @e1 @e2",
                    {"e1": {"role": "listitem", "name": "", "nth": 2, "label": "Gamma",
                            "frame": frame},
                     "e2": {"role": "region", "name": "Done", "nth": 0, "frame": frame}},
                    'dragged listitem "Gamma" onto region "Done"')
    assert Command.of(step[0], REGISTRY).spec.captured  # the registry says it is a step
    assert step_of({"kind": "drag", "target": EMAIL}) is None  # nothing was dragged
