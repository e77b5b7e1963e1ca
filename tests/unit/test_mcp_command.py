"""An MCP tool call becomes a Command from its structured arguments: its words are the
arguments as given, never a line built and then split again (only browser_run's one
line is split, once); the line the log shows reads back to the same arguments."""

from __future__ import annotations

import pytest

from cockpit.control import mcp_tools
from cockpit.core import REGISTRY, Command, parse
from cockpit.core.language import parser

TRICKY = 'Ada "the first" Lovelace; $HOME \\ it\'s -5'


@pytest.fixture
def splits(monkeypatch):
    seen: list[str] = []
    real_split, real_ends = parser.split_words, parser._words_with_ends

    def counting_split(line: str):
        seen.append(line)
        return real_split(line)

    def counting_ends(line: str):
        seen.append(line)
        return real_ends(line)

    monkeypatch.setattr(parser, "split_words", counting_split)
    monkeypatch.setattr(parser, "_words_with_ends", counting_ends)
    return seen


def test_a_tool_call_is_never_split(splits):
    tool = mcp_tools.by_name(REGISTRY)["browser_fill"]
    command = tool.command({"target": "@e3", "text": TRICKY}, REGISTRY)
    assert splits == []
    assert command.error is None and command.name == "fill"
    assert command.parsed().params["text"] == TRICKY
    assert command.refs() == ["e3"]
    # what the log shows is a line a person could type for the same call
    assert parse(command.line).params == command.parsed().params


def test_browser_run_splits_its_line_once(splits):
    tool = mcp_tools.by_name(REGISTRY)["browser_run"]
    command = tool.command({"command": 'fill @e3 "a b"'}, REGISTRY)
    assert command.parsed().params["text"] == "a b"
    assert splits == ['fill @e3 "a b"']


def test_a_bad_structured_call_says_what_parse_would():
    command = Command.of_words(["select", "@e2"], registry=REGISTRY)
    assert command.invocation is None and command.error is not None
    with pytest.raises(type(command.error), match="select needs"):
        command.parsed()
