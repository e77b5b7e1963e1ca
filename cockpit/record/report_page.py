"""The HTML of `cockpit report` (report.py fills it in): one page, its CSS inline, no
script and nothing fetched, so it opens offline and anywhere a browser runs."""

from __future__ import annotations

CSS = """
:root { --ok: #1a7f37; --bad: #cf222e; --warn: #9a6700; --muted: #57606a;
        --line: #d0d7de; --bg: #f6f8fa; }
* { box-sizing: border-box; }
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0;
       color: #1f2328; background: #fff; }
header { padding: 20px 28px; border-bottom: 1px solid var(--line); background: var(--bg); }
h1 { font-size: 20px; margin: 0 0 4px; }
.verdict { font-size: 17px; font-weight: 600; margin: 6px 0 14px; }
.verdict.passed { color: var(--ok); } .verdict.failed { color: var(--bad); }
dl.summary { display: grid; grid-template-columns: repeat(auto-fill, minmax(210px, 1fr));
             gap: 8px 20px; margin: 0; }
.fact dt { color: var(--muted); font-size: 12px; text-transform: uppercase; }
.fact dd { margin: 0; font-weight: 500; }
.problems { color: var(--warn); }
main { padding: 12px 28px 40px; }
ol.steps { list-style: none; padding: 0; margin: 0; }
li.step { border: 1px solid var(--line); border-left: 5px solid var(--ok);
          border-radius: 6px; margin: 12px 0; padding: 10px 14px; }
li.step.failed, li.step.expectation-failed { border-left-color: var(--bad); }
li.step.diverged { border-left-color: var(--warn); }
li.step.skipped { border-left-color: var(--line); opacity: .8; }
.head { display: flex; gap: 10px; align-items: baseline; flex-wrap: wrap; }
.n { font-weight: 700; min-width: 2.2em; }
.who { font-size: 12px; padding: 1px 7px; border-radius: 10px; background: #ddf4ff; }
.who.human { background: #fff8c5; } .who.replay { background: #eaeef2; }
code.command { font: 14px ui-monospace, SFMono-Regular, Menlo, monospace; }
.ms { color: var(--muted); font-size: 12px; margin-left: auto; }
.badge { font-size: 11px; font-weight: 700; padding: 1px 6px; border-radius: 4px; }
.badge.ok { color: var(--ok); } .badge.skipped { color: var(--muted); }
.badge.failed, .badge.expectation-failed { color: #fff; background: var(--bad); }
.badge.diverged { color: #fff; background: var(--warn); }
.where { color: var(--muted); font-size: 12px; margin: 2px 0 6px; overflow-wrap: anywhere; }
pre { font: 12.5px/1.4 ui-monospace, SFMono-Regular, Menlo, monospace; background: var(--bg);
      padding: 8px 10px; border-radius: 4px; white-space: pre-wrap; overflow-wrap: anywhere;
      margin: 6px 0; max-height: 24em; overflow: auto; }
pre.diff { border-left: 3px solid var(--line); }
.replayed { margin: 6px 0; } .replayed ul { margin: 2px 0; }
figure { margin: 8px 0 2px; }
figure img { max-width: min(520px, 100%); border: 1px solid var(--line); border-radius: 4px; }
.nopicture { color: var(--muted); font-size: 12px; }
[hidden] { display: none !important; }
"""

PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="Cockpit (cockpit report)">
<title>Cockpit report: {title}</title>
<style>""" + CSS.replace("{", "{{").replace("}", "}}") + """</style>
</head>
<body>
<header>
<h1>Cockpit report: {name}</h1>
<p class="verdict {verdict}" id="verdict">{headline}</p>
<dl class="summary" id="summary">
{summary}
</dl>
<ul class="problems"{problems_hidden}>
{problems}
</ul>
</header>
<main>
<ol class="steps" id="steps">
{steps}
</ol>
</main>
</body>
</html>
"""

STEP = """<li class="step {marks}" id="step-{index}" data-n="{n}">
<div class="head"><span class="n">{n}</span><span class="who {source}">{source}</span>
<code class="command">{command}</code>{badges}<span class="ms">{ms}</span></div>
<div class="where">{where}</div>
<pre class="result"{result_hidden}>{result}</pre>
<pre class="diff"{diff_hidden}>{diff}</pre>
{replay}
{picture}
</li>"""
