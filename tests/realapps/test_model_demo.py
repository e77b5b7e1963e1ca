"""A Gradio app (a model's demo page: a Svelte app built of modules, its answers through
a queue over server-sent events) driven through Cockpit: its first render and title, a
form's answer, and the error the app raises."""

from __future__ import annotations

import re

from steps import look, ok, ref

from cockpit.core import Session


def _controls(s: Session) -> set[tuple[str, str]]:
    """(role, name) of the controls in what the last step's result was made of (the
    tab's snapshot as that step left it: no new look)."""
    snap = s.active.snapshot
    assert snap is not None
    return {(n.role, n.name) for n in snap.refs.values() if n.interactive}


async def test_goto_answers_once_the_app_has_booted(model_demo):
    """The app boots in steps after `load` (its layout's module, evaluated in a long task,
    then its components'): a goto in a new browser (nothing cached) answered with its
    footer's controls or none, about 1 time in 6. Each session here is a new browser.
    (The server is asked once first: a Gradio just started builds its first answers
    slowly, and the question here is the browser's cache, not the server's start.)"""
    async with Session("real-gradio-warm") as s:
        await ok(s, f"goto {model_demo}")
    for attempt in range(4):
        async with Session(f"real-gradio-{attempt}") as s:
            r = await ok(s, f"goto {model_demo}")
            assert r.output.splitlines()[0] == "opened: Greeter", r.output  # set as it renders
            shown = _controls(s)
            for control in (("textbox", "Name"), ("combobox", "Greeting"),
                            ("checkbox", "Shout"), ("button", "Greet")):
                assert control in shown, (attempt, r.output, sorted(shown))


async def test_the_forms_answer_and_the_apps_error_are_in_the_clicks_result(model_demo):
    async with Session("real-gradio-form") as s:
        await ok(s, f"goto {model_demo}")
        page = await look(s)
        await ok(s, f"fill {ref(page, 'textbox', 'Name', exact=True)} Ada")
        await ok(s, f"check {ref(page, 'checkbox', 'Shout')}")
        greeted = await ok(s, f"click {ref(page, 'button', 'Greet', exact=True)}")
        # the answer comes through the app's queue, 200 ms of "model" later
        assert re.search(r'textbox "Result" \(text: "" -> "HELLO, ADA!"\)', greeted.output), \
            greeted.output
        await ok(s, f"fill {ref(page, 'textbox', 'Name', exact=True)} ''")
        refused = await ok(s, f"click {ref(page, 'button', 'Greet', exact=True)}")
        assert "Please type a name first" in refused.output or \
            "Please type a name first" in str(refused.data.get("diff")), refused.output
