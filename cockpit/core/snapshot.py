"""Snapshots: Playwright's AI aria snapshot, parsed into a tree of nodes keyed by ref.

Playwright gives every element a ref (`e5`, `f1e2` inside frames) and keeps it stable
while the element lives and its role and name stay the same; that stability is what
makes ref-keyed diffs possible. We parse its YAML-like text ourselves (a line parser is
several times faster than a YAML load) and render it back in the same format, filtered.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from typing import Iterator

INTERACTIVE_ROLES = frozenset({
    "button", "link", "textbox", "searchbox", "checkbox", "radio", "combobox", "listbox",
    "option", "menuitem", "menuitemcheckbox", "menuitemradio", "tab", "switch", "slider",
    "spinbutton", "treeitem",
})
# Roles whose inline text is their name (or part of it), so `-i` need not repeat it.
NAMED_BY_TEXT = frozenset({"button", "link", "heading", "tab", "menuitem", "option"})
# Wrappers that `-c` drops when they carry no name, value or interaction of their own.
STRUCTURAL_ROLES = frozenset({"generic", "group", "none", "presentation", "list", "listitem",
                              "region", "section", "paragraph", "rowgroup"})
# Attributes that do not count as a change of state in diffs: focus and pointer style move
# with every click and would drown what matters.
NOT_STATE = frozenset({"ref", "active", "cursor", "box"})

_KEY = re.compile(r'(?P<role>[A-Za-z][\w-]*)(?: (?P<name>"(?:[^"\\]|\\.)*"))?'
                  r'(?P<attrs>(?: \[[^\]]*\])*)$')
_ATTR = re.compile(r"\[([^\]]*)\]")


@dataclass
class Node:
    role: str
    name: str = ""
    attrs: list[str] = field(default_factory=list)  # in Playwright's order: "level=1", "ref=e2"
    value: str = ""  # inline text after the colon
    props: dict[str, str] = field(default_factory=dict)  # "/url" and friends
    children: list[Node] = field(default_factory=list)
    ref: str | None = None
    parent: Node | None = field(default=None, repr=False)
    extra: list[str] = field(default_factory=list)  # marks we add, e.g. "clickable"

    def attr(self, key: str) -> str | bool | None:
        for item in self.attrs:
            k, eq, v = item.partition("=")
            if k == key:
                return v if eq else True
        return None

    @property
    def interactive(self) -> bool:
        return self.role in INTERACTIVE_ROLES

    @property
    def state(self) -> dict[str, str | bool]:
        out: dict[str, str | bool] = {}
        for item in self.attrs:
            k, eq, v = item.partition("=")
            if k not in NOT_STATE:
                out[k] = v if eq else True
        return out

    @property
    def text(self) -> str:
        """The node's own text: its value plus its unreffed text children (what a diff watches)."""
        parts = [self.value] if self.value else []
        for child in self.children:
            if child.ref is None:
                parts.append(child.line(with_children_text=True))
        return " | ".join(p for p in parts if p)

    def line(self, with_children_text: bool = False, terse: bool = False) -> str:
        """The node as one snapshot line, without the leading '- '.

        `terse` (for `snapshot -i`) leaves out the pointer-cursor mark that every link and
        button carries, and a button's or link's text when its name already says it."""
        if self.role.startswith("/"):
            return f"{self.role}: {self.value}"
        out = self.role
        if self.name:
            out += " " + json.dumps(self.name, ensure_ascii=False)
        marks = self.attrs + self.extra
        if terse:
            marks = [m for m in marks if m != "cursor=pointer"]
        out += "".join(f" [{a}]" for a in marks)
        if self.value and not (terse and self.name and self.role in NAMED_BY_TEXT):
            out += ": " + _scalar(self.value)
        if with_children_text and self.children:
            inner = ", ".join(c.line(True) for c in self.children if c.ref is None)
            out += f" ({inner})" if inner else ""
        return out

    def walk(self) -> Iterator[Node]:
        yield self
        for child in self.children:
            yield from child.walk()


def _scalar(text: str) -> str:
    if text[:1] in "\"'[{&*!|>%@`#" or ": " in text or text != text.strip() or "\n" in text:
        return json.dumps(text, ensure_ascii=False)
    return text


def _unquote(text: str) -> str:
    if len(text) >= 2 and text[0] == '"' and text[-1] == '"':
        try:
            return json.loads(text)
        except ValueError:
            return text[1:-1]
    if len(text) >= 2 and text[0] == "'" and text[-1] == "'":
        return text[1:-1].replace("''", "'")
    return text


def _split_item(content: str) -> tuple[str, str | None]:
    """Split `key: value` / `key:` / `key` where key may be YAML single-quoted."""
    if content.startswith("'"):
        i = 1
        while i < len(content):
            if content[i] == "'":
                if content[i + 1:i + 2] == "'":
                    i += 2
                    continue
                break
            i += 1
        key, rest = content[1:i].replace("''", "'"), content[i + 1:]
    else:
        # The name is a JSON string that may hold ': ', so skip over it before splitting.
        m = re.match(r'[^":]*(?:"(?:[^"\\]|\\.)*")?[^:]*', content)
        end = m.end() if m else 0
        key, rest = content[:end], content[end:]
    if not rest:
        return key, None
    return key, rest[1:].strip()  # rest starts with ':'


def parse(text: str) -> list[Node]:
    """Parse an aria snapshot into its top-level nodes."""
    roots: list[Node] = []
    stack: list[tuple[int, Node]] = []
    for raw in text.splitlines():
        stripped = raw.lstrip(" ")
        if not stripped.startswith("- "):
            continue
        indent = len(raw) - len(stripped)
        key, value = _split_item(stripped[2:])
        while stack and stack[-1][0] >= indent:
            stack.pop()
        parent = stack[-1][1] if stack else None
        if key.startswith("/"):  # a property of the parent, e.g. `/url: /inbox`
            if parent is not None:
                parent.props[key] = _unquote(value or "")
            continue
        m = _KEY.match(key)
        if m:
            attrs = _ATTR.findall(m.group("attrs") or "")
            node = Node(m.group("role"), _unquote(m.group("name") or ""), attrs)
        else:  # a bare text line such as `- "some text"`
            node = Node("text", value=_unquote(key))
            attrs = []
        if value:
            node.value = _unquote(value)
        for a in attrs:
            if a.startswith("ref="):
                node.ref = a[4:]
        node.parent = parent
        (parent.children if parent else roots).append(node)
        stack.append((indent, node))
    return roots


@dataclass
class Snapshot:
    """One snapshot of one tab: the tree, its refs, and the page it was taken of."""

    roots: list[Node]
    url: str = ""
    title: str = ""
    doc: str = ""  # the document it was taken of; refs die with their document
    taken_at: float = field(default_factory=time.time)
    raw: str = ""
    refs: dict[str, Node] = field(default_factory=dict)

    @classmethod
    def from_text(cls, text: str, **info) -> Snapshot:
        snap = cls(parse(text), raw=text, **info)
        snap.refs = {n.ref: n for n in snap.walk() if n.ref}
        return snap

    def walk(self) -> Iterator[Node]:
        for root in self.roots:
            yield from root.walk()

    def describe(self, ref: str) -> str:
        node = self.refs.get(ref)
        if node is None:
            return f"@{ref}"
        return f"@{ref} ({node.role}{' ' + json.dumps(node.name) if node.name else ''})"
