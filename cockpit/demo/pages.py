"""HTML templates shipped in `site/`, and filling them in.

Templates use `{{name}}` placeholders; values are inserted as given, so callers escape
text with `esc()` (keeping the escaping next to where the text comes from).
"""

from __future__ import annotations

import html
import re
from functools import cache
from importlib import resources

SITE_NAME = "Cockpit Demo"

# What a static file is served as, by suffix.
CONTENT_TYPES = {
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".html": "text/html; charset=utf-8",
    ".svg": "image/svg+xml",
    ".txt": "text/plain; charset=utf-8",
}

_PLACEHOLDER = re.compile(r"\{\{(\w+)\}\}")
_STATIC_NAME = re.compile(r"^[\w-]+\.(css|js)$")  # only these are served under /static/


def esc(text: object) -> str:
    """Text made safe for HTML content and attribute values."""
    return html.escape(str(text), quote=True)


@cache
def site_file(name: str) -> str:
    """A file from the package's `site/` folder (read once; it ships with the code)."""
    return resources.files(__package__).joinpath("site").joinpath(name).read_text(encoding="utf-8")


def static_file(name: str) -> tuple[bytes, str] | None:
    """(body, content type) of a CSS/JS file for /static/NAME, or None if there is none."""
    if not _STATIC_NAME.match(name):
        return None  # also keeps "../" and friends out
    try:
        body = site_file(name)
    except (FileNotFoundError, IsADirectoryError):
        return None
    suffix = name[name.rfind("."):]
    return body.encode("utf-8"), CONTENT_TYPES[suffix]


def fill(template: str, **values: object) -> str:
    """The template with every {{name}} replaced; a missing value is a bug, so it raises."""
    return _PLACEHOLDER.sub(lambda m: str(values[m.group(1)]), template)


def page(template_name: str, title: str, *, scripts: tuple[str, ...] = (),
         raw_title: bool = False, body_class: str = "", **values: object) -> str:
    """A whole page: `site/<template_name>` filled in and wrapped in the common layout.

    `title` is the page's own part ("Sign in"); the layout adds the site name. With
    raw_title the title is used verbatim and unescaped (only the hostile page wants that).
    """
    body = fill(site_file(template_name), **values)
    full_title = title if raw_title else (
        SITE_NAME if title == SITE_NAME else f"{esc(title)} — {SITE_NAME}")
    tags = "".join(f'<script src="/static/{esc(s)}" defer></script>' for s in scripts)
    return fill(site_file("layout.html"), title=full_title, body=body, scripts=tags,
                body_class=esc(body_class))


def error_block(message: str | None) -> str:
    """The form error, announced to screen readers (role=alert), or nothing."""
    return f'<p class="error" role="alert">{esc(message)}</p>' if message else ""
