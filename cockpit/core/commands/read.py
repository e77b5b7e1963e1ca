"""read: snapshot, text, html, links, forms."""

from __future__ import annotations

from typing import TYPE_CHECKING, Awaitable, Callable
from urllib.parse import urljoin

from playwright.async_api import Error as PlaywrightError

from ..page.diff import diff
from ..base.errors import CommandError, UsageError
from ..language.registry import INT, TARGET, Arg, Flag, command
from ..page.render import View, render
from ..base.result import Outcome
from ..model.snapshot import Snapshot
from ..language.parser import as_ref

if TYPE_CHECKING:
    from playwright.async_api import Locator

    from ..page.tab import Tab
    from ..session.session import CommandContext
    from ..language.parser import Invocation

TEXT_LIMIT = 200_000  # characters of `text`/`html` output before it is cut (data keeps size)

# Elements that act on clicks but that the accessibility tree does not call interactive.
CLICKABLE_JS = """(els) => els.map((el, i) => {
  const native = el.matches('a[href],button,input,select,textarea,summary,[contenteditable]');
  const role = el.getAttribute('role');
  return native || (role && role !== 'generic' && role !== 'presentation') ? -1 : i;
}).filter(i => i >= 0).slice(0, 100)"""
CLICKABLE_SELECTOR = "[onclick], [tabindex]:not([tabindex='-1'])"


async def _mark_clickable(tab: Tab) -> set[str]:
    """Refs of onclick/tabindex elements, found by snapshotting each such element alone."""
    candidates = tab.page.locator(CLICKABLE_SELECTOR)
    indices: list[int] = await candidates.evaluate_all(CLICKABLE_JS)  # JSON from the page
    refs: set[str] = set()
    for i in indices:
        try:
            text = await candidates.nth(i).aria_snapshot(mode="ai", depth=1, timeout=1000)
        except PlaywrightError:
            continue  # gone or hidden meanwhile: not clickable now
        first = Snapshot.from_text(text, tab.names)
        if first.roots and first.roots[0].ref:
            refs.add(first.roots[0].ref)
    return refs


async def _scope_ref(ctx: CommandContext, scope: str) -> str | None:
    if ref := as_ref(scope):
        return ref
    locator = await ctx.one(scope)
    text = await locator.aria_snapshot(mode="ai")
    roots = Snapshot.from_text(text, ctx.needs_tab().names).roots
    if not roots or not roots[0].ref:
        raise CommandError(f"`{scope}` has nothing in the accessibility tree (hidden, or only "
                           "text): scope to its container, or use `text {scope}`")
    return roots[0].ref


@command("snapshot", "read", "Show the page's accessibility tree with a ref for each element.",
         flags=(Flag("--interactive", "-i", "only interactive elements (and named headings)"),
                Flag("--compact", "-c", "drop unnamed structure with nothing named below"),
                Flag("--depth", "-d", "show N levels", value="N", kind=INT),
                Flag("--scope", "-s", "only the part under a selector or @ref", value="SEL"),
                Flag("--cursor", "-C", "also elements that only look clickable (cursor: "
                                        "pointer, onclick, tabindex)"),
                Flag("--diff", "-D", "show what changed since this tab's previous snapshot"),
                Flag("--urls", "-u", "with -i, show each link's target (`-> /path`)")),
         aliases=("snap",),
         details="Lines of the full tree read `- role \"name\" [state] [ref=eN]: value`, "
                 "as Playwright writes them; -i lines are flat, ref first: `@eN role "
                 "\"name\" [state]: value`. Use the refs as targets (@e5). Refs stay the "
                 "same while an element lives; a ref from an older page fails at once.",
         examples=("snapshot -i", "snapshot -i -u", "snapshot -c -d 4", "snapshot -s '#inbox'",
                   "snapshot -D"),
         checks_needs=True, read_only=True, tool="browser_snapshot")
async def snapshot(ctx: CommandContext, a: Invocation) -> Outcome:
    if a.depth is not None and a.depth < 1:
        raise UsageError("snapshot -d needs a depth of 1 or more")
    tab = ctx.needs_tab()
    scope = await _scope_ref(ctx, a.scope) if a.scope else None
    clickable = await _mark_clickable(tab) if a.cursor else set()
    before = tab.snapshot
    last = tab.last_diff  # the last step's, while its snapshot is the tab's (not after this)
    snap = await tab.take_snapshot()
    for ref in clickable:
        if ref in snap.refs and snap.refs[ref].attr("cursor") != "pointer":
            snap.refs[ref].extra.append("clickable")
    if scope and scope not in snap.refs:
        raise CommandError(f"@{scope} is not on the page any more; take `snapshot` without -s")
    data = {"url": snap.url, "title": snap.title, "refs": len(snap.refs)}
    if a.diff:
        d = diff(before, snap)
        if d.empty and before is not None and last is not None and last[0] is before:
            # nothing moved since the last step: its whole diff (its result cut it short)
            data["diff"] = last[1].to_json()
            return Outcome("No change since the last step, which changed:\n"
                           + last[1].text(), data)
        data["diff"] = d.to_json()
        return Outcome(d.text() if before else "no earlier snapshot of this tab: "
                       "this one is the base for the next `snapshot -D`", data)
    view = View(a.interactive, a.compact, a.depth, a.cursor, scope, a.urls)
    text = render(snap, view)
    return Outcome(text, data)


async def _page_or(ctx: CommandContext, target: str | None, whole: Callable[[], Awaitable[str]],
                   part: Callable[[Locator], Awaitable[str]]) -> str:
    if target is None:
        return await whole()
    locator = await ctx.one(target)
    return await part(locator)


def _cut(text: str) -> tuple[str, dict[str, int]]:
    data = {"chars": len(text)}
    if len(text) > TEXT_LIMIT:
        return text[:TEXT_LIMIT] + f"\n… cut at {TEXT_LIMIT} of {len(text)} characters", data
    return text, data


@command("text", "read", "Print the visible text of the page or of one element.",
         args=(Arg("target", "@ref or selector (default: the whole page)", kind=TARGET,
                   optional=True),),
         examples=("text", "text @e7", "text '#results'"), read_only=True)
async def text(ctx: CommandContext, a: Invocation) -> Outcome:
    body = await _page_or(ctx, a.target, lambda: ctx.page.inner_text("body"),
                          lambda loc: loc.inner_text(timeout=ctx.timeout))
    out, data = _cut(body)
    return Outcome(out, data)


@command("html", "read", "Print the HTML of the page or of one element.",
         args=(Arg("target", "@ref or selector (default: the whole page)", kind=TARGET,
                   optional=True),),
         examples=("html @e3", "html form"), read_only=True)
async def html(ctx: CommandContext, a: Invocation) -> Outcome:
    body = await _page_or(ctx, a.target, ctx.page.content,
                          lambda loc: loc.evaluate("el => el.outerHTML"))
    out, data = _cut(body)
    return Outcome(out, data)


@command("links", "read", "List the page's links with their refs and URLs.",
         flags=(Flag("--filter", "-f", "only links whose text or URL contains TEXT",
                     value="TEXT"),), read_only=True)
async def links(ctx: CommandContext, a: Invocation) -> Outcome:
    snap = await ctx.needs_tab().take_snapshot()
    rows = []
    for node in snap.walk():
        if node.role == "link" and node.ref:
            href = urljoin(snap.url, node.props.get("/url", "")) if node.props.get("/url") \
                else ""
            if a.filter and a.filter.lower() not in f"{node.label} {href}".lower():
                continue
            rows.append({"ref": node.ref, "name": node.label, "url": href})
    lines = [f"@{r['ref']} \"{r['name']}\" -> {r['url'] or '(no href)'}" for r in rows]
    return Outcome("\n".join(lines) or "(no links)", {"links": rows})


FORMS_JS = """() => {
  const label = (el) => {
    if (el.labels && el.labels.length) return el.labels[0].innerText.trim();
    return el.getAttribute('aria-label') || el.placeholder || el.name || '';
  };
  const sel = (el) => el.id ? '#' + CSS.escape(el.id)
    : el.name ? `${el.tagName.toLowerCase()}[name="${el.name}"]` : null;
  const field = (el) => ({
    tag: el.tagName.toLowerCase(), type: el.type || '', name: el.name || '', label: label(el),
    value: el.type === 'password' ? (el.value ? '••••' : '') :
           (el.type === 'checkbox' || el.type === 'radio') ? String(el.checked) :
           el.type === 'file' ? [...el.files].map(f => f.name).join(', ') : (el.value || ''),
    required: el.required, disabled: el.disabled, selector: sel(el)});
  const fields = 'input:not([type=hidden]),select,textarea,button';
  const forms = [...document.forms].map((f, i) => ({
    name: f.getAttribute('name') || f.id || `form ${i + 1}`,
    method: (f.method || 'get').toUpperCase(),
    action: f.getAttribute('action') || '', selector: f.id ? '#' + CSS.escape(f.id) : null,
    fields: [...f.querySelectorAll(fields)].map(field)}));
  const loose = [...document.querySelectorAll(fields)]
    .filter(el => !el.form && el.tagName !== 'BUTTON');
  if (loose.length) forms.push({name: '(fields outside a form)', method: '', action: '',
    selector: null, fields: loose.map(field)});
  return forms;
}"""


@command("forms", "read", "List the page's forms and their fields, values and selectors.",
         read_only=True)
async def forms(ctx: CommandContext, a: Invocation) -> Outcome:
    found = await ctx.page.evaluate(FORMS_JS)
    lines = []
    for form in found:
        how = " ".join(x for x in (form["method"], form["action"]) if x)
        lines.append(form["name"] + (f" ({how})" if how else ""))
        for f in form["fields"]:
            kind = f["type"] if f["tag"] == "input" else f["tag"]
            flags = "".join(f" [{k}]" for k in ("required", "disabled") if f[k])
            where = f" -> {f['selector']}" if f["selector"] else ""
            lines.append(f"  {kind} \"{f['label']}\" = \"{f['value']}\"{flags}{where}")
    return Outcome("\n".join(lines) or "(no forms)", {"forms": found})
