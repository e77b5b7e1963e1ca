"""The command registry: every command is declared once, here, and everything reads it.

The parser, `help`, completion, the JSON description and the docs' command reference
all come from these declarations, so adding a command is one `@command(...)` and a handler.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Awaitable, Callable

if TYPE_CHECKING:
    from ..base.result import Outcome

# Argument kinds: they drive parsing (int), completion (target, choice) and docs.
TEXT, INT, TARGET, URL, FILE, KEY, CHOICE, COMMAND = (
    "text", "int", "target", "url", "file", "key", "choice", "command")

CATEGORIES = {
    "navigate": "Navigate",
    "read": "Read the page",
    "interact": "Interact",
    "inspect": "Inspect",
    "visual": "Pictures and PDF",
    "tabs": "Tabs",
    "state": "Dialogs and browser state",
    "expect": "Expectations (fail when not met)",
    "network": "Network",
    "emulation": "Emulation",
    "control": "Handing over to a human",
    "meta": "Meta",
}


@dataclass(frozen=True)
class Arg:
    """A positional argument."""

    name: str
    help: str = ""
    kind: str = TEXT
    optional: bool = False
    variadic: bool = False  # takes every remaining word
    raw: bool = False  # takes the rest of the line verbatim (JS code keeps its quotes)
    choices: tuple[str, ...] = ()

    @property
    def metavar(self) -> str:
        label = "|".join(self.choices) if self.choices else self.name.upper()
        label += "..." if self.variadic else ""
        return f"[{label}]" if self.optional else label


@dataclass(frozen=True)
class Flag:
    """An option: `--text T`, or a switch such as `-i`."""

    name: str  # the long form, e.g. "--text"; it is also the key in parsed values
    short: str | None = None
    help: str = ""
    value: str | None = None  # metavar when the flag takes a value
    kind: str = TEXT
    default: Any = None
    repeat: bool = False  # may be given again: its values are a list, in order

    @property
    def key(self) -> str:
        return self.name.lstrip("-").replace("-", "_")

    @property
    def usage(self) -> str:
        names = f"{self.short}|{self.name}" if self.short else self.name
        usage = f"{names} {self.value}" if self.value else names
        return f"{usage}..." if self.repeat else usage


Handler = Callable[..., Awaitable["Outcome"]]  # (Context, Invocation) -> Outcome


@dataclass(frozen=True)
class CommandSpec:
    """One command, declared once: its words, arguments and how the session treats it.

    The behaviour flags below are the only place these facts live; the session, the
    recorder's masker, replay and export read them from the parsed command's spec.

    - `mutates`: changes the page: it settles afterwards and reports a diff (and the page
      is then checked for what needs a person, as with `checks_needs`).
    - `modal_safe`: still runs while a dialog (alert, confirm, prompt) blocks the page,
      because it does not touch the page's scripts; every other command is refused then.
    - `needs_tab`: False for a command that runs with no tab at all, even with the browser
      gone or its window closed (it never touches a page).
    - `never_held`: runs at once while agents' commands are held (a pause, a handoff),
      whoever sends it: `cockpit exec resume` arrives as an agent's command and must not
      wait behind the handoff it ends.
    - `checks_needs`: afterwards the page is checked for what only a person can do (a
      CAPTCHA, a one-time code, a sign-in) and the result says so.
    - `needs_person`: hands the browser to a person or takes it back; replay and export
      leave it out (nobody is there to take it).
    - `typed_text`: the name of the argument whose text is typed into the page; recordings
      mask it when it went into a password field.
    - `masked_args`: arguments whose values are stored in the browser (cookie and storage
      values, often credentials); recordings mask them wherever they appear.
    - `secret_args`: arguments that are credentials (an HTTP password): masked in every
      line, result and event the session shows, before and after the command runs, and
      in recordings (a `$NAME` secret stays its name).
    - `read_only`: reports on the page or the session and changes nothing in the browser
      (it may write a file); a test exported from a recording leaves it out.
    - `bypasses_queue`: runs at once, beside a command still running (even a stuck one),
      without taking the command lock: it only reads the session (status).
    - `interrupts`: waits a moment for the command running, then cuts it short (it ends
      with an error saying so, a hung page is recovered) and runs next: a person taking
      or giving back the browser never waits behind a stuck command (handoff, resume).
    - `waits_for`: arguments in milliseconds that the command is told to wait; its
      deadline (the session's command timeout) grows by their sum (`wait --timeout`).
    - `switches_tab`: the session goes on in another tab because the command says so
      (tab, newtab, closetab): an exported test follows it with its own page.
    - `session_control`: controls what the session itself captures (a trace, a video),
      not a step of the walkthrough: recorded, but replay and export leave it out (a
      replay would overwrite the files the recorded session made).
    - `proposes`: offers a person choices to pick from (the expectations that hold now),
      not a step of the walkthrough: recorded and shown, but replay and export leave it
      out (on a changed page it would stop a replay before the check that was picked).
    - `relays_input`: raw input a view of the page relays from a person (the live view's
      mouse and keys): while capture is on, what it does in the page is captured as the
      person's steps (by role and name, a fill once), and it is no step of its own.
    - `captured`: a person's action in the browser that capture (core/capture) turns into
      this command's step (click, fill, select...), with its element by role and name.
    - `asserts`: checks that something holds and fails when it does not (`expect`): replay
      reports its failures apart from divergences, and an exported test asserts it.
    - `leaves_page`: loads another document in its tab (goto): a new tab's blank page
      before it is not asked for a snapshot (it has none to give), so a session's first
      step is shorter by those round trips.
    - `tool`: the name of its own MCP tool in `cockpit mcp` (what agents do most), whose
      parameters are its arguments and flags; every command is also reachable through
      the `browser_run` tool.
    """

    name: str
    category: str
    summary: str
    handler: Handler
    args: tuple[Arg, ...] = ()
    flags: tuple[Flag, ...] = ()
    aliases: tuple[str, ...] = ()
    mutates: bool = False
    details: str = ""
    examples: tuple[str, ...] = ()
    modal_safe: bool = False
    needs_tab: bool = True
    never_held: bool = False
    checks_needs: bool = False
    needs_person: bool = False
    typed_text: str | None = None
    masked_args: tuple[str, ...] = ()
    secret_args: tuple[str, ...] = ()
    read_only: bool = False
    bypasses_queue: bool = False
    interrupts: bool = False
    waits_for: tuple[str, ...] = ()
    switches_tab: bool = False
    asserts: bool = False
    session_control: bool = False
    proposes: bool = False
    relays_input: bool = False
    captured: bool = False
    tool: str | None = None
    leaves_page: bool = False

    def __post_init__(self) -> None:
        named = {a.name for a in self.args}
        for arg in (self.typed_text, *self.masked_args, *self.secret_args):
            if arg is not None and arg not in named:  # a typo would silently mask nothing
                raise ValueError(f"{self.name}: no argument {arg!r} to type or mask")
        for arg in self.waits_for:
            if arg not in named | {f.key for f in self.flags}:
                raise ValueError(f"{self.name}: no argument or flag {arg!r} to wait for")
        if self.read_only and (self.mutates or self.needs_person):
            raise ValueError(f"{self.name}: a read-only command cannot change the page")

    @property
    def behaviour(self) -> dict[str, Any]:
        """The behaviour flags, as `describe()` and `help CMD` show them."""
        return {"mutates": self.mutates, "modal_safe": self.modal_safe,
                "needs_tab": self.needs_tab, "never_held": self.never_held,
                "checks_needs": self.checks_needs or self.mutates,
                "needs_person": self.needs_person, "typed_text": self.typed_text,
                "masked_args": list(self.masked_args),
                "secret_args": list(self.secret_args), "read_only": self.read_only,
                "bypasses_queue": self.bypasses_queue, "interrupts": self.interrupts,
                "waits_for": list(self.waits_for), "switches_tab": self.switches_tab,
                "asserts": self.asserts, "session_control": self.session_control,
                "proposes": self.proposes, "relays_input": self.relays_input}

    @property
    def synopsis(self) -> str:
        parts = [self.name] + [a.metavar for a in self.args]
        parts += [f"[{f.usage}]" for f in self.flags]
        return " ".join(parts)

    def flag(self, word: str) -> Flag | None:
        for f in self.flags:
            if word in (f.name, f.short):
                return f
        return None

    def describe(self) -> dict[str, Any]:
        """The JSON description of this command (for agents, completion and docs)."""
        return {
            "name": self.name,
            "aliases": list(self.aliases),
            "category": self.category,
            "summary": self.summary,
            "synopsis": self.synopsis,
            **self.behaviour,
            "details": self.details,
            "args": [
                {"name": a.name, "kind": a.kind, "optional": a.optional,
                 "variadic": a.variadic or a.raw, "choices": list(a.choices), "help": a.help}
                for a in self.args
            ],
            "flags": [
                {"name": f.name, "short": f.short, "value": f.value, "kind": f.kind,
                 "help": f.help}
                for f in self.flags
            ],
            "examples": list(self.examples),
            "tool": self.tool,
        }

    def help_text(self) -> str:
        lines = [self.synopsis, "", self.summary]
        if self.details:
            lines += ["", self.details]
        if self.args:
            lines += ["", "Arguments:"]
            lines += [f"  {a.metavar:<24} {a.help}" for a in self.args]
        if self.flags:
            lines += ["", "Flags:"]
            lines += [f"  {f.usage:<24} {f.help}" for f in self.flags]
        if self.aliases:
            lines += ["", "Aliases: " + ", ".join(self.aliases)]
        notes = self._behaviour_notes()
        if notes:
            lines += ["", "Behaviour: " + "; ".join(notes)]
        if self.examples:
            lines += ["", "Examples:"] + [f"  {e}" for e in self.examples]
        if self.tool:
            lines += ["", f"MCP tool: {self.tool} (`cockpit mcp`)"]
        return "\n".join(lines)

    def _behaviour_notes(self) -> list[str]:
        notes = []
        if self.read_only:
            notes.append("read-only (changes nothing in the browser)")
        if self.mutates:
            notes.append("changes the page: settles and reports what changed")
        if self.modal_safe:
            notes.append("runs while a dialog is open")
        if not self.needs_tab:
            notes.append("needs no browser")
        if self.never_held:
            notes.append("never waits while agents are held")
        if self.checks_needs and not self.mutates:
            notes.append("checks whether the page needs a person")
        if self.needs_person:
            notes.append("involves a person: replay and export skip it")
        if self.session_control:
            notes.append("a session control: replay and export leave it out")
        if self.proposes:
            notes.append("offers choices to a person: replay and export leave it out")
        if self.asserts:
            notes.append("fails when what it checks does not hold; replay checks it and "
                         "export asserts it")
        if self.bypasses_queue:
            notes.append("runs at once, even while another command is stuck")
        if self.interrupts:
            notes.append("cuts short a command still running after a moment")
        if self.typed_text:
            notes.append(f"{self.typed_text.upper()} is masked in recordings when typed "
                         "into a password field")
        if self.masked_args:
            notes.append(f"{', '.join(a.upper() for a in self.masked_args)} masked in "
                         "recordings")
        if self.secret_args:
            notes.append(f"{', '.join(a.upper() for a in self.secret_args)} masked "
                         "everywhere it would show")
        return notes


RESERVED = frozenset({"spec", "line", "params"})  # attributes of a parsed Invocation


@dataclass
class Registry:
    commands: dict[str, CommandSpec] = field(default_factory=dict)
    aliases: dict[str, str] = field(default_factory=dict)

    def add(self, spec: CommandSpec) -> None:
        clash = {a.name for a in spec.args} | {f.key for f in spec.flags}
        if clash & RESERVED:  # handlers read values as attributes of the invocation
            raise ValueError(f"{spec.name}: {sorted(clash & RESERVED)} would shadow the "
                             "invocation's own attributes; rename them")
        for word in (spec.name, *spec.aliases):
            if word in self.commands or word in self.aliases:
                raise ValueError(f"command word {word!r} declared twice")
        self.commands[spec.name] = spec
        for alias in spec.aliases:
            self.aliases[alias] = spec.name

    def get(self, word: str) -> CommandSpec | None:
        word = word.lower()
        return self.commands.get(self.aliases.get(word, word))

    def words(self) -> list[str]:
        return sorted([*self.commands, *self.aliases])

    def by_category(self) -> dict[str, list[CommandSpec]]:
        grouped: dict[str, list[CommandSpec]] = {c: [] for c in CATEGORIES}
        for spec in self.commands.values():
            grouped.setdefault(spec.category, []).append(spec)
        return {c: specs for c, specs in grouped.items() if specs}

    def describe(self) -> dict[str, Any]:
        return {"commands": [s.describe() for s in self.commands.values()],
                "categories": CATEGORIES}

    def overview(self) -> str:
        """`help` with no argument: every command by category."""
        lines: list[str] = []
        for category, specs in self.by_category().items():
            lines.append(f"{CATEGORIES.get(category, category)}:")
            lines += [f"  {s.name:<12} {s.summary}" for s in specs]
        lines.append("Type `help CMD` for one command. Targets: @e3 (a ref from `snapshot`) "
                     "or a CSS selector.")
        return "\n".join(lines)

    def markdown(self) -> str:
        """The command reference for the docs, generated so it never drifts."""
        out: list[str] = []
        for category, specs in self.by_category().items():
            out += [f"#### {CATEGORIES.get(category, category)}", "",
                    "| command | what it does |", "|---|---|"]
            for s in specs:
                synopsis = s.synopsis.replace("|", "\\|")
                alias = f" (alias {', '.join(s.aliases)})" if s.aliases else ""
                out.append(f"| `{synopsis}` | {s.summary}{alias} |")
            out.append("")
        return "\n".join(out).rstrip() + "\n"


REGISTRY = Registry()


def command(name: str, category: str, summary: str, *, args: tuple[Arg, ...] = (),
            flags: tuple[Flag, ...] = (), aliases: tuple[str, ...] = (), mutates: bool = False,
            details: str = "", examples: tuple[str, ...] = (), modal_safe: bool = False,
            needs_tab: bool = True, never_held: bool = False, checks_needs: bool = False,
            needs_person: bool = False, typed_text: str | None = None,
            masked_args: tuple[str, ...] = (), secret_args: tuple[str, ...] = (),
            read_only: bool = False,
            bypasses_queue: bool = False, interrupts: bool = False,
            waits_for: tuple[str, ...] = (), switches_tab: bool = False,
            asserts: bool = False, session_control: bool = False, tool: str | None = None,
            leaves_page: bool = False, captured: bool = False, proposes: bool = False,
            relays_input: bool = False,
            registry: Registry = REGISTRY) -> Callable[[Handler], Handler]:
    """Declare a command. The decorated coroutine gets `(ctx, args)` and returns an Outcome.
    The behaviour flags are documented on `CommandSpec`."""

    def register(handler: Handler) -> Handler:
        registry.add(CommandSpec(
            name, category, summary, handler, tuple(args), tuple(flags), tuple(aliases),
            mutates, details, tuple(examples), modal_safe=modal_safe, needs_tab=needs_tab,
            never_held=never_held, checks_needs=checks_needs, needs_person=needs_person,
            typed_text=typed_text, masked_args=tuple(masked_args),
            secret_args=tuple(secret_args), read_only=read_only,
            bypasses_queue=bypasses_queue, interrupts=interrupts, waits_for=tuple(waits_for),
            switches_tab=switches_tab, asserts=asserts, session_control=session_control,
            tool=tool, leaves_page=leaves_page, captured=captured, proposes=proposes,
            relays_input=relays_input))
        return handler

    return register
