"""Snapshots: Playwright's AI aria snapshot, parsed into a tree of nodes keyed by ref.

Playwright gives every element a ref (`e5`, `f1e2` in later documents and frames) and
keeps it stable while the element lives and its role and name stay the same; that
stability is what makes ref-keyed diffs possible. A tab shows shorter names for them
(refnames.py): `parse` names each node as the tab does and keeps Playwright's own in
`Node.pw`. We parse the YAML-like text ourselves (a line parser is several times faster
than a YAML load) and render it back in the same format, filtered.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterator

INTERACTIVE_ROLES = frozenset({
    "button", "link", "textbox", "searchbox", "checkbox", "radio", "combobox", "listbox",
    "option", "menuitem", "menuitemcheckbox", "menuitemradio", "tab", "switch", "slider",
    "spinbutton", "treeitem",
})
# Roles whose inline text is their name (or part of it), so `-i` need not repeat it.
NAMED_BY_TEXT = frozenset({"button", "link", "heading", "tab", "menuitem", "option"})
# Roles whose accessible name comes from their content (WAI-ARIA "name from content"). When
# the text sits in children (`<a><code>repr()</code></a>`) Playwright leaves the name out
# and shows the children instead; flat views (`-i`, the refs pane, diffs) would then show a
# nameless line, so they use the children's words as the label.
NAME_FROM_CONTENT = NAMED_BY_TEXT | frozenset({
    "checkbox", "radio", "switch", "menuitemcheckbox", "menuitemradio", "treeitem", "cell",
    "gridcell", "columnheader", "rowheader", "tooltip"})
LABEL_CHARS = 60  # a label taken from children is cut here: enough to tell links apart
# Wrappers that `-c` drops when they carry no name, value or interaction of their own.
STRUCTURAL_ROLES = frozenset({"generic", "group", "none", "presentation", "list", "listitem",
                              "region", "section", "paragraph", "rowgroup"})
# Roles whose value is what the user typed or chose. Playwright writes that value inline
# (`textbox "Q": shoes`) unless the field has something else to show below it (a
# `/placeholder` that differs from its name): then the value is a `text:` child line.
VALUE_ROLES = frozenset({"textbox", "searchbox", "combobox", "spinbutton"})
# Attributes that do not count as a change of state in diffs: focus and pointer style move
# with every click and would drown what matters.
NOT_STATE = frozenset({"ref", "active", "cursor", "box"})

_KEY = re.compile(r'(?P<role>[A-Za-z][\w-]*)(?: (?P<name>"(?:[^"\\]|\\.)*"))?'
                  r'(?P<attrs>(?: \[[^\]]*\])*)$')
_ATTR = re.compile(r"\[([^\]]*)\]")


@dataclass(slots=True)  # tens of thousands on a big page: no __dict__ each
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
    # The name flat views show: Playwright's name, or the words of the children when it
    # left the name out because they carry it (filled by `parse`; see NAME_FROM_CONTENT).
    label: str = ""
    secret: bool = False  # a password field: its value is masked (core/secret_fields.py)
    pw: str | None = None  # Playwright's ref (`f3e14`), what its selectors find; `ref` is ours

    @property
    def in_frame(self) -> bool:
        """Whether the element is inside an iframe. The tree says it, not the ref: the
        main frame's refs carry a prefix too in Playwright's naming (`f1e8`) after a
        navigation, and ours carry none."""
        parent = self.parent
        while parent is not None:
            if parent.role == "iframe":
                return True
            parent = parent.parent
        return False

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
        own (those are watched by their own ref). What a diff compares. An empty element
        without a ref (Playwright gives none to an element with no box: a list emptied of
        its rows) adds nothing: its name (`list "Tasks"`) is a label, not words on screen."""
        parts = [self.value] if self.value else []
        for child in self.children:
            if child.ref is None and (child.role == "text" or child.children or child.value):
                parts.append(child.plain())
        return " ".join(p for p in parts if p)

    def plain(self) -> str:
        """All the words in this node and below it, without roles or marks."""
        parts = [self.name, self.value] if self.role != "text" else [self.value]
        parts += [c.plain() for c in self.children]
        return " ".join(p for p in parts if p)

    def line(self, terse: bool = False) -> str:
        """The node as one snapshot line, without the leading '- '.

        `terse` (for the flat `snapshot -i` list, whose lines start with `@ref`) leaves out
        the ref mark, the pointer-cursor mark that every link and button carries, a
        heading's level (a flat list has no outline to place it in), and a button's or
        link's text when its name already says it; it names the element by its label."""
        if self.role.startswith("/"):
            return f"{self.role}: {scalar(self.value)}"
        out = self.role
        name = (self.label or self.name) if terse else self.name
        if name:
            out += " " + json.dumps(name, ensure_ascii=False)
        marks = self.attrs + self.extra
        if terse:
            marks = [m for m in marks if m != "cursor=pointer"
                     and not m.startswith(("level=", "ref="))]
        out += "".join(f" [{a}]" for a in marks)
        if self.value and not (terse and name and self.role in NAME_FROM_CONTENT):
            out += ": " + scalar(self.value)
        return out

    def words(self, limit: int = LABEL_CHARS) -> str:
        """The text below this node as one line, cut at `limit` characters (stops walking
        once it has enough, so a huge subtree costs no more than a small one)."""
        parts: list[str] = []
        size = 0
        for node in self.walk():
            if node is self:
                piece = self.value
            else:
                piece = node.value if node.role == "text" else " ".join(
                    p for p in (node.name, node.value) if p)
            if piece:
                parts.append(piece)
                size += len(piece) + 1
                if size > limit + 1:
                    break
        text = " ".join(" ".join(parts).split())
        return text if len(text) <= limit else text[:limit - 1].rstrip() + "…"

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
            unquoted: str = json.loads(text)
            return unquoted
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


def parse(text: str, refs: dict[str, Node] | None = None,
          names: Callable[[str], str] | None = None) -> list[Node]:
    """Parse an aria snapshot into its top-level nodes (filling `refs` on the way).
    `names`: the tab's name for each of Playwright's refs (refnames.RefNames); without
    it, Playwright's refs are the names."""
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
        for i, a in enumerate(attrs):
            if a.startswith("ref="):
                node.pw = a[4:]
                node.ref = names(node.pw) if names is not None else node.pw
                attrs[i] = f"ref={node.ref}"  # the full tree shows the tab's names too
                refs[node.ref] = node
        while stack and stack[-1][0] >= indent:
            stack.pop()
        parent = stack[-1][1] if stack else None
        node.parent = parent
        (parent.children if parent else roots).append(node)
        stack.append((indent, node))
    for node in refs.values():
        if node.role in VALUE_ROLES and not node.value and node.children:
            _fold_value(node)
        node.label = node.name or (node.words() if node.role in NAME_FROM_CONTENT else "")
    return roots


def _fold_value(node: Node) -> None:
    """A field's value given as `text:` child lines (Playwright's form when the field also
    has a `/placeholder` to show) becomes its value, as in the inline form: every view
    (`snapshot -i`, the refs pane, resume reports, the secret mask) reads `Node.value`."""
    if all(c.role == "text" and c.ref is None and not c.children for c in node.children):
        node.value = " ".join(c.value for c in node.children if c.value)
        node.children = []


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
    # Refs given out earlier for elements the page has since re-rendered exactly as they
    # were (diff.Diff.moved): old ref -> the live one, so an agent's ref still finds its
    # element and every result names the live ref.
    moved: dict[str, str] = field(default_factory=dict)
    # Elements a popover hid from the snapshot (aria-hidden, inert: Playwright gives them
    # no refs then) while it is open: ref -> the node as last seen (hidden.py).
    behind: dict[str, Node] = field(default_factory=dict)
    inert: bool = False  # a popover made a big part of the page inert (hidden.py)

    @classmethod
    def from_text(cls, text: str, names: Callable[[str], str] | None = None,
                  **info: Any) -> Snapshot:
        refs: dict[str, Node] = {}
        return cls(parse(text, refs, names), raw=text, refs=refs, **info)

    def walk(self) -> Iterator[Node]:
        for root in self.roots:
            yield from root.walk()

    def live(self, ref: str) -> str:
        """The ref the element has now (`ref` itself unless it was re-rendered)."""
        return ref if ref in self.refs else self.moved.get(ref, ref)

    def follow(self, before: Snapshot | None, moved: dict[str, str]) -> None:
        """Keep the moved refs of `before` (same document), brought up to date with the
        ones its diff to this snapshot found."""
        chain = {old: moved.get(new, new) for old, new in before.moved.items()} \
            if before is not None and before.doc == self.doc else {}
        chain.update(moved)
        self.moved = {old: new for old, new in chain.items()
                      if new in self.refs and old not in self.refs}

    def describe(self, ref: str) -> str:
        ref = self.live(ref)
        node = self.refs.get(ref)
        if node is None:
            return f"@{ref}"
        name = node.label or node.name
        return f"@{ref} ({node.role}{' ' + json.dumps(name) if name else ''})"

    def patched(self, swaps: list[tuple[Node, list[Node], dict[str, Node], bool]], *,
                url: str, title: str) -> tuple[Snapshot, dict[str, Node], dict[str, Node]]:
        """A snapshot with parts replaced by fresh snapshots of them, and the refs of the
        old and of the new parts (in document order, for diffing just those).

        `swaps` holds (old node, new roots, their refs, is_frame): the old node is replaced
        by the one new root, or (a frame) keeps its place with the new roots as children,
        or (no new roots) is gone.
        Unchanged nodes are shared with this snapshot, whose `refs` stay as they were (a
        diff against it stays right) but whose tree now shows the new parts too."""
        roots = list(self.roots)
        insert: dict[str, dict[str, Node]] = {}
        dropped: set[str] = set()
        for old, new_roots, new_refs, frame in swaps:
            assert old.ref is not None  # swaps are placed by ref
            siblings = old.parent.children if old.parent is not None else roots
            at = next(i for i, s in enumerate(siblings) if s is old)
            if frame:
                new = replace(old, children=new_roots)
                for child in new_roots:
                    child.parent = new
                siblings[at], refs = new, {old.ref: new, **new_refs}
            elif new_roots:
                new, refs = new_roots[0], new_refs
                new.parent = old.parent
                siblings[at] = new
            else:
                del siblings[at]
                refs = {}
            insert[old.ref] = refs
            dropped.update(n.ref for n in old.walk() if n.ref)
        refs_now: dict[str, Node] = {}
        for ref, node in self.refs.items():
            if ref in insert:
                refs_now.update(insert[ref])
            elif ref not in dropped:
                refs_now[ref] = node
        fresh = {r for part in insert.values() for r in part}
        old_part = {r: n for r, n in self.refs.items() if r in dropped}
        new_part = {r: n for r, n in refs_now.items() if r in fresh}
        snap = Snapshot(roots, url=url, title=title, doc=self.doc, refs=refs_now)
        return snap, old_part, new_part
