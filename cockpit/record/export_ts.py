"""A recording as a @playwright/test spec in TypeScript: the same steps as the pytest
export (export.py says what each step does, dialects.py how TypeScript writes it)."""

from __future__ import annotations


from ..core import REGISTRY, Registry
from .dialects import TYPESCRIPT
from .export import body, secrets_typed, title
from .export_network import Exporter
from .replay import recorded_origin

# Placeholders (@@NAME@@) rather than str.format: TypeScript is full of braces.
HEADER = """// @@TITLE@@
//
// Exported by Cockpit from @@SOURCE@@. Run it with `npx playwright test` (npm install
// -D @playwright/test); $COCKPIT_ORIGIN moves it to another copy of the site.@@SECRETS@@
import { test, expect, chromium, type Page } from '@playwright/test';
import * as fs from 'fs';
import * as path from 'path';

const ORIGIN = process.env.COCKPIT_ORIGIN ?? @@ORIGIN@@;

/** Playwright's own Chromium when installed, else the system's (as Cockpit does). */
function browserPath(): string | undefined {
  if (process.env.COCKPIT_BROWSER_PATH) return process.env.COCKPIT_BROWSER_PATH;
  try {
    if (fs.existsSync(chromium.executablePath())) return undefined;
  } catch {
    // no Chromium of Playwright's for this platform: the system's, below
  }
  const dirs = (process.env.PATH ?? '').split(path.delimiter).filter(Boolean);
  const candidates = ['/usr/lib/chromium/chromium',
    ...dirs.flatMap((dir) => [path.join(dir, 'chromium'), path.join(dir, 'google-chrome')])];
  return candidates.find((file) => fs.existsSync(file));
}

const asRoot = process.getuid?.() === 0;  // Chromium's sandbox refuses root
test.use({ launchOptions: { executablePath: browserPath(),
                            args: asRoot ? ['--no-sandbox', '--disable-gpu'] : [] } });

/** A secret the walk types, from the environment (never written in the spec). */
function env(name: string): string {
  const value = process.env[name];
  if (value === undefined) throw new Error(`set $${name}: the walk types it`);
  return value;
}

/** Tab n (from 1), waiting for it: a click may open it a moment later. */
async function tab(page: Page, n: number): Promise<Page> {
  while (page.context().pages().length < n) await page.context().waitForEvent('page');
  const found = page.context().pages()[n - 1];
  await found.bringToFront();
  return found;
}

/** Tab n, once the tab the test is on has closed itself (a popup, after its form). */
async function afterClose(page: Page, n: number): Promise<Page> {
  if (!page.isClosed()) await page.waitForEvent('close');
  return tab(page, n);
}

/** A step whose action closed its own tab (a popup's Save): Playwright may fail the
 * call it still waited on as the tab went. The step was done if the tab closes. */
async function closedBy(page: Page, error: unknown): Promise<void> {
  if (page.isClosed()) return;
  await page.waitForEvent('close', { timeout: 2000 }).catch(() => { throw error; });
}

/** `state load`: the cookies and each site's localStorage that `state save` wrote. */
async function loadState(page: Page, file: string): Promise<void> {
  const state = JSON.parse(fs.readFileSync(file, 'utf-8'));
  await page.context().addCookies(state.cookies ?? []);
  for (const origin of state.origins ?? []) {
    const items: { name: string; value: string }[] = origin.localStorage ?? [];
    if (!items.length || !String(origin.origin ?? '').startsWith('http')) continue;
    const blank = await page.context().newPage();  // the site's storage, from a blank page
    const url = String(origin.origin).replace(/\\/$/, '') + '/__cockpit_state__';
    await blank.route(url, (route) => route.fulfill({ body: '<title>state</title>',
                                                      contentType: 'text/html' }));
    await blank.goto(url);
    await blank.evaluate((all) => all.forEach((i) => localStorage.setItem(i.name, i.value)),
                         items);
    await blank.close();
  }
}

test(@@NAME@@, async ({ page }) => {
  page.setDefaultTimeout(Number(process.env.COCKPIT_TIMEOUT_MS ?? 10_000));
"""


def to_playwright_test(rec, name: str, registry: Registry = REGISTRY) -> str:
    """The recording as a TypeScript spec for `npx playwright test`."""
    origin = recorded_origin(rec) or ""
    secrets = secrets_typed(rec)
    note = (f"\n// The secrets it types come from the environment: {', '.join(secrets)}."
            if secrets else "")
    header = HEADER
    for key, value in {"TITLE": title(rec), "SOURCE": rec.path.name, "SECRETS": note,
                       "ORIGIN": TYPESCRIPT.lit(origin), "NAME": TYPESCRIPT.lit(name)}.items():
        header = header.replace(f"@@{key}@@", value)
    network = Exporter(TYPESCRIPT)  # network and emulation steps (export_network.py)
    steps = body(rec, origin, registry, TYPESCRIPT, network)
    if network.helpers:  # before the test: the header's last lines begin it
        head, sep, test = header.rpartition("\ntest(")
        header = head + "".join(network.helpers.values()) + sep + test
    lines = [header.rstrip("\n"), *steps, "});"]
    return "\n".join(lines) + "\n"
