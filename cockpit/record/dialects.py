"""The two languages an export is written in: Python (pytest-playwright, sync API) and
TypeScript (@playwright/test). The export (export.py) says what each step does once;
a dialect says how that reads in its language: literals, calls (`select_option(...)` or
`selectOption(...)`, keyword arguments or an options object), statements (`await ...;`)."""

from __future__ import annotations

import json
from typing import Any


ACRONYMS = {"url": "URL"}  # Playwright's TypeScript names: toHaveURL, waitForURL


def camel(name: str) -> str:
    """`select_option` as TypeScript writes it: `selectOption` (`to_have_url`:
    `toHaveURL`)."""
    head, *rest = name.split("_")
    return head + "".join(ACRONYMS.get(w, w[:1].upper() + w[1:]) for w in rest)


class Python:
    """pytest-playwright: the sync API, keyword arguments."""

    name = "pytest"
    indent = "    "
    comment_mark = "#"

    def lit(self, value: Any) -> str:
        return repr(value)

    def env(self, name: str) -> str:
        return f"os.environ[{name!r}]"

    def regex(self, source: str) -> str:
        return f"re.compile({source!r})"

    def comment(self, text: str) -> str:
        return f"# {text}"

    def do(self, expr: str) -> str:
        """A statement that runs `expr` (a call on the page)."""
        return expr

    def assign_page(self, expr: str) -> str:
        return f"page = {expr}"

    def call(self, obj: str, method: str, *args: str, **options: Any) -> str:
        """`obj.method(args, key=value)`: `args` are written already; `options` are
        values, written here."""
        words = [*args, *(f"{k}={self.lit(v)}" for k, v in options.items())]
        return f"{obj}.{method}({', '.join(words)})"

    def context(self, page: str = "page") -> str:
        return f"{page}.context"

    def pages(self, page: str = "page") -> str:
        return f"{page}.context.pages"

    def expect(self, subject: str) -> str:
        return f"expect({subject})"

    def fn(self, name: str) -> str:
        """One of the header's helper functions (`after_close`), named as it is there."""
        return name

    def first(self, locator: str) -> str:
        return f"{locator}.first"

    def closing(self, statements: list[str]) -> list[str]:
        """`statements`, whose action closes the test's tab (a popup's Save): what
        Playwright says of the call it still waited on as the tab went is no failure
        (the header's `closed_by`)."""
        return ["try:", *(self.indent + s for s in statements),
                "except Error as error:", self.indent + "closed_by(page, error)"]


class TypeScript(Python):
    """@playwright/test: every page call awaited, camelCase, an options object."""

    name = "playwright-test"
    indent = "  "
    comment_mark = "//"

    def lit(self, value: Any) -> str:
        if isinstance(value, (list, tuple)):
            return "[" + ", ".join(self.lit(v) for v in value) + "]"
        text = json.dumps(value, ensure_ascii=False)
        if isinstance(value, str):  # single quotes, as TypeScript code mostly is
            inner = text[1:-1].replace('\\"', '"').replace("'", "\\'")
            text = f"'{inner}'"
        return text

    def env(self, name: str) -> str:
        return f"env({self.lit(name)})"

    def regex(self, source: str) -> str:
        return f"new RegExp({self.lit(source)})"

    def comment(self, text: str) -> str:
        return f"// {text}"

    def do(self, expr: str) -> str:
        return f"await {expr};"

    def assign_page(self, expr: str) -> str:
        return f"page = await {expr};"

    def call(self, obj: str, method: str, *args: str, **options: Any) -> str:
        name = "not." + camel(method[4:]) if method.startswith("not_") else camel(method)
        words = list(args)
        if options:
            words.append("{ " + ", ".join(
                f"{camel(k)}: {self.lit(v)}"
                for k, v in options.items()) + " }")
        return f"{obj}.{name}({', '.join(words)})"

    def context(self, page: str = "page") -> str:
        return f"{page}.context()"

    def pages(self, page: str = "page") -> str:
        return f"{page}.context().pages()"

    def fn(self, name: str) -> str:
        return camel(name)

    def first(self, locator: str) -> str:
        return f"{locator}.first()"

    def closing(self, statements: list[str]) -> list[str]:
        return ["try {", *(self.indent + s for s in statements),
                "} catch (error) {", self.indent + "await closedBy(page, error);", "}"]


PYTHON, TYPESCRIPT = Python(), TypeScript()
DIALECTS = {d.name: d for d in (PYTHON, TYPESCRIPT)}
