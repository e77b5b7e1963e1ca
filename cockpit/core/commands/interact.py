"""interact: click, dblclick, fill, type, press, hover, focus, check, uncheck, select,
upload, drag, scroll."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Awaitable, Callable

from playwright.async_api import Error as PlaywrightError

from ..page import quick_click, quick_fill
from ..base.errors import CommandError, UsageError
from ..base.paths import base, given_path
from ..language.registry import FILE, KEY, TARGET, TEXT, Arg, Flag, command
from ..base.result import Outcome
from ..language.parser import as_ref
from ..page.targets import ref_selector
from ..live.input import wheel
from ..page.translate import first_line

if TYPE_CHECKING:
    from playwright.async_api import Locator

    from ..model.snapshot import Node
    from ..session.session import CommandContext
    from ..language.parser import Invocation

T = Arg("target", "@ref from `snapshot`, or a CSS selector", kind=TARGET)


@command("click", "interact", "Click an element.", args=(T,), mutates=True, captured=True,
         flags=(Flag("--right", help="right-click"),
                Flag("--modifiers", help="keys held, e.g. Shift or Control+Shift",
                     value="KEYS")),
         examples=("click @e6", "click 'button[type=submit]'"), tool="browser_click")
async def click(ctx: CommandContext, a: Invocation) -> Outcome:
    mods = a.modifiers.split("+") if a.modifiers else None
    button: quick_click.Button = "right" if a.right else "left"
    tab = ctx.needs_tab()
    selector = None if mods else ref_selector(tab, a.target)
    quick = None
    if selector is not None and tab.snapshot is not None:
        quick = await quick_click.click_ref(ctx.page, selector, tab.snapshot.doc, button,
                                            ctx.watch)
    if not quick:  # a selector, or a ref the page did not take at once: checked, then clicked
        await ctx.on(a.target, lambda loc: quick_click.click(
            ctx.page, loc, timeout=ctx.timeout, button=button, modifiers=mods,
            quick=quick is None, watch=ctx.watch))
    return Outcome(f"clicked {ctx.named(a.target)}")


@command("dblclick", "interact", "Double-click an element.", args=(T,), mutates=True,
         captured=True)
async def dblclick(ctx: CommandContext, a: Invocation) -> Outcome:
    await ctx.on(a.target, lambda loc: loc.dblclick(timeout=ctx.timeout))
    return Outcome(f"double-clicked {ctx.named(a.target)}")


@command("fill", "interact", "Replace the text of a field (input, textarea, contenteditable).",
         args=(T, Arg("text", "the new value; quote it if it has spaces")), mutates=True,
         examples=('fill @e4 "jane@example.com"', "fill '#q' cockpit"), typed_text="text",
         tool="browser_fill", captured=True)
async def fill(ctx: CommandContext, a: Invocation) -> Outcome:
    done = f"filled {ctx.named(a.target)}"
    tab = ctx.needs_tab()
    selector = ref_selector(tab, a.target)
    field = None
    if selector is not None and tab.snapshot is not None:
        field = await quick_fill.select_ref(ctx.page, selector, tab.snapshot.doc)
    if field is None:  # a selector, or a field the page did not take at once: checked
        keyed: list[bool] = []

        async def by_locator(locator: Locator) -> None:
            keyed.append(await _fill(locator, a.text, ctx.timeout))
        outcome = await _into(ctx, a.target, by_locator, done, a.text)
        if any(keyed):
            outcome.data["select_all"] = True
        return outcome
    secret = {"secret": True} if field["password"] else {}
    if not secret and selector is not None and _holds_secret(ctx, a.text):
        await _hide_text(ctx, ctx.page.eval_on_selector(selector, HIDE_TEXT_JS))
    try:
        await quick_fill.insert(ctx.page, a.text, select_all=field["keys"])
    except PlaywrightError as exc:
        raise CommandError(f"{ctx.describe(a.target)}: {first_line(exc)}", data=secret) from None
    # `select_all`: the export selects with the keys too (a code editor's fill)
    return Outcome(done, {**secret, **({"select_all": True} if field["keys"] else {})})


# A textarea or an editing host is first selected with the keyboard: a code editor's own
# select-all (its input textarea holds none of its text; see quick_fill's docstring).
SELECTED_BY_KEYS_JS = "e => e.localName === 'textarea' || (e.isContentEditable && " \
    "!(e.parentElement && e.parentElement.isContentEditable))"


async def _fill(locator: Locator, text: str, timeout: float) -> bool:
    """Playwright's fill, after the keyboard's select-all where that is what replaces
    the text (SELECTED_BY_KEYS_JS); says whether it pressed it."""
    try:
        by_keys = bool(await locator.evaluate(SELECTED_BY_KEYS_JS, timeout=min(timeout, 1000)))
    except PlaywrightError:  # not there yet: `fill` waits for it and says what is wrong
        by_keys = False
    if by_keys:
        await locator.press("ControlOrMeta+A", timeout=timeout)
    await locator.fill(text, timeout=timeout)
    return by_keys


# A password field's value must never reach a recording: the step says so in its data,
# also when the typing fails (the recorder masks the value it finds in the command).
IS_PASSWORD_JS = "e => e.type === 'password' || /password/i.test(e.autocomplete || '')"
log = logging.getLogger("cockpit")

# A --secret typed into an ordinary field would show in every picture of the page (a
# video, a screenshot, the live view): that field draws its text as discs from then on,
# as a password field does (its value is unchanged). Set before the typing, so no frame
# shows it; nothing of the secret is given to the page.
HIDE_TEXT_JS = "e => e.style.setProperty('-webkit-text-security', 'disc', 'important')"


def _holds_secret(ctx: CommandContext, text: str) -> bool:
    """Whether the text typed holds a --secret value (`$NAME` is expanded by now)."""
    return any(value in text for value in ctx.session.secrets.values.values())


async def _hide_text(ctx: CommandContext, hiding: Awaitable[Any]) -> None:
    try:
        await hiding
    except PlaywrightError as exc:  # gone or busy: the typing itself reports what is wrong
        log.debug("a field's text could not be hidden: %s", exc)


async def _into(ctx: CommandContext, target: str, action: Callable[[Locator], Awaitable[None]],
                done: str, typed: str | None = None) -> Outcome:
    locator = await ctx.locate(target)  # checked once, for both calls below
    secret = await _is_password(ctx, target, locator)
    if not secret and typed is not None and _holds_secret(ctx, typed):
        await _hide_text(ctx, locator.evaluate(HIDE_TEXT_JS, timeout=1000))
    try:
        await ctx.on(target, action, locator)
    except CommandError as exc:
        if secret:
            exc.data = {**exc.data, "secret": True}
        raise
    return Outcome(done, {"secret": True} if secret else {})


async def _is_password(ctx: CommandContext, target: str, locator: Locator) -> bool:
    selector = ref_selector(ctx.needs_tab(), target)
    if selector is not None:  # a ref: one round trip (a locator's evaluate is three)
        try:
            return bool(await ctx.page.eval_on_selector(selector, IS_PASSWORD_JS,
                                                        strict=True))
        except PlaywrightError:
            pass  # asked again below, as for a selector
    try:
        return bool(await locator.evaluate(IS_PASSWORD_JS, timeout=1000))
    except PlaywrightError:  # gone or busy: the fill itself reports what went wrong
        return False


@command("type", "interact", "Type text key by key into an element (fires key events).",
         args=(T, Arg("text", "what to type")), mutates=True,
         flags=(Flag("--delay", help="milliseconds between keys", value="MS", kind="int"),),
         details="Unlike fill, type appends and triggers keydown/keyup for every character.",
         examples=('type @e9 "hello"',), typed_text="text", tool="browser_type")
async def type_(ctx: CommandContext, a: Invocation) -> Outcome:
    return await _into(ctx, a.target, lambda loc: loc.press_sequentially(
        a.text, delay=a.delay or 0, timeout=ctx.timeout),
        f"typed {len(a.text)} characters into {ctx.named(a.target)}", a.text)


@command("press", "interact", "Press a key or chord, on an element or the focused one.",
         args=(Arg("key", "Enter, Tab, Escape, ArrowDown, Control+a ...", kind=KEY),
               Arg("target", "where to press it (default: the focused element)", kind=TARGET,
                   optional=True)),
         mutates=True, examples=("press Enter", "press Control+a @e4"), tool="browser_press",
         captured=True, relays_input=True)
async def press(ctx: CommandContext, a: Invocation) -> Outcome:
    try:
        if a.target:
            await ctx.on(a.target, lambda loc: loc.press(a.key, timeout=ctx.timeout))
        else:
            await ctx.page.keyboard.press(a.key)
    except Exception as exc:
        if "Unknown key" in str(exc):
            # Playwright pressed the chord's modifiers before it met the unknown key.
            for modifier in ("Control", "Shift", "Alt", "Meta"):
                await ctx.page.keyboard.up(modifier)
            raise UsageError(f"unknown key '{a.key}': use names like Enter, Tab, Escape, "
                             "ArrowDown, a, Control+a") from None
        raise
    return Outcome(f"pressed {a.key}" + (f" on {ctx.named(a.target)}" if a.target else ""))


@command("hover", "interact", "Move the mouse over an element.", args=(T,), mutates=True)
async def hover(ctx: CommandContext, a: Invocation) -> Outcome:
    await ctx.on(a.target, lambda loc: loc.hover(timeout=ctx.timeout))
    return Outcome(f"hovering {ctx.named(a.target)}")


@command("focus", "interact", "Give an element the keyboard focus.", args=(T,), mutates=True)
async def focus(ctx: CommandContext, a: Invocation) -> Outcome:
    await ctx.on(a.target, lambda loc: loc.focus(timeout=ctx.timeout))
    return Outcome(f"focused {ctx.named(a.target)}")


@command("check", "interact", "Tick a checkbox or choose a radio button.", args=(T,),
         mutates=True, captured=True)
async def check(ctx: CommandContext, a: Invocation) -> Outcome:
    await _set_checked(ctx, a.target, True)
    return Outcome(f"checked {ctx.named(a.target)}")


@command("uncheck", "interact", "Untick a checkbox.", args=(T,), mutates=True,
         captured=True)
async def uncheck(ctx: CommandContext, a: Invocation) -> Outcome:
    await _set_checked(ctx, a.target, False)
    return Outcome(f"unchecked {ctx.named(a.target)}")


# Custom-styled checkboxes and radios: the native box is hidden under (or clipped out of
# sight beside) a styled element inside its own label, which is what the user sees and
# clicks. Where to click then: the box's place when its label covers it there, else the
# middle of a label (not on a link or another control in it); null: not such a box.
LABEL_POINT_JS = """(el, want) => {
  if (!(el instanceof HTMLInputElement) || !['checkbox', 'radio'].includes(el.type)
      || el.disabled || el.checked === want || !el.labels || !el.labels.length) return null;
  const labels = [...el.labels];
  const r0 = el.getBoundingClientRect();
  if (r0.bottom < 0 || r0.top > innerHeight || r0.right < 0 || r0.left > innerWidth)
    (r0.width > 0 ? el : labels[0]).scrollIntoView({block: 'center', inline: 'nearest'});
  const ours = (x, y) => {
    const hit = document.elementFromPoint(x, y);
    if (!hit || hit === el || !labels.some(l => l.contains(hit))) return false;
    const control = hit.closest('a, button, select, textarea, input');
    return !control || control === el;  // not a link or another control in the label
  };
  const r = el.getBoundingClientRect();
  if (r.width > 0 && r.height > 0) {
    const x = r.left + r.width / 2, y = r.top + r.height / 2;
    if (document.elementFromPoint(x, y) === el) return null;  // not covered: as usual
    if (ours(x, y)) return {x, y};
  }
  for (const label of labels) {
    const b = label.getBoundingClientRect();
    const x = b.left + b.width / 2, y = b.top + b.height / 2;
    if (b.width > 0 && b.height > 0 && ours(x, y)) return {x, y};
  }
  return null;
}"""


async def _set_checked(ctx: CommandContext, target: str, want: bool) -> None:
    """Check or uncheck like the user does: a box its own label covers (custom-styled) is
    clicked where the user sees it, at once; any other through Playwright's checks."""
    locator = await ctx.locate(target)
    node = _node(ctx, target)
    point: dict[str, float] | None = None  # JSON from the page: where the label is
    if node is None or not node.in_frame:  # the mouse takes the page's coordinates
        try:
            point = await locator.evaluate(LABEL_POINT_JS, want, timeout=1000)
        except PlaywrightError as exc:  # busy or gone: Playwright's own way says which
            logging.getLogger("cockpit").debug("label of %s not found: %s", target, exc)
    if point is not None:
        await ctx.page.mouse.click(point["x"], point["y"])
        if await locator.evaluate("el => el.checked", timeout=1000) == want:
            return
        raise CommandError(f"{ctx.describe(target)}: clicking its label did not "
                           f"{'check' if want else 'uncheck'} it: look at what the page "
                           "shows there (`screenshot`), or click what toggles it")
    await ctx.on(target, lambda loc: loc.set_checked(want, timeout=ctx.timeout), locator)


def _node(ctx: CommandContext, target: str) -> Node | None:
    """The target's snapshot node, when it is a ref."""
    snapshot = ctx.needs_tab().snapshot
    ref = as_ref(target)
    return snapshot.refs.get(snapshot.live(ref)) if ref and snapshot is not None else None


# Options by value, or by label without regard to case, as people name them: each as
# [value, label, whether it was named by its value].
MATCH_OPTIONS_JS = """(el, wanted) => el.tagName !== 'SELECT' ? null : [...el.options]
  .filter(o => wanted.some(w => w === o.value
                           || w.toLowerCase() === o.label.trim().toLowerCase()))
  .map(o => [o.value, o.label.trim(),
             !wanted.some(w => w.toLowerCase() === o.label.trim().toLowerCase())])"""


@command("select", "interact", "Choose option(s) of a <select> by value or label.",
         args=(T, Arg("options", "option values or labels", variadic=True)), mutates=True,
         examples=("select @e8 Green", 'select "#size" S M'), tool="browser_select",
         captured=True)
async def select(ctx: CommandContext, a: Invocation) -> Outcome:
    async def choose(loc: Locator) -> list[list[Any]]:
        # JSON from the page: [value, label, whether it was named by its value] each
        found: list[list[Any]] | None = await loc.evaluate(MATCH_OPTIONS_JS, a.options,
                                                            timeout=ctx.timeout)
        if found is None:
            raise CommandError(f"{ctx.describe(a.target)} is not a <select>: click it and "
                               "pick the option instead")
        if len(found) < len(a.options):
            raise CommandError(f"{ctx.describe(a.target)} has no option {', '.join(a.options)}"
                               ": `snapshot -s` on it lists the options")
        chosen = set(await loc.select_option([v for v, _, _ in found], timeout=ctx.timeout))
        return [option for option in found if option[0] in chosen]
    options = await ctx.on(a.target, choose)
    # what the user sees, the label; the value too when the agent named the option by it
    # and it says something else (`Garden (value 2)`)
    said = [label + (f" (value {value})" if by_value and value.casefold() != label.casefold()
                     else "")
            for value, label, by_value in options]
    return Outcome(f"selected {', '.join(said)} in {ctx.named(a.target)}",
                   {"selected": [value for value, _, _ in options],
                    "labels": [label for _, label, _ in options]})


@command("upload", "interact", "Attach files to a file input (or to an open file chooser).",
         args=(Arg("target", "the file input, or the button that opens the chooser; omit it "
                   "to answer an open file chooser", kind=TARGET),
               Arg("files", "paths of the files", kind=FILE, variadic=True, optional=True)),
         mutates=True, examples=("upload @e12 report.pdf", "upload ./a.png ./b.png"))
async def upload(ctx: CommandContext, a: Invocation) -> Outcome:
    tab = ctx.needs_tab()
    words: list[str] = [a.target, *a.files]
    chooser = tab.file_chooser
    target = None if chooser is not None and given_path(words[0]).exists() else words.pop(0)
    if not words:
        raise UsageError("upload needs at least one file: upload TARGET FILE...")
    paths = [given_path(w) for w in words]
    missing = [str(p) for p in paths if not p.is_file()]
    if missing:
        raise UsageError(f"no such file: {', '.join(missing)} (paths are relative to "
                         f"{base()})")
    if target is None:
        assert chooser is not None  # the first word is a file only when a chooser is open
        await chooser.set_files(paths)
        tab.file_chooser = None
        where = "the open file chooser"
    else:
        async def attach(loc: Locator) -> None:
            is_input = await loc.evaluate("el => el.tagName === 'INPUT' && el.type === 'file'")
            if is_input:
                return await loc.set_input_files(paths, timeout=ctx.timeout)
            async with ctx.page.expect_file_chooser(timeout=ctx.timeout) as info:
                await loc.click(timeout=ctx.timeout)
            await (await info.value).set_files(paths)
            tab.file_chooser = None
        await ctx.on(target, attach)
        where = ctx.describe(target)
    names = ", ".join(p.name for p in paths)
    return Outcome(f"attached {names} to {where}", {"files": [str(p) for p in paths]})


@command("drag", "interact", "Drag one element onto another.",
         args=(Arg("source", "what to drag", kind=TARGET),
               Arg("destination", "where to drop it", kind=TARGET)), mutates=True,
         examples=("drag @e4 @e9",), captured=True)
async def drag(ctx: CommandContext, a: Invocation) -> Outcome:
    destination = await ctx.locate(a.destination)
    await ctx.on(a.source, lambda loc: loc.drag_to(destination, timeout=ctx.timeout))
    return Outcome(f"dragged {ctx.named(a.source)} onto {ctx.named(a.destination)}")


@command("scroll", "interact", "Scroll the page up or down, or scroll an element into view.",
         args=(Arg("where", "up, down, top, bottom, or a target to bring into view",
                   kind=TEXT, optional=True),),
         flags=(Flag("--by", help="pixels for up/down (default: most of a screen)",
                     value="PX", kind="int"),),
         mutates=True, examples=("scroll down", "scroll @e40", "scroll up --by 200"))
async def scroll(ctx: CommandContext, a: Invocation) -> Outcome:
    where = (a.where or "down").lower()
    if where in ("up", "down"):
        amount = a.by or int((ctx.page.viewport_size or {"height": 800})["height"] * 0.8)
        await wheel(ctx.page, 0, amount if where == "down" else -amount)
    elif where in ("top", "bottom"):
        y = "0" if where == "top" else "document.documentElement.scrollHeight"
        await ctx.page.evaluate(f"window.scrollTo(0, {y})")
    else:
        await ctx.on(a.where, lambda loc: loc.scroll_into_view_if_needed(timeout=ctx.timeout))
        return Outcome(f"scrolled {ctx.named(a.where)} into view")
    y = await ctx.page.evaluate("Math.round(window.scrollY)")
    return Outcome(f"scrolled {where}, now at y={y}", {"scroll_y": y})

