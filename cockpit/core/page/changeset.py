"""What a diff says: its changes (`Change`) and how the whole (`Diff`) is told, as a line
per change and as the data of a Result. diff.py computes one; hidden.py folds a page
that was hidden behind a popover into one line of it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import SplitResult, urlsplit, urlunsplit

SHOWN_IN_TEXT = 8  # diff lines in a command's short text output; all of them are in data
# A new page with this many controls (`snapshot -i` lines) or fewer is listed in the
# action's result, as `snapshot -i` would list it: the agent needs no snapshot call.
NEW_PAGE_LISTED = 10
MARKS = {"added": "+", "removed": "-", "changed": "~"}


def diff_line(change: dict[str, Any], *, ref: bool = True) -> tuple[str, str]:
    """One change, in its JSON form, as the one line every view shows: (its kind, the
    line), e.g. ("added", '+ @e8 status: You stay signed in'). The kind is what views
    style the line by ("" for a kind this version does not know). Without `ref`, the line
    leaves the ref out: a recording's refs may be numbered differently when replayed."""
    kind = change.get("kind", "")
    name = change.get("name") or ""
    label = (f"@{change['ref']} " if ref and change.get("ref") else "") + \
        str(change.get("role", "")) + (f' "{name}"' if name else "")
    if kind == "added":
        text = change.get("text") or ""
        words = text if len(text) <= 80 else text[:79] + "…"
        return kind, f"+ {label}" + (f": {words}" if words and words != name else "")
    if kind == "removed":  # a nameless element (a list's row) is told by its words
        text = change.get("text") or ""
        return kind, f"- {label}" + (f": {text}" if text and not name else "")
    if kind == "changed" and change.get("page"):  # a popover's aria-hidden toggle
        if change["page"] == "shown":
            return kind, "~ page shown again"
        return kind, f"~ page hidden behind {label}" if label else "~ page hidden"
    if kind == "changed":
        what = "; ".join(f"{k}: {show_value(v['old'])} -> {show_value(v['new'])}"
                         for k, v in (change.get("fields") or {}).items())
        return kind, f"~ {label}" + (f" ({what})" if what else "")
    return "", f"? {label}"


@dataclass
class Change:
    kind: str  # "added" | "removed" | "changed"
    ref: str
    role: str
    name: str
    fields: dict[str, tuple[Any, Any]] = field(default_factory=dict)  # changed: old, new
    # an added element's words, so the diff says what appeared; a removed nameless one's,
    # so that it says which went (`- @e8 listitem: Pay the rent`)
    text: str = ""
    inside: bool = False  # removed with its removed parent (whose line says it already)
    page: str = ""  # "hidden" / "shown": the page aria-hidden behind a popover, or shown

    @property
    def line(self) -> str:
        return diff_line(self.to_json())[1]

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "ref": self.ref, "role": self.role,
                               "name": self.name}
        if self.text:
            out["text"] = self.text
        if self.page:
            out["page"] = self.page
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
    # Elements the page re-rendered exactly as they were (a rebuilt list's other rows):
    # old ref -> new ref. Not news, so not shown; the new snapshot keeps them (`moved`).
    moved: dict[str, str] = field(default_factory=dict)

    @property
    def empty(self) -> bool:
        return not self.changes and not self.url

    def count(self, kind: str) -> int:
        return sum(1 for c in self.changes if c.kind == kind)

    @property
    def summary(self) -> str:
        return self._summary()

    def _summary(self, url_said: bool = False, terse: bool = False,
                 counts: bool = True) -> str:
        """`terse`: as the result's text says it, with only what changed in a URL and
        the counts that are not zero (`+2 ~1`); the data's summary says it all.
        `counts`: False when the text shows every change (the lines say it)."""
        if self.empty:
            return "No change"
        parts = []
        if self.new_page:
            where = "" if url_said or not self.url else \
                _url_after(*self.url) if terse else self.url[1]
            parts.append(f"new page {where}".rstrip())
        elif self.url:
            parts.append(_url_change(*self.url) if terse else
                         f"URL {self.url[0]} -> {self.url[1]}")
        if self.changes and counts:
            numbers = [f"{MARKS[kind]}{self.count(kind)}" for kind in MARKS]
            parts.append(" ".join(c for c in numbers if c[1:] != "0") if terse else
                         " ".join(numbers))
        return ", ".join(parts)

    def text(self, limit: int | None = None, *, said: str = "",
             controls: list[str] | None = None, page_said: bool = False) -> str:
        """The summary and a line per change; past `limit` lines, the ones the agent could
        least predict are kept (new words first, removals last) and the cut is said; the
        counts only then (the lines say them). `said`: what the result says already
        (`opened URL`): a new page's URL in it is not said twice. `controls`: a new page's
        `snapshot -i` lines (render.controls), listed instead of its count."""
        url_said = bool(self.url and self.url[1] and self.url[1] in said)
        if limit is None:  # `snapshot -D`: every change on its own line
            return "\n".join([self._summary(url_said, terse=True)] +
                             [c.line for c in self.changes])
        if self.new_page:  # a whole page: its controls when few, else `snapshot` reads it
            if page_said:  # the result said where it is (page_news.page_line)
                return "\n".join(controls) if controls is not None else \
                    f"+{self.count('added')}"
            if controls is None:
                return self._summary(url_said, terse=True)
            # where it is, unless the result said so already (`opened: Title`)
            return "\n".join(([] if url_said else [self._summary(terse=True, counts=False)])
                             + controls)
        told = _folded(self.changes, said)
        shown = told
        if len(shown) > limit:  # stable: document order within a rank
            shown = sorted(shown, key=lambda pair: _news(pair[0]))[:limit]
        head = self._summary(url_said, terse=True, counts=len(shown) < len(told))
        lines = ([head] if head else []) + [line for _, line in shown]
        if len(shown) < len(told):
            lines.append(f"… {len(told) - len(shown)} more lines (`snapshot -D` shows "
                         "them all; so does the result data)")
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        # the summary says URLs in full (the text says only what changed in them)
        return {"summary": self.summary, "new_page": self.new_page,
                "url": list(self.url) if self.url else None,
                "added": self.count("added"), "removed": self.count("removed"),
                "changed": self.count("changed"),
                "changes": [c.to_json() for c in self.changes]}


def _url_change(old: str, new: str) -> str:
    """A URL change said in the words it needs: an in-page link's `URL -> #part`, a
    same-site move from the path on (`URL /a -> /b?x=1`), else both in full."""
    a, b = urlsplit(old), urlsplit(new)
    if not _same_site(a, b):
        return f"URL {old} -> {new}"
    if (a.path, a.query) == (b.path, b.query) and b.fragment:
        return f"URL -> #{b.fragment}"
    return f"URL {_from_path(a)} -> {_from_path(b)}"


def _url_after(old: str, new: str) -> str:
    """Where a new page is: from the path on when it is on the same site."""
    a, b = urlsplit(old), urlsplit(new)
    return _from_path(b) if _same_site(a, b) else new


def _same_site(a: SplitResult, b: SplitResult) -> bool:
    # file:// URLs have no host: the same scheme is the same "site" (this disk)
    return (bool(b.netloc) or b.scheme == "file") and (a.scheme, a.netloc) == (b.scheme,
                                                                              b.netloc)


def _from_path(u: SplitResult) -> str:
    return urlunsplit(("", "", u.path or "/", u.query, u.fragment))


def _folded(changes: list[Change], said: str = "") -> list[tuple[Change, str]]:
    """Each change with its line, where an element removed with its removed parent is told
    on the parent's line: `- @e8 list "Tasks" (and 6 inside)`, or for a parent without a
    name, what it held: `- @e13 listitem (with @e14 button "Archive Pay the rent")`. The
    agent needs what went away, not each piece of it (the result data keeps them all).
    Removals come in document order, so a parent's own come right after it. An element
    the result named already (`clicked @e14 (button …)`) is named by its ref alone."""
    told: list[tuple[Change, str]] = []
    groups: list[tuple[int, Change, list[Change]]] = []  # (place in told, parent, inside)
    for change in changes:
        if change.kind == "removed" and change.inside and groups:
            groups[-1][2].append(change)
            continue
        if change.kind == "removed":
            groups.append((len(told), change, []))
        told.append((change, change.line))
    for at, parent, inside in groups:
        if not inside:
            continue
        named = next((c for c in inside if c.name), None) if not parent.name else None
        more = len(inside) - (1 if named else 0)
        known = named is not None and re.search(rf"@{named.ref}\b", said)
        says = [f"with {f'@{named.ref}' if known else named.line[2:]}"] if named else []
        if more:
            says.append(f"{'and ' if named or parent.name else ''}{more} "
                        f"{'more ' if named else ''}inside")
        told[at] = (parent, f"{parent.line} ({' '.join(says)})")
    return told


def _news(change: Change) -> int:
    """How little the agent could have foreseen a change (a cut diff keeps the lowest):
    words that appeared, then other changes of state, then what went away (an element
    removed with its parent last of all)."""
    if change.kind == "added" and not (change.name or change.text):
        return 2  # a nameless wrapper that appeared says nothing by itself
    if change.kind == "added" or change.page or (change.kind == "changed" and
                                  {"text", "name"} & set(change.fields)):
        return 0
    if change.kind == "changed":
        return 1
    return 3 if change.inside else 2
