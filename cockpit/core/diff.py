"""Diffs keyed by ref: what was added, removed or changed between two snapshots of a tab.

Refs are stable while an element lives, so one inserted row is one added line, never a
renumbered text diff. Playwright gives an element a new ref when its name changes; a
removed and an added node with the same role at the same place under the same parent
are therefore reported as one change of name.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .snapshot import Node, Snapshot

SHOWN_IN_TEXT = 8  # diff lines in a command's short text output; all of them are in data


@dataclass
class Change:
    kind: str  # "added" | "removed" | "changed"
    ref: str
    role: str
    name: str
    fields: dict[str, tuple[Any, Any]] = field(default_factory=dict)  # changed: old, new
    text: str = ""  # an added element's words, so the diff says what appeared

    @property
    def line(self) -> str:
        label = f'@{self.ref} {self.role}' + (f' "{self.name}"' if self.name else "")
        if self.kind == "added":
            words = self.text if len(self.text) <= 80 else self.text[:79] + "…"
            return f"+ {label}" + (f": {words}" if words and words != self.name else "")
        if self.kind == "removed":
            return f"- {label}"
        what = "; ".join(f"{k}: {show_value(a)} -> {show_value(b)}"
                         for k, (a, b) in self.fields.items())
        return f"~ {label} ({what})"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "ref": self.ref, "role": self.role,
                               "name": self.name}
        if self.text:
            out["text"] = self.text
        if self.fields:
            out["fields"] = {k: {"old": a, "new": b} for k, (a, b) in self.fields.items()}
        return out


def show_value(value: Any) -> str:
    """A changed field's value as the diff text writes it."""
    if value is None or value is False:
        return "-" if value is None else "false"
    if value is True:
        return "true"
    text = str(value)
    return f'"{text[:60]}…"' if len(text) > 60 else f'"{text}"'


@dataclass
class Diff:
    changes: list[Change] = field(default_factory=list)
    new_page: bool = False  # the document changed: every old ref is void
    url: tuple[str, str] | None = None  # (old, new) when the URL changed

    @property
    def empty(self) -> bool:
        return not self.changes and not self.url

    def count(self, kind: str) -> int:
        return sum(1 for c in self.changes if c.kind == kind)

    @property
    def summary(self) -> str:
        if self.empty:
            return "No change"
        parts = []
        if self.new_page:
            parts.append(f"new page {self.url[1] if self.url else ''}".rstrip())
        elif self.url:
            parts.append(f"URL {self.url[0]} -> {self.url[1]}")
        if self.changes:
            parts.append(f"+{self.count('added')} -{self.count('removed')} "
                         f"~{self.count('changed')}")
        return ", ".join(parts)

    def text(self, limit: int | None = None) -> str:
        lines = [self.summary]
        if self.new_page and limit is not None:
            return lines[0]  # a whole new page is better read with `snapshot`
        shown = self.changes if limit is None else self.changes[:limit]
        lines += [c.line for c in shown]
        if len(shown) < len(self.changes):
            lines.append(f"… {len(self.changes) - len(shown)} more (all in the result data, "
                         "or `snapshot -D`)")
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        return {"summary": self.summary, "new_page": self.new_page,
                "url": list(self.url) if self.url else None,
                "added": self.count("added"), "removed": self.count("removed"),
                "changed": self.count("changed"),
                "changes": [c.to_json() for c in self.changes]}


def _signature(node: Node) -> dict[str, Any]:
    sig: dict[str, Any] = {"name": node.name, "text": node.text}
    sig.update(node.state)
    if "/url" in node.props:
        sig["url"] = node.props["/url"]
    chosen = [c.name for c in node.children if c.ref is None and c.attr("selected")]
    if chosen:  # a select's options carry no refs: its choice is its own state
        sig["selected"] = ", ".join(chosen)
    return sig


def _place(node: Node) -> tuple[str | None, str, int]:
    siblings = node.parent.children if node.parent else []
    index = next((i for i, s in enumerate(siblings) if s is node), -1)
    return (node.parent.ref if node.parent else None, node.role, index)


def diff(old: Snapshot | None, new: Snapshot) -> Diff:
    """Compare two snapshots of the same tab, keyed by ref."""
    result = Diff()
    old_refs = old.refs if old else {}
    if old is None or old.doc != new.doc:
        result.new_page = old is not None
    if old is not None and old.url != new.url:
        result.url = (old.url, new.url)
    if result.new_page:
        result.changes = [Change("added", r, n.role, n.name, text=n.text)
                          for r, n in new.refs.items()]
        return result
    added = [r for r in new.refs if r not in old_refs]
    removed = [r for r in old_refs if r not in new.refs]
    renamed: dict[str, str] = {}  # new ref -> old ref
    if added and removed:
        by_place = {_place(old_refs[r]): r for r in removed}
        for r in added:
            old_ref = by_place.pop(_place(new.refs[r]), None)
            if old_ref is not None:
                renamed[r] = old_ref
    gone = set(renamed.values())
    for ref in removed:
        if ref not in gone:
            node = old_refs[ref]
            result.changes.append(Change("removed", ref, node.role, node.name))
    for ref, node in new.refs.items():
        before = old_refs.get(ref) or (old_refs[renamed[ref]] if ref in renamed else None)
        if before is None:
            result.changes.append(Change("added", ref, node.role, node.name, text=node.text))
            continue
        a, b = _signature(before), _signature(node)
        if a != b:
            fields = {k: (a.get(k), b.get(k)) for k in {**a, **b} if a.get(k) != b.get(k)}
            if ref in renamed:
                fields["ref"] = (renamed[ref], ref)
            result.changes.append(Change("changed", ref, node.role, node.name, fields))
    return result
