"""Noticing pages that need a person: a captcha, a one-time code, or a sign-in.

An agent cannot (and must not try to) solve a captcha or type a code sent to someone's
phone. After a navigation the engine calls `detect_need(page)`; a `Need` tells the
cockpit to hand the browser to the human instead of letting the agent flail.

The check is one `page.evaluate` over the main frame (iframes are judged by their `src`
only, never entered), so it costs a few milliseconds and can run after every navigation.
It never raises: a closed page or a navigation in progress simply means "no need seen".
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

from playwright.async_api import Error as PlaywrightError

NeedKind = Literal["captcha", "code", "login"]
KINDS: tuple[str, ...] = ("captcha", "code", "login")


@dataclass(frozen=True)
class Need:
    """What a person has to do on a page, and the evidence that made us think so."""

    kind: NeedKind
    detail: str  # short and human-readable: 'reCAPTCHA iframe', 'input autocomplete=...'
    url: str

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


# Runs in the page; returns null or {kind, detail}. Rules are checked from the strongest
# evidence to the weakest, so `detail` names the most telling thing on the page.
DETECT_JS = r"""
(redirected) => {
  // Inputs and iframes must really be on screen: hidden honeypots and parked widgets
  // (reCAPTCHA parks its challenge popup at top:-10000px) are no call for a person.
  const visible = (el) => {
    const r = el.getBoundingClientRect();
    if (r.width <= 0 || r.height <= 0 || r.right <= 0 || r.bottom <= 0) return false;
    const s = getComputedStyle(el);
    return s.display !== 'none' && s.visibility !== 'hidden';
  };
  // Widget containers are empty until their script fills them (or when it is blocked),
  // so for them being laid out at all is enough.
  const rendered = (el) => el.getClientRects().length > 0 &&
    getComputedStyle(el).visibility !== 'hidden';
  // Invisible reCAPTCHA v3 / hCaptcha ride along on ordinary forms and need nobody: the
  // badge, a widget sized "invisible", or a site key bound to a submit button.
  const INVISIBLE = '.grecaptcha-badge, [data-size="invisible" i],' +
    ' button[data-sitekey], input[data-sitekey], a[data-sitekey]';
  const quiet = (el) => el.closest(INVISIBLE) !== null;
  const describe = (el) => {
    let text = el.tagName.toLowerCase();
    if (el.id) text += '#' + el.id;
    else if (typeof el.className === 'string' && el.className.trim())
      text += '.' + el.className.trim().split(/\s+/).join('.');
    return text.length > 60 ? text.slice(0, 57) + '...' : text;
  };
  const captcha = (detail) => ({kind: 'captcha', detail});
  const code = (detail) => ({kind: 'code', detail});

  // --- captcha ----------------------------------------------------------------------
  const VENDORS = [
    [/(^|\/\/|\.)google\.com\/recaptcha|recaptcha\.net/i, 'reCAPTCHA iframe'],
    [/hcaptcha\.com/i, 'hCaptcha iframe'],
    [/challenges\.cloudflare\.com/i, 'Cloudflare Turnstile iframe'],
  ];
  for (const frame of document.querySelectorAll('iframe[src]')) {
    const src = frame.getAttribute('src');
    if (/invisible/i.test(src) || !visible(frame)) continue;
    for (const [pattern, detail] of VENDORS) if (pattern.test(src)) return captcha(detail);
  }
  const MARKERS = '.g-recaptcha, .h-captcha, .cf-turnstile, [data-sitekey]';
  for (const el of document.querySelectorAll(MARKERS)) {
    if (quiet(el) || !rendered(el)) continue;
    return captcha('element ' + describe(el));
  }
  const RESPONSES = 'textarea[name="g-recaptcha-response"], textarea[name="h-captcha-response"],' +
    ' input[name="cf-turnstile-response"]';
  for (const el of document.querySelectorAll(RESPONSES)) {
    // The field itself is always hidden; its widget (the parent) must be on the page.
    if (quiet(el) || !el.parentElement || !rendered(el.parentElement)) continue;
    return captcha(`${el.getAttribute('name')} field`);
  }
  const title = (document.title || '').trim();
  if (/^(just a moment|attention required|one more step)/i.test(title))
    return captcha(`challenge page "${title.slice(0, 60)}"`);
  for (const el of document.querySelectorAll('[data-captcha]')) {
    if (!quiet(el) && rendered(el)) return captcha('element ' + describe(el) + '[data-captcha]');
  }
  const GENERIC = '[id*="captcha" i], [class*="captcha" i], [name*="captcha" i]';
  for (const el of document.querySelectorAll(GENERIC)) {
    if (!quiet(el) && visible(el)) return captcha('element ' + describe(el));
  }
  // Interstitials are short pages; a long article that merely mentions the phrase is not
  // one (and innerText of a huge page is the one slow thing we could do here).
  const body = document.body;
  if (body && body.textContent.length <= 20000) {
    const m = body.innerText.match(new RegExp('checking your browser|checking if the site ' +
      'connection is secure|verify(?:ing)? (?:that )?you are (?:a )?human', 'i'));
    if (m) return captcha(`text "${m[0]}"`);
  }

  // --- one-time code ----------------------------------------------------------------
  const CODE_TYPES = new Set(['text', 'tel', 'number', 'password']);
  const inputs = [...document.querySelectorAll('input')].filter((el) => CODE_TYPES.has(el.type));
  const autocomplete = (el) => (el.getAttribute('autocomplete') || '').toLowerCase().trim();
  for (const el of inputs) {
    if (autocomplete(el).includes('one-time-code') && visible(el))
      return code('input autocomplete="one-time-code"');
  }
  // "userOtp" and "user_otp" alike: split camelCase, then match whole leading words, so
  // "footpath" is not an "otp".
  const words = (s) => (s || '').replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
  const NAMED = new RegExp('(^|[^a-z0-9])(otp|totp|mfa|2fa|two.?factor|one.?time|' +
                          'verification.?code|security.?code)');
  for (const el of inputs) {
    const labels = el.labels ? [...el.labels].map((l) => l.textContent).join(' ') : '';
    const names = [el.name, el.id, el.getAttribute('autocomplete'),
                   el.getAttribute('aria-label'), el.placeholder, labels].map(words).join(' ');
    const m = names.match(NAMED);
    if (m && visible(el)) return code(`input named like "${m[2]}"`);
  }
  // Short numeric fields that are something else: zip codes, card codes, dates, amounts.
  const NOT_A_CODE = new RegExp('(^|[^a-z0-9])(zip|postal|post.?code|cvc|cvv|csc|card|' +
                                'birth|year|month|day|age|qty|quantity|amount|price|phone)');
  const numeric = (el) => el.type === 'number' ||
    (el.getAttribute('inputmode') || '').toLowerCase() === 'numeric' ||
    /^(\[0-9\]|\\d)(\*|\+|\{\d+(,\d*)?\})$/.test(el.getAttribute('pattern') || '');
  const declaredOther = (el) => !['', 'on', 'off'].includes(autocomplete(el));
  let digitBoxes = 0;
  for (const el of inputs) {
    if (!numeric(el) || declaredOther(el)) continue;
    if (NOT_A_CODE.test(words(el.name) + ' ' + words(el.id))) continue;
    const max = parseInt(el.getAttribute('maxlength') || '', 10);
    if (max >= 4 && max <= 8 && visible(el)) return code(`numeric input maxlength=${max}`);
    if (max === 1 && visible(el)) digitBoxes += 1;
  }
  // One box per digit is the other common way to ask for a code.
  if (digitBoxes >= 4) return code(`${digitBoxes} one-digit inputs`);

  // --- sign-in after a redirect -------------------------------------------------------
  // A password box on a page we asked for is a login page we chose to visit; after a
  // redirect it is a session that expired or a site that wants a person to sign in.
  const nav = performance.getEntriesByType('navigation')[0];
  if (redirected || (nav && nav.redirectCount > 0)) {
    for (const el of document.querySelectorAll('input[type="password"]')) {
      if (visible(el)) return {kind: 'login', detail: 'password field after a redirect'};
    }
  }
  return null;
}
"""


async def detect_need(page: Any, *, redirected: bool = False) -> Need | None:
    """The Need of the page's current document, or None (also when the page cannot answer).

    `redirected`: the caller saw the navigation redirected; the page's own navigation
    timing is consulted too (it misses cross-origin redirects, hence the flag).
    """
    try:
        found = await page.evaluate(DETECT_JS, redirected)
        url = page.url
    except PlaywrightError:  # closed page, crashed target, or a navigation under way
        return None
    if not isinstance(found, dict) or found.get("kind") not in KINDS:
        return None
    return Need(kind=found["kind"], detail=str(found.get("detail", "")), url=url)
