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
        """The node's own text: its value plus the text of children without a ref of their
        own (those are watched by their own ref). What a diff compares."""
        parts = [self.value] if self.value else []
        for child in self.children:
            if child.ref is None:
                parts.append(child.plain())
        return " ".join(p for p in parts if p)

    def plain(self) -> str:
        """All the words in this node and below it, without roles or marks."""
        parts = [self.name, self.value] if self.role != "text" else [self.value]
        parts += [c.plain() for c in self.children]
        return " ".join(p for p in parts if p)

    def line(self, terse: bool = False) -> str:
        """The node as one snapshot line, without the leading '- '.

        `terse` (for `snapshot -i`) leaves out the pointer-cursor mark that every link and
        button carries, and a button's or link's text when its name already says it."""
        if self.role.startswith("/"):
            return f"{self.role}: {scalar(self.value)}"
        out = self.role
        if self.name:
            out += " " + json.dumps(self.name, ensure_ascii=False)
        marks = self.attrs + self.extra
        if terse:
            marks = [m for m in marks if m != "cursor=pointer"]
        out += "".join(f" [{a}]" for a in marks)
        if self.value and not (terse and self.name and self.role in NAMED_BY_TEXT):
            out += ": " + scalar(self.value)
        return out

    def walk(self) -> Iterator[Node]:
        """This node and all below it, in document order (iterative: pages are deep)."""
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children))


def scalar(text: str) -> str:
    """A value as YAML would need it: quoted when plain text would read differently."""
    if (not text or text[0] in "\"'[]{}&*!|>%@`#,-?:" or ": " in text or " #" in text
            or text.endswith(":") or text != text.strip() or "\n" in text):
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


# The common line in one match: indent, role, "name", [attrs], and `: value` or `:`.
_LINE = re.compile(r'( *)- ([A-Za-z][\w-]*)(?: ("(?:[^"\\]|\\.)*"))?((?: \[[^\]]*\])*)'
                   r'(?:(:)(?: (.*))?)?$')


def _name(quoted: str | None) -> str:
    if not quoted:
        return ""
    return json.loads(quoted) if "\\" in quoted else quoted[1:-1]


def parse(text: str, refs: dict[str, Node] | None = None) -> list[Node]:
    """Parse an aria snapshot into its top-level nodes (filling `refs` on the way)."""
    refs = {} if refs is None else refs
    roots: list[Node] = []
    stack: list[tuple[int, Node]] = []
    for raw in text.splitlines():
        m = _LINE.match(raw)
        if m:
            indent = len(m.group(1))
            attrs = _ATTR.findall(m.group(4)) if m.group(4) else []
            node = Node(m.group(2), _name(m.group(3)), attrs)
            value = m.group(6)
            if value:
                node.value = _unquote(value) if value[0] in "\"'" else value
        else:  # quoted keys, properties such as `/url: /inbox`, bare text lines
            stripped = raw.lstrip(" ")
            if not stripped.startswith("- "):
                continue
            indent = len(raw) - len(stripped)
            key, value = _split_item(stripped[2:])
            if key.startswith("/"):
                while stack and stack[-1][0] >= indent:
                    stack.pop()
                if stack:
                    stack[-1][1].props[key] = _unquote(value or "")
                continue
            km = _KEY.match(key)
            if km:
                attrs = _ATTR.findall(km.group("attrs") or "")
                node = Node(km.group("role"), _unquote(km.group("name") or ""), attrs)
            else:
                attrs = []
                node = Node("text", value=_unquote(key))
            if value:
                node.value = _unquote(value)
        for a in attrs:
            if a.startswith("ref="):
                node.ref = a[4:]
                refs[node.ref] = node
        while stack and stack[-1][0] >= indent:
            stack.pop()
        parent = stack[-1][1] if stack else None
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
        refs: dict[str, Node] = {}
        return cls(parse(text, refs), raw=text, refs=refs, **info)

    def walk(self) -> Iterator[Node]:
        for root in self.roots:
            yield from root.walk()

    def describe(self, ref: str) -> str:
        node = self.refs.get(ref)
        if node is None:
            return f"@{ref}"
        return f"@{ref} ({node.role}{' ' + json.dumps(node.name) if node.name else ''})"
