"""The MCP tools of `cockpit mcp`, generated from the command registry: no second command
list. `browser_run` takes any command line; each command declared with `tool=` has a tool
of its own whose parameters are that command's declared arguments and flags, and a call
becomes the same command line `cockpit exec` would send.

No MCP SDK and no browser here: the tests and the benchmark read the tool list without
starting either."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..core import CATEGORIES, INT, REGISTRY, Arg, Command, CommandSpec, Flag, Registry, join

RUN = "browser_run"
RUN_PARAM = "command"
TOOL_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
QUOTE_HINT = re.compile(r"[;,] quote it if it has spaces")  # the tool quotes each value


class ToolError(Exception):
    """Arguments a tool cannot turn into a command line; the message says what to send."""


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    input_schema: dict[str, Any]
    spec: CommandSpec | None  # None: browser_run
    flags: tuple[Flag, ...] = ()

    def line(self, arguments: dict[str, Any] | None) -> str:
        """The command line this call means; ToolError for arguments it cannot take."""
        return self.command(arguments).line

    def command(self, arguments: dict[str, Any] | None,
                registry: Registry = REGISTRY) -> Command:
        """The command this call means, made from its structured arguments (only
        browser_run's line is split); ToolError for arguments it cannot take."""
        arguments = dict(arguments or {})
        props = self.input_schema["properties"]
        unknown = sorted(set(arguments) - set(props))
        if unknown:
            raise ToolError(f"{self.name} has no parameter {unknown[0]!r}; its parameters: "
                            f"{', '.join(props) or 'none'}")
        missing = [p for p in self.input_schema.get("required", ()) if arguments.get(p)
                   in (None, "", [])]
        if missing:
            raise ToolError(f"{self.name} needs {missing[0]!r}")
        if self.spec is None:
            line = arguments[RUN_PARAM]
            if not isinstance(line, str):
                raise ToolError(f"{RUN_PARAM} must be a string, like \"snapshot -i\"")
            return Command.of(line, registry)
        words, raw = command_words(self.spec, self.flags, arguments)
        return Command.of_words(words, raw, registry)


def command_line(spec: CommandSpec, flags: tuple[Flag, ...], values: dict[str, Any]) -> str:
    """The line a person would type for this call."""
    words, raw = command_words(spec, flags, values)
    # each word quoted as every client quotes (a lone `$PASSWORD` is left for the session
    # to expand); the raw rest (JS code) goes verbatim
    return " ".join([join(words)] + ([raw] if raw else []))


def command_words(spec: CommandSpec, flags: tuple[Flag, ...],
                  values: dict[str, Any]) -> tuple[list[str], str]:
    """The words of this call, and its raw last argument (JS code, verbatim) or ""."""
    words = [spec.name]
    for flag in flags:
        value = values.get(flag.key)
        if value is None or value is False:
            continue
        if flag.value is None:
            words.append(flag.name)
        elif flag.repeat:  # a list: the flag once for each value
            for item in value if isinstance(value, list) else [value]:
                words += [flag.name, _checked(flag.kind, item, flag.key)]
        else:
            words += [flag.name, _checked(flag.kind, value, flag.key)]
    positional: list[str] = []
    raw = ""
    skipped: str | None = None
    for arg in spec.args:
        value = values.get(arg.name)
        if value is None or value == [] or value == "":
            skipped = skipped or arg.name
            continue
        if skipped is not None:
            raise ToolError(f"{arg.name!r} needs {skipped!r} too (they are given in order)")
        if arg.raw:
            raw = str(value)
        elif arg.variadic:
            items = value if isinstance(value, list) else [value]
            positional += [str(v) for v in items]
        else:
            positional.append(_checked(arg.kind, value, arg.name))
    if any(w.startswith("-") for w in positional):
        words.append("--")  # a value such as "-5" is text, not a flag
    return words + positional, raw


def _checked(kind: str, value: Any, name: str) -> str:
    if kind == INT:
        if isinstance(value, bool) or not isinstance(value, (int, str)) or \
                not str(value).lstrip("-").isdigit():
            raise ToolError(f"{name!r} must be a whole number, got {value!r}")
    elif not isinstance(value, (str, int, float)) or isinstance(value, bool):
        raise ToolError(f"{name!r} must be a string, got {value!r}")
    return str(value)


# --- schemas and descriptions ---------------------------------------------------------------
def _arg_schema(arg: Arg) -> dict[str, Any]:
    if arg.variadic:
        schema: dict[str, Any] = {"type": "array", "items": {"type": "string"}}
    elif arg.choices:
        schema = {"type": "string", "enum": list(arg.choices)}
    else:
        schema = {"type": "integer" if arg.kind == INT else "string"}
    if arg.help:
        schema["description"] = QUOTE_HINT.sub("", arg.help)
    return schema


def _flag_schema(flag: Flag) -> dict[str, Any]:
    kind = "boolean" if flag.value is None else "integer" if flag.kind == INT else "string"
    schema: dict[str, Any] = {"type": "array", "items": {"type": kind}} if flag.repeat \
        else {"type": kind}
    if flag.help:
        schema["description"] = flag.help
    return schema


def _named(spec: CommandSpec) -> Tool:
    assert spec.tool is not None
    if not TOOL_NAME.fullmatch(spec.tool) or spec.tool == RUN:
        raise ValueError(f"{spec.name}: {spec.tool!r} cannot name an MCP tool")
    props: dict[str, Any] = {a.name: _arg_schema(a) for a in spec.args}
    for flag in spec.flags:
        if flag.key in props:
            raise ValueError(f"{spec.tool}: flag {flag.name} clashes with an argument")
        props[flag.key] = _flag_schema(flag)
    schema: dict[str, Any] = {"type": "object", "properties": props}
    required = [a.name for a in spec.args if not a.optional]
    if required:
        schema["required"] = required
    description = spec.summary
    if spec.mutates:
        description += " Answers with what changed on the page."
    return Tool(spec.tool, description, schema, spec, spec.flags)


def _run_tool(registry: Registry) -> Tool:
    groups = "; ".join(f"{CATEGORIES.get(c, c)}: {', '.join(s.name for s in specs)}"
                       for c, specs in registry.by_category().items())
    description = (
        "Run one line of Cockpit's browser command language (shell-like words; quote text "
        "with spaces), e.g. `snapshot -i`, `click @e6`, `fill @e4 \"a b\"`. "
        f"Commands: {groups}. `help CMD` shows one command. Targets: @e3 (a ref from "
        "the latest snapshot) or a CSS selector. $NAME uses a secret the human gave. While "
        "a human has control the call waits, then answers with what they changed.")
    schema = {"type": "object", "properties": {RUN_PARAM: {"type": "string",
                                                           "description": "the command line"}},
              "required": [RUN_PARAM]}
    return Tool(RUN, description, schema, None)


def tools(registry: Registry = REGISTRY) -> list[Tool]:
    """browser_run first, then the commands declared with a tool, by category (as `help`
    lists them)."""
    made = [_run_tool(registry)] + [_named(spec) for specs in registry.by_category().values()
                                    for spec in specs if spec.tool]
    names = [t.name for t in made]
    if len(set(names)) != len(names):
        raise ValueError(f"two commands declare the same MCP tool: {names}")
    return made


def by_name(registry: Registry = REGISTRY) -> dict[str, Tool]:
    return {t.name: t for t in tools(registry)}
