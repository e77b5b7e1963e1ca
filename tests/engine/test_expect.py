"""`expect`: Playwright's expect in the command language. It holds or it fails (exit 1)
saying what was expected and what was found; it retries until its timeout; refs and
selectors as every command takes them."""

from __future__ import annotations

from conftest import fails, ok, page, ref_of

FORM = page("expect-form", """
<form onsubmit="event.preventDefault()">
  <label>Email <input id="email" value="a@b"></label>
  <label>Password <input id="pw" type="password" value="hunter2secret"></label>
  <label><input type="checkbox" id="terms"> I agree</label>
  <button id="go" disabled>Send</button>
  <p id="msg">Nothing sent yet</p>
  <ul><li class="row">one</li><li class="row">two</li></ul>
  <button id="later" onclick="setTimeout(() => {
      document.getElementById('msg').textContent = 'Sent to a@b.c';
      document.getElementById('email').value = 'a@b.c';
      document.getElementById('go').disabled = false;
      document.getElementById('done').hidden = false;
      document.getElementById('spinner').remove();
      history.pushState({}, '', '/expect-form?sent=1');
      document.title = 'Sent';
    }, 400)">Later</button>
  <p id="done" hidden>All done</p>
  <p id="spinner">Working</p>
</form>""")


async def test_expectations_that_hold_pass_and_say_so(s, base):
    await ok(s, f"goto {base}{FORM}")
    await ok(s, "snapshot -i")
    email = ref_of(s, "textbox", "Email")
    result = await ok(s, f"expect {email} value a@b")
    assert result.output == f'ok: {email} "Email" value "a@b"'
    assert result.data["passed"] is True and result.data["expect"]["kind"] == "value"
    await ok(s, f"expect {email} visible")
    await ok(s, f"expect {email} enabled")
    await ok(s, "expect '#go' disabled")
    await ok(s, f"expect {ref_of(s, 'checkbox', 'I agree')} unchecked")
    await ok(s, "expect '#done' hidden")
    await ok(s, "expect '#msg' text 'sent yet'")  # contains
    await ok(s, "expect text 'Nothing sent'")
    await ok(s, "expect count li.row 2")
    await ok(s, "expect title expect-form")
    await ok(s, "expect url /expect-form")  # a path: on this page's site
    await ok(s, f"expect url {base}{FORM}")
    await ok(s, "expect url /form$/")
    await ok(s, "expect title /^expect/")
    await ok(s, "expect text 'Not on this page' --not --timeout 0")
    await ok(s, f"expect {email} focused --not")
    await ok(s, f"click {email}")
    await ok(s, f"expect {email} focused")


async def test_a_failed_expectation_says_what_was_expected_and_what_was_found(s, base):
    await ok(s, f"goto {base}{FORM}")
    await ok(s, "snapshot -i")
    email = ref_of(s, "textbox", "Email")
    result = await fails(s, f"expect {email} value a@b.c --timeout 300")
    assert result.error == f'expected {email} "Email" value "a@b.c", found "a@b"'
    assert result.exit_code == 1
    assert result.data["passed"] is False and result.data["found"] == '"a@b"'
    cases = {
        "expect '#go' enabled --timeout 200": "expected `#go` enabled, found disabled",
        "expect '#msg' text Sent --timeout 200":
            'expected `#msg` text "Sent", found "Nothing sent yet"',
        "expect count li.row 3 --timeout 200":
            "expected 3 element(s) matching `li.row`, found 2",
        "expect title Inbox --timeout 200": 'expected title "Inbox", found "expect-form"',
        "expect url /inbox --timeout 200": f"expected url \"/inbox\", found {base}{FORM}",
        "expect text Welcome --timeout 200":
            'expected the page to show "Welcome", found no such text on the page',
        "expect '#done' visible --timeout 200": "expected `#done` visible, found hidden",
        "expect '#nothing' visible --timeout 200":
            "expected `#nothing` visible, found nothing on the page",
        "expect '#terms' checked --timeout 200": "expected `#terms` checked, found unchecked",
        "expect '#msg' visible --not --timeout 200":
            "expected `#msg` not visible, found visible",
    }
    for line, said in cases.items():
        assert (await fails(s, line)).error == said, line
    # a password field's value is never shown, not even when it differs
    wrong = await fails(s, "expect '#pw' value other --timeout 100")
    assert "hunter2secret" not in wrong.error + str(wrong.data)
    assert wrong.error.endswith("found another value (a password field: not shown)")


async def test_it_retries_until_the_page_gets_there(s, base):
    """As Playwright's expect: the checks below start before the page changes (400 ms
    after the click) and pass once it has, well inside their timeout."""
    await ok(s, f"goto {base}{FORM}")
    await ok(s, "snapshot -i")
    email, spinner = ref_of(s, "textbox", "Email"), "'#spinner'"
    await ok(s, "click '#later'")
    await ok(s, f"expect {email} value a@b.c")
    await ok(s, "expect '#msg' text 'Sent to a@b.c'")
    await ok(s, "expect '#go' enabled")
    await ok(s, "expect '#done' visible")
    await ok(s, f"expect {spinner} hidden")
    await ok(s, "expect url '/sent=1$/'")
    await ok(s, "expect title Sent")


async def test_a_ref_whose_element_went_away_is_hidden_and_anything_else_fails_at_once(s,
                                                                                        base):
    await ok(s, f"goto {base}{FORM}")
    await ok(s, "snapshot -i")
    await ok(s, "js document.querySelector('#email').closest('label').remove()")
    email = "@" + next(r for r, n in s.active.snapshot.refs.items() if n.name == "Email")
    assert "no longer on the page" in (await ok(s, f"expect {email} hidden")).output
    await ok(s, f"expect {email} visible --not")
    gone = await fails(s, f"expect {email} visible")  # at once, not after 5 s
    assert "take a new snapshot" in gone.error and gone.data.get("passed") is None
    assert "take a new snapshot" in (await fails(s, "expect @e999 hidden")).error


async def test_bad_expect_lines_are_usage_errors_that_show_the_forms(s, base):
    await ok(s, f"goto {base}{FORM}")
    for line, said in {"expect": "needs",
                       "expect '#msg' shiny": "'shiny' is not a check",
                       "expect '#msg'": "needs a check",
                       "expect '#msg' value": "needs the text",
                       "expect count li.row many": "whole number",
                       "expect url": "checks nothing",
                       "expect url /a(/": "not a valid regular expression",
                       "expect '#msg' visible --timeout 9999999": "0 to 600000",
                       "expect title two words": "quote text that has spaces"}.items():
        result = await fails(s, line)
        assert result.exit_code == 2 and said in result.error, (line, result.error)
    several = await fails(s, "expect li.row visible --timeout 200")
    assert several.error == ("expected `li.row` visible, found 2 elements: use a ref from "
                             "`snapshot -i`, or a selector that matches one")


async def test_cockpit_exec_expect_over_the_control_socket_exits_1_when_it_fails(live, s,
                                                                                  base):
    import asyncio
    import os
    import sys

    from cockpit.control import discovery

    async def cockpit_exec(*words: str) -> tuple[int, str, str]:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "cockpit", "exec", *words,
            env={**os.environ, discovery.ENV_SOCKET: str(live.socket)},
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        out, err = await asyncio.wait_for(proc.communicate(), 60)
        return proc.returncode or 0, out.decode(), err.decode()

    await ok(s, f"goto {base}{FORM}")
    await ok(s, "snapshot -i")
    email = ref_of(s, "textbox", "Email")
    code, out, err = await cockpit_exec("expect", email, "visible")
    assert code == 0 and out.strip() == f'ok: {email} "Email" visible', err
    code, out, err = await cockpit_exec("expect", email, "value", "a@b.c", "--timeout", "200")
    assert code == 1, out + err
    assert f'expected {email} "Email" value "a@b.c", found "a@b"' in out + err


async def test_expectations_lists_what_holds_now_and_each_line_passes(s, base):
    await ok(s, f"goto {base}{FORM}")
    await ok(s, "snapshot -i")
    email = ref_of(s, "textbox", "Email")
    await ok(s, f"click {email}")
    result = await ok(s, f"expectations {email}")
    assert result.data["proposals"] == [f"expect {email} visible", f"expect {email} enabled",
                                        f"expect {email} focused",
                                        f"expect {email} value a@b"]
    terms = ref_of(s, "checkbox", "I agree")
    assert (await ok(s, f"expectations {terms}")).data["proposals"] == [
        f"expect {terms} visible", f"expect {terms} enabled", f"expect {terms} unchecked"]
    said = (await ok(s, "expectations '#msg'")).data["proposals"]
    assert said == ["expect '#msg' visible", "expect '#msg' enabled",
                    "expect '#msg' text 'Nothing sent yet'"]
    assert (await ok(s, "expectations '#done'")).data["proposals"] == [
        "expect '#done' hidden"]
    assert (await ok(s, "expectations '#go'")).output.splitlines()[1] == "expect '#go' disabled"
    password = await ok(s, "expectations '#pw'")
    assert "hunter2secret" not in password.output and "value" not in password.output
    for line in [*result.data["proposals"], *said, "expect '#done' hidden"]:
        await ok(s, line)  # each holds, as Playwright's expect checks it
