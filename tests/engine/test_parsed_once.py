"""A command line is split into words once, at the door (`Command.of` in Session.run):
queueing, holds, the refs it uses, the masked line the events show, running it and the
post-steps all read that one Command. Counted on the tokeniser itself, with a quoted line
(an unquoted one takes the cheap `str.split` path and would count nothing)."""

from __future__ import annotations

import pytest

from conftest import page, ref_of
from cockpit.core.language import parser


@pytest.fixture
def splits(monkeypatch):
    seen: list[str] = []
    real = parser._words_with_ends

    def counting(line: str):
        seen.append(line)
        return real(line)

    monkeypatch.setattr(parser, "_words_with_ends", counting)
    return seen


async def test_a_line_is_split_once_per_command(s, base, splits):
    await s.run(f"goto {base}/{page('parsed-once', '<input aria-label=Who>')}")
    await s.run("snapshot -i")
    who = ref_of(s, "textbox", "Who")
    splits.clear()
    result = await s.run(f'fill {who} "Ada Lovelace"', source="agent")
    assert result.ok, result.error
    assert await s.active.page.get_by_label("Who").input_value() == "Ada Lovelace"
    assert splits == [f'fill {who} "Ada Lovelace"']


async def test_a_line_with_a_usage_error_is_split_once_too(s, splits):
    result = await s.run('click "@e1" --nope', source="agent")
    assert not result.ok and "has no flag" in result.error
    assert splits == ['click "@e1" --nope']


async def test_the_control_server_hands_the_parsed_line_on(s, splits):
    command = s.command('status "x"')
    assert not s.waits(command, "agent")
    await s.run(command, source="agent")
    assert splits == ['status "x"']
