"""Rendering a snapshot for people and models, with the `snapshot` flags applied."""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..model.snapshot import STRUCTURAL_ROLES, Node, Snapshot, scalar


@dataclass
class View:
    """How to show a snapshot: the `snapshot` command's flags."""

    interactive: bool = False  # -i
    compact: bool = False  # -c
    depth: int | None = None  # -d N
    cursor: bool = False  # -C: also elements that only look clickable
    scope: str | None = None  # -s, resolved to a ref by the caller
    urls: bool = False  # -u: with -i, each link's target (`-> /path`)


def _keep_interactive(node: Node, view: View) -> bool:
    if node.ref is None:
        return False
    if node.interactive:
        return True
    if node.role == "heading" and node.label:
        return True  # orientation: which section an element is in
    return view.cursor and (node.attr("cursor") == "pointer" or bool(node.extra))


def _is_bare_structure(node: Node) -> bool:
    return (node.role in STRUCTURAL_ROLES and not node.name and not node.value
            and not node.extra and node.attr("cursor") is None)


def _compact(nodes: list[Node]) -> list[Node]:
    """Drop unnamed wrappers, lifting their children, and wrappers with nothing below."""
    out: list[Node] = []
    for node in nodes:
        kids = _compact(node.children)
        if _is_bare_structure(node) and node.role not in ("list", "paragraph"):
            out.extend(kids)
            continue
        if _is_bare_structure(node) and not kids:
            continue
        clone = replace(node, children=kids)
        out.append(clone)
    return out


def _lines(nodes: list[Node], depth: int, limit: int | None, out: list[str]) -> None:
    for node in nodes:
        pad = "  " * depth
        cut = limit is not None and depth + 1 >= limit
        has_below = bool(node.children or node.props) and not cut
        below_value = has_below and bool(node.value)  # Playwright's form: a `text:` line
        line = replace(node, value="").line() if below_value else node.line()
        out.append(f"{pad}- {line}{':' if has_below else ''}")
        if has_below:
            for key, value in node.props.items():
                out.append(f"{pad}  - {key}: {scalar(value)}")
            if below_value:
                out.append(f"{pad}  - text: {scalar(node.value)}")
            _lines(node.children, depth + 1, limit, out)


def _hint(node: Node, view: View) -> str:
    """What a flat interactive line loses from its children: a link's URL (with -u: URLs
    were a quarter of the tokens of a documentation page), a select's choice."""
    url = node.props.get("/url") if view.urls else None
    if url and not url.startswith("#"):  # an anchor on the same page says little
        return f" -> {url}"
    if node.role in ("combobox", "listbox") and not node.value:
        chosen = [c.name for c in node.children if c.role == "option" and c.attr("selected")]
        return f": {', '.join(chosen)}" if chosen else ""
    return ""


def flat_line(node: Node, view: View) -> str:
    """One line of the flat interactive list: `@e6 button "Sign in"`, then states and
    value (`@e5 textbox "Email": jane@example.com`). The ref comes first, in the form the
    diff uses: a fifth fewer tokens than Playwright's `- button "Sign in" [ref=e6]`."""
    return f"@{node.ref} {node.line(terse=True)}{_hint(node, view)}"


def controls(snapshot: Snapshot, most: int) -> list[str] | None:
    """The lines `snapshot -i` shows, or None when there are more than `most` (a new page
    that small is listed in the action's result: the agent needs no `snapshot` call)."""
    view = View(interactive=True)
    lines: list[str] = []
    for root in snapshot.roots:
        for node in root.walk():
            if _keep_interactive(node, view):
                if len(lines) == most:
                    return None
                lines.append(flat_line(node, view))
    return lines


def render(snapshot: Snapshot, view: View) -> str:
    roots = snapshot.roots
    if view.scope:
        node = snapshot.refs.get(view.scope)
        roots = [node] if node else []
    if view.interactive:
        lines: list[str] = []
        for root in roots:
            for node in root.walk():
                if _keep_interactive(node, view):
                    lines.append(flat_line(node, view))
        return "\n".join(lines) if lines else "(no interactive elements)"
    if view.compact:
        roots = _compact(roots)
    out: list[str] = []
    _lines(roots, 0, view.depth, out)
    return "\n".join(out) if out else "(empty page)"

