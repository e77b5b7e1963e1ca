"""Network: route, unroute, routes, request, har (core/network/)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..base.errors import CommandError, UsageError
from ..network.har import HarRecorder
from ..network.requests import as_text, detail
from ..network.routes import RouteRule, header_pairs, matcher
from ..base.paths import given_path
from ..language.parser import excerpt
from ..language.registry import FILE, INT, Arg, Flag, command
from ..base.result import Outcome

if TYPE_CHECKING:
    from ..language.parser import Invocation
    from ..session.session import CommandContext

PATTERN_HELP = "a URL glob (`**/api/*`) or a /regular expression/"


@command("route", "network", "Answer matching requests yourself: mock, change or fail them.",
         args=(Arg("pattern", PATTERN_HELP),),
         flags=(Flag("--status", help="the HTTP status answered (default 200)", value="N",
                     kind=INT),
                Flag("--body", help="the body answered", value="TEXT"),
                Flag("--file", help="answer with this file's bytes", value="F", kind=FILE),
                Flag("--header", help="a response header (repeatable)", value='"K: V"',
                     repeat=True),
                Flag("--content-type", help="the Content-Type (default: JSON for a JSON "
                     "body)", value="T"),
                Flag("--abort", help="fail the request as a network error"),
                Flag("--delay", help="answer this many milliseconds later", value="MS",
                     kind=INT),
                Flag("--times", help="only the next N matching requests", value="N",
                     kind=INT)),
         details=("PATTERN is Playwright's URL glob (`**` any characters, `*` any but `/`) "
                  "or a /regular expression/. "
                  "Every tab, now and later, and a relaunched browser (handoff) keep it. "
                  "Without --status, --body, --file or --content-type the server still "
                  "answers: --delay slows it and --header adds headers to its answer. "
                  "A newer route over the same URLs wins."),
         examples=('route "**/api/users" --body \'[{"name": "Ada"}]\'',
                   "route **/*.png --abort", "route /\\/api\\/.*/ --status 500 --times 1",
                   "route **/api/slow --delay 3000"),
         tool="browser_route")
async def route(ctx: CommandContext, a: Invocation) -> Outcome:
    rule = RouteRule(a.pattern, status=a.status, body=a.body,
                     file=str(given_path(a.file)) if a.file else None,
                     headers=header_pairs(a.header), content_type=a.content_type,
                     abort=bool(a.abort), delay_ms=a.delay or 0, times=a.times)
    context = ctx.session.browser_context()
    await context.route(matcher(rule.pattern), rule.handler())
    ctx.session.network.routes.append(rule)
    return Outcome(f"route {rule.describe()}", {"route": rule.to_json()})


@command("unroute", "network", "Remove the routes of a pattern, or every route.",
         args=(Arg("pattern", "the pattern as `route` was given it (default: every route)",
                   optional=True),),
         examples=("unroute **/api/users", "unroute"))
async def unroute(ctx: CommandContext, a: Invocation) -> Outcome:
    state = ctx.session.network
    gone = [r for r in state.routes if a.pattern in (None, r.pattern)]
    if not gone:
        if a.pattern is None:
            return Outcome("no routes to remove", {"removed": 0})
        known = ", ".join(r.pattern for r in state.routes) or "none"
        raise UsageError(f"no route for {excerpt(a.pattern)!r} (routes: {known}); `routes` "
                         "lists them")
    context = ctx.session.browser_context()
    for rule in gone:
        await rule.remove_from(context)
        state.routes.remove(rule)
    return Outcome(f"removed {len(gone)} route(s)", {"removed": len(gone)})


@command("routes", "network", "List the routes and how many requests each answered.",
         read_only=True, modal_safe=True, needs_tab=False)
async def routes(ctx: CommandContext, a: Invocation) -> Outcome:
    state = ctx.session.network
    lines = [f"{n}. {r.describe()}" for n, r in enumerate(state.routes, 1)]
    if state.har_replay:
        lines.append(f"HAR {state.har_replay} answers what it holds ({state.har_missing} "
                     "for the rest)")
    return Outcome("\n".join(lines) or "(no routes)",
                   {"routes": [r.to_json() for r in state.routes],
                    "har": str(state.har_replay) if state.har_replay else None})


@command("request", "network", "Show one request of `network` in full: headers, body, "
         "timing (secrets masked).",
         args=(Arg("n", "its number in `network` (#N)", kind=INT),),
         details=("Cookies, Authorization headers and credential-like query values and "
                  "form fields show as ***; bearer tokens and JWTs in bodies are masked."),
         examples=("request 12",), read_only=True, modal_safe=True, needs_tab=False)
async def request(ctx: CommandContext, a: Invocation) -> Outcome:
    entry = next((e for e in ctx.session.buffers.network if e.id == a.n), None)
    if entry is None:
        raise CommandError(f"there is no request #{a.n} (the list keeps the last 1000): "
                           "`network` numbers them")
    found = await detail(entry)
    return Outcome(as_text(found), {"request": found})


@command("har", "network", "Record the session's requests to a HAR file, or stop and "
         "write it.",
         args=(Arg("action", "start or stop", choices=("start", "stop")),
               Arg("file", "the .har file to write (for start)", kind=FILE, optional=True)),
         flags=(Flag("--url-filter", help="only URLs that match (glob, /regex/ or text)",
                     value="P"),),
         details=("Replay it with `cockpit --har FILE` (the session answers from it; "
                  "--har-missing abort fails what it lacks). Cookie, Set-Cookie and "
                  "Authorization headers are written as ***."),
         examples=("har start site.har", "har start api.har --url-filter **/api/**",
                   "har stop"))
async def har(ctx: CommandContext, a: Invocation) -> Outcome:
    state = ctx.session.network
    if a.action == "start":
        if not a.file:
            raise UsageError("har start needs a FILE: har start site.har")
        if state.recorder is not None:
            raise UsageError(f"already {state.recorder.describe()}: `har stop` first")
        path = given_path(a.file)
        if path.is_dir():
            raise UsageError(f"{path} is a folder: give a file name, like {path / 'site.har'}")
        recorder = HarRecorder(path, a.url_filter, ctx.session.redactor.files)
        recorder.follow(ctx.session.browser_context())
        state.recorder = recorder
        return Outcome(f"recording requests to {path} until `har stop`", {"path": str(path)})
    if a.file or a.url_filter:
        raise UsageError("har stop takes no FILE or --url-filter")
    recorder, state.recorder = state.recorder, None
    if recorder is None:
        raise UsageError("no HAR is being recorded: `har start FILE` first")
    try:
        count = await recorder.stop()
    except OSError as exc:
        raise CommandError(f"could not write {recorder.path}: {exc.strerror or exc}") from None
    return Outcome(f"wrote {count} requests to {recorder.path}",
                   {"path": str(recorder.path), "entries": count})
