"""mouse: input at viewport coordinates (CSS pixels), for what has no element to name: a
slider's handle, a canvas, a map, an image grid; and what a person does on the live view.

Each step is recorded with the element under its point (role, name, place among equals,
and the point's offset in it), so replay finds that element again and acts at the same
place on it, and export writes `page.mouse.*` at the element's box."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, Literal, cast

from ..base.errors import CommandError, UsageError
from ..live.input import element_at, moved, position, wheel
from ..language.registry import TARGET, Arg, Flag, command
from ..base.result import Outcome

if TYPE_CHECKING:
    from ..language.parser import Invocation
    from ..session.session import CommandContext

ACTIONS = ("move", "down", "up", "click", "wheel", "drag")
# how many numbers each action takes, and what they are called in its usage
NUMBERS = {"move": ("X", "Y"), "down": (), "up": (), "click": ("X", "Y"),
           "wheel": ("DX", "DY"), "drag": ("X1", "Y1", "X2", "Y2")}
# `mouse down|up` take a point too (moved there first): a live view sends one command per
# press and per release, so the page gets the press at once (no click to wait for)
OR_POINT = ("down", "up")
PLACED = ("move", "click", "drag", "down", "up")  # the actions that may name a point
COUNTED = ("click", "down", "up")  # the actions a click count goes with
Button = Literal["left", "right", "middle"]
BUTTONS = ("left", "right", "middle")
DRAG_STEPS = 10  # pointermove events on the way: sliders follow the motion, not a jump


def usage(action: str) -> str:
    flags = {"down": " [--button B] [--count N]", "up": " [--button B] [--count N] [--steps N]",
             "click": " [--button B] [--count N]", "drag": " [--steps N]",
             "move": " [--steps N]"}.get(action, "")
    point = " [X Y]" if action in OR_POINT else ""
    return " ".join(["mouse", action, *NUMBERS[action]]) + point + flags


def _numbers(action: str, words: list[str]) -> list[float]:
    want = NUMBERS[action]
    if action in OR_POINT and len(words) == 2:
        want = ("X", "Y")
    if len(words) != len(want):
        takes = "no numbers or 2 (X Y)" if action in OR_POINT else \
            f"{len(want)} number{'' if len(want) == 1 else 's'}"
        raise UsageError(f"mouse {action} takes {takes}, got {len(words)} "
                         f"(usage: {usage(action)})")
    try:
        return [float(w) for w in words]
    except ValueError:
        raise UsageError(f"mouse {action}: {' '.join(want)} are numbers (CSS pixels), got "
                         f"{' '.join(words)} (usage: {usage(action)})") from None


def _said(n: float) -> str:
    return f"{n:g}"


@command("mouse", "interact",
         "Move, press, click, scroll or drag the mouse at viewport coordinates (CSS px).",
         args=(Arg("action", "move, down, up, click, wheel or drag", choices=ACTIONS),
               Arg("numbers", "move/click: X Y; wheel: DX DY; drag: X1 Y1 X2 Y2; "
                   "down/up: none (where the mouse is) or X Y (moved there first)",
                   variadic=True, optional=True)),
         flags=(Flag("--button", help="left (default), right or middle", value="B"),
                Flag("--count", help="clicks in a row (2: a double-click); on down and up, "
                     "the press's place in a run of clicks", value="N", kind="int"),
                Flag("--steps", help=f"mouse moves on the way: a drag's (default "
                     f"{DRAG_STEPS}), to an up's point (default {DRAG_STEPS}) or a move's "
                     "(default 1)", value="N", kind="int"),
                Flag("--in", help="X and Y are from this element's top-left corner "
                     "(replay writes it: the point follows the element)", value="TARGET",
                     kind=TARGET)),
         mutates=True, relays_input=True,
         details="Coordinates are CSS pixels of the viewport, from its top-left corner, as "
                 "`screenshot -v` shows it. Each step is recorded with the element under its "
                 "point; replay acts at the same place on that element when it finds it, "
                 "else at the coordinates. `mouse down` and `mouse up` act where the last "
                 "`mouse` command left the mouse, or at X Y (moved there first: an up "
                 "moves there in --steps, as a drag does). A double-click as a person "
                 "makes it: `mouse down X Y`, `mouse up`, `mouse down X Y --count 2`, "
                 "`mouse up --count 2`.",
         examples=("mouse click 120 340", "mouse drag 40 300 360 300",
                   "mouse wheel 0 400", "mouse click 200 90 --count 2",
                   "mouse down 60 140", "mouse up 440 140",
                   "mouse down --button right"))
async def mouse(ctx: CommandContext, a: Invocation) -> Outcome:
    action = a.action
    values = _numbers(action, list(a.numbers or []))
    given = (a.button or "left").lower()
    if given not in BUTTONS:
        raise UsageError(f"mouse: --button is left, right or middle, got '{a.button}'")
    button = cast(Button, given)  # checked just above
    pointed = bool(values) and action in OR_POINT
    if a.count is not None and (action not in COUNTED or a.count < 1):
        raise UsageError("mouse: --count goes with `mouse click`, `down` or `up` and is 1 "
                         "or more")
    if a.steps is not None and (a.steps < 1 or not (
            action in ("drag", "move") or (action == "up" and pointed))):
        raise UsageError("mouse: --steps goes with `mouse drag`, `move`, or `up X Y`, and "
                         "is 1 or more")
    if a.button and action not in ("down", "up", "click"):
        raise UsageError(f"mouse {action} takes no --button (usage: {usage(action)})")
    within = a.params.get("in")
    if within is not None:
        if action not in PLACED or (action in OR_POINT and not pointed):
            raise UsageError(f"mouse {action} takes no --in: it has no point to place")
        values = await _from_element(ctx, within, values)
    page = ctx.page
    mouse_ = page.mouse
    if action in ("move", "click", "drag") or pointed:
        points = [(values[0], values[1])] + ([(values[2], values[3])] if action == "drag"
                                             else [])
    else:
        points = [position(page)]
    # asked before acting (the action may change what is there); a drag's two at once
    under = list(await asyncio.gather(*(element_at(ctx.needs_tab(), x, y)
                                        for x, y in points)))
    if action == "move":
        await mouse_.move(*points[0], steps=a.steps or 1)
    elif action == "click":
        await mouse_.click(*points[0], button=button, click_count=a.count or 1)
    elif action == "down":
        if pointed:
            await mouse_.move(*points[0])
        await mouse_.down(button=button, click_count=a.count or 1)
    elif action == "up":
        if pointed:  # with the button held, sliders watch the motion: in steps
            await mouse_.move(*points[0], steps=a.steps or DRAG_STEPS)
        await mouse_.up(button=button, click_count=a.count or 1)
    elif action == "wheel":
        await wheel(page, values[0], values[1])  # and the scroll it starts
    else:  # drag
        await mouse_.move(*points[0])
        await mouse_.down()
        await mouse_.move(*points[1], steps=a.steps or DRAG_STEPS)
        await mouse_.up()
    if action in ("move", "click", "drag") or pointed:
        moved(page, *points[-1])
    return Outcome(_line(action, points, values, button, a.count, under),
                   {"points": [{"x": x, "y": y} for x, y in points], "under": under})


async def _from_element(ctx: CommandContext, target: str, values: list[float]) -> list[float]:
    """`--in TARGET`: the numbers as offsets from the element's top-left corner, made
    viewport coordinates by where the element is now."""
    box = await ctx.on(target, lambda loc: loc.bounding_box(timeout=ctx.timeout))
    if box is None:
        raise CommandError(f"{ctx.describe(target)} is not shown (no box to place the "
                           "point in): scroll it into view, or give viewport coordinates")
    return [v + (box["x"] if i % 2 == 0 else box["y"]) for i, v in enumerate(values)]


def _line(action: str, points: list[tuple[float, float]], values: list[float], button: str,
          count: int | None, under: list[dict[str, Any] | None]) -> str:
    def at(i: int) -> str:
        x, y = points[i]
        element = under[i]  # said when it has a name: "on main" tells nobody anything
        named = element and (element.get("name") or element.get("label"))
        what = f' on {element["role"]} "{named}"' if element and named else ""
        return f"{_said(x)},{_said(y)}{what}"
    pressed = "" if button == "left" else f" ({button} button)"
    if action == "move":
        return f"moved the mouse to {at(0)}"
    if action == "click":
        times = {1: "clicked", 2: "double-clicked"}.get(count or 1, f"clicked {count} times")
        return f"{times}{pressed} at {at(0)}"
    if action in ("down", "up"):
        nth = {None: "", 1: "", 2: " (the second click of a double-click)"}.get(
            count, f" (click {count} in a row)")
        return f"pressed{pressed} the mouse at {at(0)}{nth}" if action == "down" else \
            f"released{pressed} the mouse at {at(0)}{nth}"
    if action == "wheel":
        return f"scrolled the wheel by {_said(values[0])},{_said(values[1])} at {at(0)}"
    return f"dragged from {at(0)} to {at(1)}"


@command("live", "visual", "Follow the page live in the cockpit's Page pane and zoom "
         "(on, off; none: switch).",
         args=(Arg("state", "on or off (default: the other one)", choices=("on", "off"),
                   optional=True),),
         details="The picture then follows the page as it paints (Chromium's screencast; "
                 "periodic screenshots elsewhere), also without a command run; while the "
                 "human has control it always does. In a zoom, while the human has control "
                 "(a handoff, F10), the mouse and keys on the picture act on the page as "
                 "`mouse` and `press` commands. Outside the TUI it says who watches.",
         examples=("live", "live on"), read_only=True, needs_tab=False, never_held=True)
async def live(ctx: CommandContext, a: Invocation) -> Outcome:
    view = ctx.session.live_view
    how = f" ({view.source})" if view.source else ""
    watching = f"{view.watchers} view{'' if view.watchers == 1 else 's'} watch the page" \
        f"{how}"
    return Outcome(f"live view in the cockpit: {a.state or 'switched'}; {watching}",
                   {"live": a.state, "watchers": view.watchers, "source": view.source})
