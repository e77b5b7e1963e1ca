"""A Gradio app (a model's demo page: a Svelte app built of modules, its answers through
a queue over server-sent events) driven through Cockpit: its first render and title, a
form's answer, and the error the app raises."""

from __future__ import annotations

import re

from cockpit.core import Session


def _controls(s: Session) -> set[tuple[str, str]]:
    """(role, name) of the controls in what the last step's result was made of (the
    tab's snapshot as that step left it: no new look)."""
    snap = s.active.snapshot
    assert snap is not None
    return {(n.role, n.name) for n in snap.refs.values() if n.interactive}


def _ref(s: Session, role: str, name: str) -> str:
    """The last (role, name) of the page: Gradio's tab bar keeps hidden copies first."""
    snap = s.active.snapshot
    assert snap is not None
    found = [ref for ref, n in snap.refs.items() if n.role == role and n.name == name]
    assert found, f"no {role} {name!r} in:\n{snap.raw}"
    return "@" + found[-1]


async def test_goto_answers_once_the_app_has_booted(model_demo):
    """The app boots in steps after `load` (its layout's module, evaluated in a long task,
    then its components'): a goto in a new browser (nothing cached) answered with its
    footer's controls or none, about 1 time in 6. Each session here is a new browser.
    (The server is asked once first: a Gradio just started builds its first answers
    slowly, and the question here is the browser's cache, not the server's start.)"""
    async with Session("real-gradio-warm") as s:
        assert (await s.run(f"goto {model_demo}")).ok
    for attempt in range(4):
        async with Session(f"real-gradio-{attempt}") as s:
            r = await s.run(f"goto {model_demo}")
            assert r.ok, r.error
            assert r.output.splitlines()[0] == "opened: Greeter", r.output  # set as it renders
            shown = _controls(s)
            for control in (("textbox", "Name"), ("combobox", "Greeting"),
                            ("checkbox", "Shout"), ("button", "Greet")):
                assert control in shown, (attempt, r.output, sorted(shown))


async def test_the_forms_answer_and_the_apps_error_are_in_the_clicks_result(model_demo):
    async with Session("real-gradio-form") as s:
        assert (await s.run(f"goto {model_demo}")).ok
        assert (await s.run(f"fill {_ref(s, 'textbox', 'Name')} Ada")).ok
        checked = await s.run(f"check {_ref(s, 'checkbox', 'Shout')}")
        assert checked.ok, checked.error
        greeted = await s.run(f"click {_ref(s, 'button', 'Greet')}")
        # the answer comes through the app's queue, 200 ms of "model" later
        assert re.search(r'textbox "Result" \(text: "" -> "HELLO, ADA!"\)', greeted.output), \
            greeted.output
        assert (await s.run(f"fill {_ref(s, 'textbox', 'Name')} ''")).ok
        refused = await s.run(f"click {_ref(s, 'button', 'Greet')}")
        assert refused.ok, refused.error
        assert "Please type a name first" in refused.output or \
            "Please type a name first" in str(refused.data.get("diff")), refused.output
