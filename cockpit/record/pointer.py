"""`mouse` steps in replay and export: a point is taken on the element it was recorded on
(found again by role, name and place among equals), at the same offset from its corner,
so a page laid out differently still gets the click where it means it; with no such
element, at the recorded viewport coordinates."""

from __future__ import annotations

import shlex
from typing import Any, Callable

from ..core import DRAG_STEPS, CommandError, Invocation, RefInfo, Registry, as_ref, parse
from .dialects import PYTHON, Python
from .export_steps import wheel_call

PLACED = ("move", "click", "drag", "down", "up")  # the actions whose numbers are points


def _mouse(line: str, registry: Registry) -> Invocation | None:
    try:
        inv = parse(line, registry)
    except CommandError:
        return None
    return inv if inv.spec.name == "mouse" else None


def _flags(inv: Invocation) -> list[str]:
    words = []
    for name in ("button", "count", "steps"):
        if inv.params.get(name) is not None:
            words += [f"--{name}", str(inv.params[name])]
    return words


def find(element: dict[str, Any], refs: list[RefInfo]) -> str | None:
    """The ref that has the recorded element's role and name, at its place among equals."""
    label = element.get("label") or element.get("name") or ""
    same = [r for r, role, name, _ in refs if role == element.get("role") and name == label]
    nth = int(element.get("nth") or 0)
    return same[nth] if nth < len(same) else None


def replayed(line: str, under: Any, refs: list[RefInfo],
             registry: Registry) -> tuple[str, list[str]]:
    """The `mouse` line to replay: its point moved onto the recorded element where that
    is now (`--in @ref` and the offset); else as recorded, with a note saying so."""
    inv = _mouse(line, registry)
    if inv is None or inv.action not in PLACED or not inv.numbers or \
            inv.params.get("in") is not None or \
            not isinstance(under, list) or not under or not isinstance(under[0], dict):
        return line, []
    element = under[0]
    ref = find(element, refs)
    said = f'{element.get("role")} "{element.get("label") or element.get("name") or ""}"'
    if ref is None:
        return line, [f"the {said} it was recorded on was not found: at the recorded "
                      "coordinates"]
    x, y, *rest = (float(n) for n in inv.numbers)
    dx, dy = float(element["dx"]), float(element["dy"])
    numbers = [dx, dy] + ([dx + rest[0] - x, dy + rest[1] - y] if rest else [])
    words = ["mouse", inv.action, *(f"{n:g}" for n in numbers), *_flags(inv), "--in",
             f"@{ref}"]
    return " ".join(shlex.quote(w) for w in words), []


def exported(line: str, under: Any, registry: Registry,
             locator: Callable[[str, dict[str, dict]], str],
             targets: dict[str, dict], d: Python = PYTHON) -> list[str] | None:
    """A `mouse` step as `page.mouse.*` calls in the dialect `d` (None: not a mouse step).
    A point recorded on an element is taken from that element's box where it is when the
    test runs."""
    inv = _mouse(line, registry)
    if inv is None:
        return None
    action = inv.action
    numbers = [float(n) for n in inv.numbers or []]
    button = inv.params.get("button")
    pressed = {"button": button.lower()} if button and button.lower() != "left" else {}
    out: list[str] = []
    points = [f"{n:g}" for n in numbers]
    boxed = False
    if action in PLACED and numbers:
        within = inv.params.get("in")
        element = under[0] if isinstance(under, list) and under and \
            isinstance(under[0], dict) else None
        offsets = None
        if within is not None:
            out.append(_box(locator(within, targets), d))
            offsets = numbers
        elif element is not None and as_ref("@" + str(element.get("ref"))) and (
                element.get("name") or element.get("label")):  # a nameless one: by place
            ref = str(element["ref"])
            out.append(_box(locator("@" + ref, {ref: element}), d))
            dx, dy = float(element["dx"]), float(element["dy"])
            offsets = [dx, dy] + ([dx + numbers[2] - numbers[0], dy + numbers[3] - numbers[1]]
                                  if action == "drag" else [])
        if offsets is not None:
            boxed = True
            out.append(d.do("assert box is not None, 'the element it was recorded on is "
                            "not shown'") if d is PYTHON else
                       "if (!box) throw new Error('the element it was recorded on is not "
                       "shown');")
            points = [(f'box["{"xy"[i % 2]}"] + {n:g}' if d is PYTHON else
                       f'box.{"xy"[i % 2]} + {n:g}') for i, n in enumerate(offsets)]
    mouse = "page.mouse"
    steps = inv.params.get("steps")
    if action == "move":
        out.append(d.do(d.call(mouse, "move", points[0], points[1],
                               **({"steps": int(steps)} if steps else {}))))
    elif action == "click":
        extra: dict[str, Any] = dict(pressed)
        if inv.params.get("count"):
            extra["click_count"] = int(inv.params["count"])
        out.append(d.do(d.call(mouse, "click", *points[:2], **extra)))
    elif action in ("down", "up"):
        if numbers:  # moved there first; an up, as a drag, in steps
            on_way = {"steps": int(steps or DRAG_STEPS)} if action == "up" else {}
            out.append(d.do(d.call(mouse, "move", points[0], points[1], **on_way)))
        held: dict[str, Any] = dict(pressed)
        if inv.params.get("count"):
            held["click_count"] = int(inv.params["count"])
        out.append(d.do(d.call(mouse, action, **held)))
    elif action == "wheel":
        out.append(wheel_call(d, points[0], points[1]))  # and its scroll (export_steps)
    else:  # drag: as the command does it, a move with steps between down and up
        out += [d.do(d.call(mouse, "move", points[0], points[1])),
                d.do(d.call(mouse, "down")),
                d.do(d.call(mouse, "move", points[2], points[3],
                            steps=int(inv.params.get("steps") or DRAG_STEPS))),
                d.do(d.call(mouse, "up"))]
    if boxed and d is not PYTHON:  # its own block: each step's `box` is its own const
        out = ["{", *(d.indent + line for line in out), "}"]
    return out


def _box(locator: str, d: Python) -> str:
    """The element's box where it is now, as `box`."""
    if d is PYTHON:
        return f"box = {locator}.bounding_box()"
    return f"const box = await {locator}.boundingBox();"
