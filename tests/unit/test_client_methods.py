"""The Python client's named methods (`Cockpit.press(...)` & co.) against the command
registry: each method is the registry's command of its name, and the line it sends is
parsed by the registry's parser to the very arguments the method was given.
(`press` from the client against a real session: tests/engine/test_client_press.py.)"""

from __future__ import annotations

import inspect
from typing import Any

import pytest

from cockpit.control.client import Commands
from cockpit.core import REGISTRY
from cockpit.core.language.parser import parse
from cockpit.core.language.registry import INT, Arg, CommandSpec, Flag


class LineOf(Commands):
    """The client's methods, sending nothing: each returns the line it would send."""

    def _checked(self, line: str) -> str:
        return line


METHODS = sorted(name for name, value in vars(Commands).items()
                 if not name.startswith("_") and callable(value))


def sample(arg: Arg | Flag, n: int) -> Any:
    """A value for an argument that a mix-up would show: distinct per argument, with a
    space, a quote and a leading dash (text, not a flag) where the kind allows."""
    if arg.kind == INT:
        return 3 + n
    if isinstance(arg, Arg) and arg.choices:
        return arg.choices[-1]
    return f"-{arg.name} it's {n}"


def flag_words(spec: CommandSpec) -> tuple[list[str], dict[str, Any]]:
    """Every flag of the command as words, and the values the parser must give them."""
    words: list[str] = []
    expected: dict[str, Any] = {}
    for n, flag in enumerate(spec.flags):
        if flag.value is None:
            words.append(flag.name)
            expected[flag.key] = True
        else:
            value = sample(flag, n)
            words += [flag.name, str(value)]
            expected[flag.key] = value
    return words, expected


def calls(name: str) -> list[tuple[list[Any], dict[str, Any]]]:
    """(arguments, what `parse` must find) for the method: all its parameters given, and
    each optional one left out in turn."""
    spec = REGISTRY.get(name)
    assert spec is not None and spec.name == name, f"Cockpit.{name}: no such command"
    params = list(inspect.signature(getattr(Commands, name)).parameters.values())[1:]
    args = {a.name: a for a in spec.args}
    found: list[tuple[list[Any], dict[str, Any]]] = []
    given: list[Any] = []
    expected: dict[str, Any] = {}
    for n, param in enumerate(params):
        if param.kind is inspect.Parameter.VAR_POSITIONAL and param.name not in args:
            # flags as words (`snapshot -i`): the last parameter, taking every flag
            assert n == len(params) - 1, f"Cockpit.{name}: *{param.name} must come last"
            words, values = flag_words(spec)
            assert words, f"Cockpit.{name}: *{param.name} but {name} has no flags"
            found.append((given + words, {**expected, **values}))
            continue
        arg = args.get(param.name)
        assert arg is not None, (f"Cockpit.{name}({param.name}): {name} has no argument "
                                 f"of that name; its arguments: {list(args)}")
        assert spec.args.index(arg) == n, (f"Cockpit.{name}: {param.name} is parameter "
                                           f"{n + 1}, the registry's argument "
                                           f"{spec.args.index(arg) + 1} ({spec.synopsis})")
        if param.kind is inspect.Parameter.VAR_POSITIONAL:
            assert arg.variadic, f"Cockpit.{name}: *{param.name} takes one word in {name}"
            values = [sample(arg, n), sample(arg, n + 1)]
            given += values
            expected[arg.name] = values
        else:
            assert not arg.variadic, f"Cockpit.{name}: {param.name} takes many words"
            assert (param.default is None) == arg.optional, (
                f"Cockpit.{name}: {param.name} is {'not ' * arg.optional}optional in "
                f"{spec.synopsis}")
            if arg.optional:  # left out: the parser finds None
                found.append((list(given), {**expected, arg.name: None}))
            value = sample(arg, n)
            given.append(value)
            expected[arg.name] = value
    if not params or params[-1].kind is not inspect.Parameter.VAR_POSITIONAL \
            or params[-1].name in args:
        found.append((given, expected))
    return found


@pytest.mark.parametrize("name", METHODS)
def test_each_named_method_sends_the_line_the_registry_parses_to_its_arguments(name):
    for given, expected in calls(name):
        line = getattr(LineOf(), name)(*given)
        parsed = parse(line)
        assert parsed.spec.name == name, line
        for key, value in expected.items():
            assert parsed.params[key] == value, (f"Cockpit.{name}{tuple(given)} sent "
                                                 f"{line!r}: {key} = {parsed.params[key]!r}")


def test_the_named_methods_are_the_registrys_commands():
    assert "press" in METHODS and "fill" in METHODS
    assert all(REGISTRY.get(name) is not None for name in METHODS)
