"""The /reference page: a large, deterministic documentation page for benchmarks.

Generated from a fixed seed so every run (and every machine) gets the same ~1.5 MB page:
a benchmark comparing snapshot sizes or timings must compare like with like.
"""

from __future__ import annotations

import random
from functools import lru_cache

from .pages import esc, page

SECTIONS = 200
SEED = 1729

_VERBS = ["Configuring", "Tuning", "Understanding", "Debugging", "Migrating", "Securing",
          "Scaling", "Monitoring", "Testing", "Deploying", "Caching", "Indexing"]
_NOUNS = ["session timeouts", "message queues", "retry policies", "search indexes",
          "access tokens", "rate limits", "webhooks", "background jobs", "audit logs",
          "feature flags", "connection pools", "storage quotas", "mail filters",
          "notification rules", "export formats", "user roles"]
_WORDS = ("the a an each every request response server client queue token cache index "
          "record field value option setting default limit timeout retry policy handler "
          "worker process thread buffer stream channel event message payload header body "
          "page session user account role permission quota schedule window interval "
          "returns accepts stores sends reads writes expires rotates validates reports "
          "quickly safely rarely usually always never only also then before after when "
          "while until unless because so that which where with without into over under "
          "new old large small first last next previous stable optional required").split()
_LANGS = ["python", "shell", "yaml", "json"]


def _sentence(rng: random.Random) -> str:
    words = [rng.choice(_WORDS) for _ in range(rng.randint(10, 22))]
    return words[0].capitalize() + " " + " ".join(words[1:]) + "."


def _paragraph(rng: random.Random, index: int) -> str:
    sentences = [esc(_sentence(rng)) for _ in range(rng.randint(11, 14))]
    if rng.random() < 0.5:  # some prose links to other sections, as real docs do
        other = rng.randrange(1, SECTIONS + 1)
        sentences.insert(rng.randrange(len(sentences)),
                         f'See <a href="#section-{other}">section {other}</a> for details.')
    return f"<p>{' '.join(sentences)}</p>"


def _table(rng: random.Random, index: int, title: str) -> str:
    rows = []
    for _ in range(rng.randint(4, 6)):
        name = f"{rng.choice(_WORDS)}_{rng.choice(_WORDS)}"
        rows.append(f"<tr><th scope=\"row\"><code>{esc(name)}</code></th>"
                    f"<td>{rng.randint(1, 3600)}</td><td>{esc(_sentence(rng))}</td></tr>")
    return ("<table>"
            f"<caption>Options for {esc(title.lower())}</caption>"
            "<thead><tr><th scope=\"col\">Option</th><th scope=\"col\">Default</th>"
            "<th scope=\"col\">Description</th></tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table>")


def _code(rng: random.Random, index: int) -> str:
    lang = rng.choice(_LANGS)
    lines = []
    for n in range(rng.randint(6, 10)):
        key, value = rng.choice(_WORDS), rng.choice(_WORDS)
        if lang == "python":
            lines.append(f"{key}_{n} = client.{value}(timeout={rng.randint(1, 90)})")
        elif lang == "shell":
            lines.append(f"demo-cli {key} --{value} {rng.randint(1, 500)}")
        elif lang == "yaml":
            lines.append(f"{key}_{n}: {value}  # {rng.choice(_WORDS)}")
        else:
            lines.append(f'  "{key}_{n}": "{value}",')
    if lang == "json":
        lines = ["{", *lines, '  "end": true', "}"]
    return (f'<pre><code id="code-{index}" class="language-{lang}">'
            f"{esc(chr(10).join(lines))}</code></pre>"
            f'<button type="button" class="copy" data-target="code-{index}" '
            f'aria-label="Copy code from section {index}">Copy</button>')


def _section(rng: random.Random, index: int) -> str:
    title = f"{rng.choice(_VERBS)} {rng.choice(_NOUNS)}"
    parts = [f'<section id="section-{index}" aria-labelledby="heading-{index}">',
             f'<h2 id="heading-{index}">{index}. {esc(title)}</h2>']
    paragraphs = [_paragraph(rng, index) for _ in range(rng.randint(3, 4))]
    parts += paragraphs[:2]
    parts.append(_table(rng, index, title))
    parts += paragraphs[2:]
    parts.append(_code(rng, index))
    see_also = sorted({rng.randrange(1, SECTIONS + 1) for _ in range(3)})
    parts.append("<p>See also: " + ", ".join(
        f'<a href="#section-{n}">section {n}</a>' for n in see_also) + "</p>")
    parts.append(
        f'<div class="feedback" role="group" aria-label="Feedback on section {index}">'
        f'<span>Was this helpful?</span> '
        f'<button type="button" data-answer="yes">Yes</button> '
        f'<button type="button" data-answer="no">No</button> '
        f'<label><input type="checkbox" class="read"> Mark section {index} as read</label>'
        "</div></section>")
    return "\n".join(parts)


@lru_cache(maxsize=1)
def reference_page() -> str:
    """The whole page, built once (it never changes) and cached."""
    rng = random.Random(SEED)
    sections = "\n".join(_section(rng, i) for i in range(1, SECTIONS + 1))
    return page("reference.html", "Reference", scripts=("reference.js",),
                body_class="reference", sections=sections, count=SECTIONS)
