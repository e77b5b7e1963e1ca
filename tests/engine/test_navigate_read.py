"""Navigation and reading commands on the real browser, against the demo site."""

import re
import socket
import time

from conftest import fails, ok, page, ref_of


def closed_port() -> int:
    with socket.socket() as sock:  # a port that was free a moment ago: nothing listens
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


async def login(s, site):
    """Log in through the UI with refs from snapshots, up to the inbox."""
    await ok(s, f"goto {site.url}/login")
    await ok(s, "snapshot -i")
    await ok(s, f'fill {ref_of(s, "textbox", "Email")} "{site.email}"')
    await ok(s, f'fill {ref_of(s, "textbox", "Password")} "{site.password}"')
    await ok(s, f'click {ref_of(s, "button", "Sign in")}')
    await ok(s, "snapshot -i")
    await ok(s, f'fill {ref_of(s, "textbox", "Verification code")} {site.mfa_code}')
    await ok(s, f'click {ref_of(s, "button", "Verify")}')
    await ok(s, "snapshot -i")
    await ok(s, f'fill {ref_of(s, "textbox", "characters")} {site.captcha_answer}')
    await ok(s, f'click {ref_of(s, "button", "Continue")}')
    assert s.active.url.endswith("/inbox")


async def test_goto_url_title_back_forward_reload(s, site):
    r = await ok(s, f"goto {site.url}/")
    assert r.data["url"] == f"{site.url}/" and "Cockpit Demo" in r.output
    # the URL asked for is not said back, nor is the new page: its few controls are listed
    # as `snapshot -i` lists them (the agent needs no snapshot to go on)
    assert site.url not in r.output and "new page" not in r.output, r.output
    assert r.output.splitlines()[0] == "opened: Cockpit Demo", r.output
    assert r.output.splitlines()[1:] == (await ok(s, "snapshot -i")).output.splitlines()
    assert r.data["diff"]["summary"].startswith(f"new page {site.url}/")  # JSON: whole
    assert (await ok(s, "url")).output == f"{site.url}/"
    assert "Cockpit Demo" in (await ok(s, "title")).output
    await ok(s, "goto /report")  # a path is resolved against the current page
    assert s.active.url == f"{site.url}/report"
    r = await ok(s, "back")
    assert r.data["url"] == f"{site.url}/"
    r = await ok(s, "forward")
    assert r.data["url"] == f"{site.url}/report"
    r = await ok(s, "reload")
    assert "reloaded" in r.output and r.data["diff"]["summary"].startswith("new page")


async def test_goto_host_without_scheme(s, site):
    host = site.url.removeprefix("http://")
    r = await ok(s, f"goto {host}/report")
    assert r.data["url"] == f"{site.url}/report"


async def test_navigation_errors_are_one_line_and_say_what_to_do(s, site):
    r = await fails(s, "goto http://")
    assert r.exit_code == 2 and "not a valid URL" in r.error
    r = await fails(s, "goto ftp://example.com")
    assert r.exit_code == 2 and "unsupported scheme" in r.error
    r = await fails(s, f"goto http://127.0.0.1:{closed_port()}/")
    assert r.exit_code == 1 and "refused" in r.error
    r = await fails(s, "goto http://no-such-host.invalid/")
    assert r.exit_code == 1 and "DNS" in r.error
    await ok(s, f"goto {site.url}/")  # and the session goes on


async def test_page_that_never_finishes_loading(s, site):
    started = time.perf_counter()
    r = await fails(s, f"goto {site.url}/never")
    assert "did not finish" in r.error and "wait --load" in r.error
    assert time.perf_counter() - started < 20
    await ok(s, f"goto {site.url}/")


async def test_text_and_html_of_page_and_element(s, site):
    await ok(s, f"goto {site.url}/report")
    page_text = (await ok(s, "text")).output
    assert "Weekly report" in page_text
    assert "<table" in (await ok(s, "html")).output
    assert (await ok(s, "html h1")).output.startswith("<h1")
    await ok(s, "snapshot")
    heading = ref_of(s, "heading", "Weekly report")
    assert (await ok(s, f"text {heading}")).output == "Weekly report"
    r = await fails(s, "text td")
    assert "matched" in r.error


async def test_links_with_refs_and_absolute_urls(s, site):
    await ok(s, f"goto {site.url}/")
    r = await ok(s, "links")
    by_name = {row["name"]: row for row in r.data["links"]}
    assert by_name["Sign in"]["url"] == f"{site.url}/login"
    assert f'@{by_name["Sign in"]["ref"]} "Sign in" -> {site.url}/login' in r.output
    only = await ok(s, "links --filter reference")
    assert [row["name"] for row in only.data["links"]] == ["Reference"]


async def test_forms_lists_fields_with_selectors_and_hides_passwords(s, site):
    await ok(s, f"goto {site.url}/login")
    await ok(s, 'fill input[type=password] "hunter2"')
    r = await ok(s, "forms")
    assert "POST" in r.output and "/login" in r.output
    assert 'email "Email"' in r.output
    assert "hunter2" not in r.output and "••••" in r.output
    fields = r.data["forms"][0]["fields"]
    selector = next(f["selector"] for f in fields if f["type"] == "email")
    await ok(s, f'fill "{selector}" a@b.c')  # the selector shown is usable as a target


async def test_snapshots_and_diffs_never_show_a_password(s, site):
    await ok(s, f"goto {site.url}/login")
    await ok(s, "snapshot -i")
    filled = await ok(s, f'fill {ref_of(s, "textbox", "Password")} "hunter2"')
    # as a person would type it during a handoff, or the browser's saved logins fill it
    await ok(s, "js document.querySelector('input[type=password]').value = 'p@ss: w0rd'")
    shown = [filled.output, str(filled.data), (await ok(s, "snapshot -i")).output,
             (await ok(s, "snapshot")).output]
    assert not any("hunter2" in text or "p@ss" in text for text in shown), shown
    assert '"Password"' in shown[2] and "••••••" in shown[2]
    await ok(s, f'fill {ref_of(s, "textbox", "Email")} "jane@example.com"')
    assert "jane@example.com" in (await ok(s, "snapshot -i")).output  # other values stay


async def test_a_sign_in_page_is_looked_at_once_and_its_refs_act(s, site, monkeypatch):
    # finding which box is the password field leaves Playwright's ref map holding that
    # box alone; the page is not looked at a second time for it (a second full snapshot
    # of every sign-in page), and every ref still acts
    from playwright.async_api import Page
    looks: list[str] = []
    aria_snapshot = Page.aria_snapshot

    async def counted(self, *args, **kwargs):
        looks.append(self.url)
        return await aria_snapshot(self, *args, **kwargs)
    await ok(s, f"goto {site.url}/login")
    monkeypatch.setattr(Page, "aria_snapshot", counted)
    shown = (await ok(s, "snapshot -i")).output
    monkeypatch.undo()
    assert len(looks) == 1, looks
    await ok(s, f'fill {ref_of(s, "textbox", "Password")} "hunter2"')
    await ok(s, f'fill {ref_of(s, "textbox", "Email")} "{site.email}"')
    assert "hunter2" not in (await ok(s, "snapshot -i")).output
    await ok(s, f'fill {ref_of(s, "textbox", "Password")} "{site.password}"')
    signed_in = await ok(s, f'click {ref_of(s, "button", "Sign in")}')
    assert "/mfa" in s.active.page.url, (shown, signed_in.output)


async def test_snapshot_flags(s, site):
    await ok(s, f"goto {site.url}/playground")
    full = (await ok(s, "snapshot")).output
    inter = (await ok(s, "snapshot -i")).output
    assert len(inter) < len(full)
    assert all(re.match(r"@(?:f\d+)?e\d+ [\w-]+", line) for line in inter.splitlines())
    assert any(re.match(r"@(?:f\d+)?e\d+ heading ", line) for line in inter.splitlines())
    assert not any(line.split()[1] == "paragraph" for line in inter.splitlines())
    compact = (await ok(s, "snapshot -c")).output
    assert len(compact) < len(full)
    shallow = (await ok(s, "snapshot -d 1")).output
    assert all(not line.startswith("  ") for line in shallow.splitlines())
    # the iframe's elements come with frame refs, and they can be used
    assert "Frame button" in full
    await ok(s, "snapshot -i")
    frame_button = ref_of(s, "button", "Frame button")
    assert s.active.snapshot.refs[frame_button[1:]].in_frame
    await ok(s, f"click {frame_button}")


async def test_snapshot_scope_by_selector_and_ref(s, site):
    await login(s, site)
    scoped = (await ok(s, "snapshot -s table")).output
    assert scoped.startswith("- table") and "Sign out" not in scoped
    await ok(s, "snapshot")
    table = ref_of(s, "table", "Messages")
    assert (await ok(s, f"snapshot -s {table}")).output == scoped
    r = await fails(s, "snapshot -s '#nothing-here'")
    assert "nothing matches" in r.error


async def test_snapshot_cursor_finds_clickable_divs(s, site):
    await ok(s, f"goto {site.url}/playground")
    plain = (await ok(s, "snapshot -i")).output
    with_cursor = (await ok(s, "snapshot -i -C")).output
    assert "Clickable div" not in plain
    assert "Clickable div" in with_cursor
    assert "Focusable div" in with_cursor and "[clickable]" in with_cursor


async def test_refs_stay_stable_and_one_new_row_is_one_added_line(s, site):
    await login(s, site)
    before = await ok(s, "snapshot -i")
    archive = ref_of(s, "button", "Archive: Lunch")
    r = await ok(s, f"click {ref_of(s, 'button', 'Check for new mail')}")
    changes = r.data["diff"]["changes"]
    added_rows = [c for c in changes if c["kind"] == "added" and c["role"] == "row"]
    assert len(added_rows) == 1, r.output
    assert not [c for c in changes if c["kind"] == "removed"], r.output
    await ok(s, "snapshot -i")
    assert ref_of(s, "button", "Archive: Lunch") == archive  # same element, same ref
    r = await ok(s, f"click {archive}")
    removed = [c for c in r.data["diff"]["changes"] if c["kind"] == "removed"]
    assert any(c["role"] == "row" for c in removed)
    assert "messages" in r.output  # the counter's change is in the short text
    assert before.ok


async def test_snapshot_diff_flag_and_no_change(s, site):
    await ok(s, f"goto {site.url}/report")
    await ok(s, "snapshot")
    assert (await ok(s, "snapshot -D")).output == "No change"
    await ok(s, "js document.querySelector('h1').textContent = 'Monthly report'")
    r = await ok(s, "snapshot -D")
    assert r.data["diff"]["changed"] + r.data["diff"]["added"] >= 1
    assert "Monthly report" in r.output


async def test_stale_ref_from_an_earlier_page_fails_at_once(s, site):
    await ok(s, f"goto {site.url}/")
    await ok(s, "snapshot -i")
    old = ref_of(s, "link", "Sign in")
    await ok(s, "js location.href = '/report'")  # the page moves on by itself
    await ok(s, "wait --url '**/report'")
    started = time.perf_counter()
    r = await fails(s, f"click {old}")
    assert time.perf_counter() - started < 1.0
    assert "take a new snapshot" in r.error


async def test_ref_from_another_tab_names_that_tab(s, site):
    await ok(s, f"goto {site.url}/playground")
    await ok(s, "snapshot -i")
    only_here = ref_of(s, "button", "Double-click me")
    await ok(s, f"newtab {site.url}/report")
    await ok(s, "snapshot -i")
    r = await fails(s, f"click {only_here}")
    if "tab 1" in r.error:  # unless tab 2 happens to have the same ref number
        assert "`tab 1`" in r.error
    assert "snapshot" in r.error


async def test_js_that_navigates_reports_where_the_page_went(s, site):
    await ok(s, f"goto {site.url}/")
    r = await ok(s, "js location.href = '/report'; await new Promise(r => setTimeout(r, 5000))")
    assert r.data["navigated"] and f"now {site.url}/report" in r.output


async def test_a_navigation_says_where_it_landed_and_lists_a_small_page(s, site, base):
    # not signed in, the site sends the inbox to its sign-in page: that URL is news
    r = await ok(s, f"goto {site.url}/inbox")
    assert r.output.splitlines()[0] == f"opened {site.url}/login: Sign in — Cockpit Demo"
    # a click to a page of many controls says how many there are (`snapshot -i` lists
    # them); to a page of a few, it lists them: the agent needs no snapshot to go on
    many = page("nav-many", "".join(f"<button>Button {i}</button>" for i in range(12)) +
                "<a href='/nav-few'>To few</a>")
    page("nav-few", "<a href='/nav-many'>To many</a>")
    await ok(s, f"goto {base}{many}")
    await ok(s, "snapshot -i")
    r = await ok(s, f"click {ref_of(s, 'link', 'To few')}")
    head, *listed = r.output.splitlines()[1:]
    assert head == 'new page /nav-few: "nav-few"' and listed, r.output  # where, and its title
    assert listed == (await ok(s, "snapshot -i")).output.splitlines()
    r = await ok(s, f"click {ref_of(s, 'link', 'To many')}")
    assert re.fullmatch(r'clicked @\S+\nnew page /nav-many: "nav-many"\n\+\d+', r.output), \
        r.output


async def test_refs_are_short_and_never_name_two_elements(s, site):
    # Playwright names a later document's elements `f3e14`; the tab names them `e64`,
    # numbers no earlier document had, so an old ref still fails instead of finding
    # another element (refnames.py)
    await ok(s, f"goto {site.url}/")
    first = (await ok(s, "snapshot -i")).output
    link = ref_of(s, "link", "Sign in")
    await ok(s, f"goto {site.url}/playground")
    later = (await ok(s, "snapshot -i")).output
    numbers = [set(re.findall(r"^@e(\d+) ", text, re.M)) for text in (first, later)]
    assert all(numbers) and not numbers[0] & numbers[1], (first, later)
    assert "@f" not in first + later
    assert all(n.pw and n.pw.startswith("f") for n in s.active.snapshot.refs.values())
    result = await fails(s, f"click {link}")
    assert "not in this tab's last snapshot" in result.error, result.error
    # the full tree shows the same names
    full = (await ok(s, "snapshot")).output
    assert f"[ref={ref_of(s, 'button', 'Frame button')[1:]}]" in full
