"""Issue 28's "Done when", as a person running a fleet sees it: three sessions run
agents, one of them on "another machine" (a real sshd on 127.0.0.1, `watch --host`);
one hits a CAPTCHA: the real `cockpit watch` in a real terminal (tmux) puts it first, a
notification fires once (the bell and OSC 9 / 777 in the terminal's bytes, and the
`--notify` script runs once), Enter attaches the full cockpit, F10 hands over, the
person solves the CAPTCHA in the attached cockpit's prompt, F10 gives it back and the
agent finishes, told what changed; then ten MCP clients on one `cockpit mcp --port`
each get a session of their own (their own page and cookies) and all ten show in the
same `watch`.

The agents are small shell scripts driving their session with `cockpit exec`, started
by `cockpit serve --agent`; the demo site is the one of the whole run (`site`)."""

from __future__ import annotations

import asyncio
import getpass
import re
import shlex
import shutil
import sys
import tempfile
import time
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from test_attach_ssh import ROOT, SSHD, sshd  # noqa: F401 (a fixture, used by name)
from test_mcp_fleet import call, client, mcp_server
from test_tui_e2e import Tmux
from test_watch import Served, sessions  # noqa: F401 (a fixture, used by name)

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not (Path(SSHD).exists() and shutil.which("ssh") and
                            shutil.which("tmux")),
                       reason="needs sshd, ssh and tmux"),
]

CLIENTS = 10

# Works, then stays at work (running, as watch shows it) until the test lets it finish.
STEADY = """set -e
cockpit exec goto "$SITE/playground" > /dev/null
cockpit exec snapshot -i > /dev/null
while [ ! -e "$OUT/finish" ]; do sleep 0.3; done
cockpit exec title > "$OUT/$NAME.last"
"""

# Signs in and reaches the "verify you are human" picture, then waits for the page to move
# on: its commands are held while a person has control, and the first one after carries
# what the person changed.
AT_THE_CAPTCHA = """set -e
while [ ! -e "$OUT/go" ]; do sleep 0.2; done
cockpit exec goto "$SITE/login" > /dev/null
cockpit exec fill '#email' "$EMAIL" > /dev/null
cockpit exec fill '#password' "$PASSWORD" > /dev/null
cockpit exec click 'button[type=submit]' > /dev/null
cockpit exec fill '#code' "$CODE" > /dev/null
cockpit exec click 'button[type=submit]' > "$OUT/$NAME.challenge"
cockpit exec snapshot -i > /dev/null
while :; do
  cockpit exec url >> "$OUT/$NAME.waited"
  case "$(tail -n 1 "$OUT/$NAME.waited")" in
    */challenge) sleep 0.5 ;;
    *) break ;;
  esac
done
cockpit exec expect text "Inbox" > "$OUT/$NAME.last"
"""

NOTIFY = ('printf "%s|%s|%s\\n" "$COCKPIT_SESSION" "$COCKPIT_REASON" "$COCKPIT_URL" '
          '>> {file}')


@pytest.fixture
def no_display(monkeypatch):
    """No desktop: a handoff happens in the terminal (the attached cockpit's prompt)."""
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)


def ssh_to_localhost(sshd_home: Path, where: Path) -> str:
    """The user's ssh, configured for 127.0.0.1 with the fixture's key and port."""
    port = re.search(r"^Port (\d+)", (sshd_home / "sshd_config").read_text(), re.M)[1]
    config = where / "ssh_config"
    config.write_text(
        f"Host 127.0.0.1\n  Port {port}\n  IdentityFile {sshd_home}/id\n"
        "  IdentitiesOnly yes\n  StrictHostKeyChecking no\n"
        "  UserKnownHostsFile /dev/null\n  LogLevel ERROR\n")
    return f"ssh -F {config}"


def first_line_of(screen: str, name: str) -> int:
    """The screen line where the session `name` shows first (a very large number: none)."""
    return next((i for i, line in enumerate(screen.splitlines())
                 if re.search(rf"(^|\s){re.escape(name)}(\s|$)", line)), NOWHERE)


NOWHERE = 10**6


async def wait_screen(tmux: Tmux, what: str, predicate, timeout: float = 60.0):
    """Until the terminal shows it (read off the event loop: the MCP clients live on it)."""
    return await asyncio.to_thread(tmux.wait_for, what, predicate, timeout)


async def wait_file(path: Path, who: Served, timeout: float = 90.0) -> str:
    """What an agent wrote to `path`, once it has; else what its session said."""
    end = time.monotonic() + timeout
    while not (path.exists() and path.read_text().strip()):
        assert time.monotonic() < end and who.process.poll() is None, \
            f"no {path.name}; its session said:\n{''.join(who.said)}"
        await asyncio.sleep(0.2)
    return path.read_text()


def sent_once_written(raw: Path, text: str) -> str:
    """The terminal's bytes, once tmux has piped out those that hold `text` (the pane
    is drawn before its pipe's reader has written)."""
    end = time.monotonic() + 10
    while text not in (sent := raw.read_bytes().decode("utf-8", "replace")):
        assert time.monotonic() < end, sent[-3000:]
        time.sleep(0.1)
    return sent


class Crew:
    """Ten MCP clients on one `cockpit mcp --port`, each named after itself: each goes to
    a page of its own and sets a cookie there, and once all ten have, each reads where it
    is and which cookies it sees; they stay connected (their sessions live) until told."""

    def __init__(self, url: str, token: str, site: str) -> None:
        self.url, self.token, self.site = url, token, site
        self.seeded: set[int] = set()
        self.seen: dict[int, tuple[str, str]] = {}
        self.all_seeded = asyncio.Event()
        self.leave = asyncio.Event()
        self.runs = [asyncio.ensure_future(self.one(i)) for i in range(CLIENTS)]

    async def one(self, i: int) -> None:
        async with client(self.url, self.token, f"crew-{i}") as connected:
            await call(connected, "browser_navigate", url=f"{self.site}/?crew={i}")
            await call(connected, "browser_run", command=f"js document.cookie = 'crew={i}'")
            self.seeded.add(i)
            if len(self.seeded) == CLIENTS:
                self.all_seeded.set()
            await self.all_seeded.wait()
            self.seen[i] = (await call(connected, "browser_run", command="url"),
                            await call(connected, "browser_run", command="js document.cookie"))
            await self.leave.wait()

    async def wait_seen(self) -> None:
        end = time.monotonic() + 180
        while len(self.seen) < CLIENTS:
            for run in self.runs:
                if run.done():
                    run.result()  # a client that failed says why
            assert time.monotonic() < end, f"only {sorted(self.seen)} of the ten answered"
            await asyncio.sleep(0.2)

    async def close(self) -> None:
        """They leave; one that has not within a minute is cancelled (never a hang)."""
        self.leave.set()
        _, stuck = await asyncio.wait(self.runs, timeout=60)
        for run in stuck:
            run.cancel()
        await asyncio.gather(*self.runs, return_exceptions=True)
        assert not stuck, f"{len(stuck)} MCP client(s) did not leave within a minute"


@asynccontextmanager
async def crewed(url: str, token: str, site: str):
    """The ten MCP clients, getting going meanwhile; gone before their server is."""
    crew = Crew(url, token, site)
    try:
        yield crew
    finally:
        await crew.close()


async def test_a_fleet_watched_called_once_handed_over_and_ten_mcp_clients(
        no_display, sessions, sshd, site, tmp_path):  # noqa: F811
    out = tmp_path / "out"
    out.mkdir()
    told = tmp_path / "told.txt"
    raw = tmp_path / "terminal.bytes"
    agents = {}
    for name, script in (("atlas", STEADY), ("ledger", STEADY), ("zeta", AT_THE_CAPTCHA)):
        agents[name] = tmp_path / f"{name}.sh"
        agents[name].write_text(script)
    agent_env = {"SITE": site.url, "OUT": str(out), "EMAIL": site.email,
                 "PASSWORD": site.password, "CODE": site.mfa_code}

    # "another machine": a socket directory only ssh reaches, and a state of its own
    there = tempfile.mkdtemp(prefix="far", dir="/tmp")
    far_env = {**sessions.env, "XDG_RUNTIME_DIR": there,
               "COCKPIT_STATE_DIR": str(tmp_path / "far-state"), **agent_env,
               "NAME": "ledger"}
    # everything starts at once: the three sessions, the MCP server, the watch
    ledger = Served("ledger", far_env, tmp_path, "--agent", f"sh {agents['ledger']}")
    atlas = sessions("atlas", "--agent", f"sh {agents['atlas']}", **agent_env, NAME="atlas")
    zeta = sessions("zeta", "--agent", f"sh {agents['zeta']}", **agent_env, NAME="zeta")
    tmux = Tmux()
    try:
        user = getpass.getuser()
        remote = f"env XDG_RUNTIME_DIR={there} PYTHONPATH={ROOT} {sys.executable} -m cockpit"
        watch_env = {"XDG_RUNTIME_DIR": sessions.env["XDG_RUNTIME_DIR"],
                     "COCKPIT_STATE_DIR": sessions.env["COCKPIT_STATE_DIR"],
                     "COCKPIT_SSH": ssh_to_localhost(sshd, tmp_path),
                     "COCKPIT_REMOTE": remote, "TERM": "xterm-256color",
                     "XDG_CONFIG_HOME": str(tmp_path / "config")}
        tmux.start([sys.executable, "-m", "cockpit", "watch", "--host",
                    f"ssh://{user}@127.0.0.1", "--notify", NOTIFY.format(file=told)],
                   watch_env, tmp_path / "watch-status")
        # the terminal's bytes as the watch wrote them (tmux itself swallows OSC 9 / 777)
        tmux.tmux("pipe-pane", "-O", "-t", tmux.name, f"cat >> {shlex.quote(str(raw))}")
        async with mcp_server("--no-record") as (_, url, token, _), \
                crewed(url, token, site.url) as crew:  # the ten get going meanwhile

            # the three, the far one named after its host, each with its agent at work
            far = "127.0.0.1:ledger"
            names = (far, "atlas", "zeta")
            await wait_screen(tmux, "the three sessions and their agents", lambda s: all(
                first_line_of(s, n) < NOWHERE for n in names) and len(re.findall(
                    r"headless\s+agent\s+running", s)) == 3, 120)
            screen = tmux.screen()
            assert first_line_of(screen, far) < first_line_of(screen, "atlas") < \
                first_line_of(screen, "zeta"), screen
            assert "NEED A HUMAN" not in screen, screen

            # zeta's agent goes on: it reaches the CAPTCHA, and zeta comes first
            (out / "go").touch()
            challenge = await wait_file(out / "zeta.challenge", zeta)
            assert "needs: captcha" in challenge, challenge
            await wait_screen(tmux, "zeta first, needing a person", lambda s: (
                "1 NEED A HUMAN" in s and "! captcha" in s and
                first_line_of(s, "zeta") < min(first_line_of(s, n) for n in (far, "atlas"))))
            # the agent looks again (the page says its need again) and waits: once the
            # watch shows its waiting, it has had every event since, and called no more
            await wait_screen(tmux, "zeta's agent waiting", lambda s: re.search(
                r"zeta\s+headless\s+agent\s+running\s+url\s", s))
            sent = await asyncio.to_thread(sent_once_written, raw, "zeta needs a human: captcha")
            # called once for the CAPTCHA: the bell, OSC 9 and OSC 777, and --notify; the
            # one-time code page on the way (which its agent passed by itself) was a need
            # of its own, called once too; nobody else was called
            assert re.findall(r"\a\x1b\]9;Cockpit: (\S+) needs a human: (\w+)", sent) == [
                ("zeta", "code"), ("zeta", "captcha")], sent[-3000:]
            assert re.findall(r"\x1b\]777;notify;Cockpit: (\S+) needs a human;(\w+)",
                              sent) == [("zeta", "code"), ("zeta", "captcha")]
            bells = re.sub(r"\x1b\][^\a\x1b]*(\a|\x1b\\)", "", sent).count("\a")
            assert bells == 2  # and no other bell (a BEL that ends an OSC is no bell)
            assert told.read_text().splitlines() == [
                f'zeta|code (input autocomplete="one-time-code")|{site.url}/mfa',
                f"zeta|captcha (element img.captcha)|{site.url}/challenge"]

            # Enter: the full cockpit on zeta; F10 hands the browser over (in the
            # terminal: no display here); the person answers in its prompt; F10 gives it
            # back
            tmux.keys("Enter")
            await wait_screen(tmux, "zeta's cockpit", lambda s: "Command log" in s
                              and "NEEDS A HUMAN" in s and "session zeta" in s)
            tmux.keys("F10")
            await wait_screen(tmux, "the person in control", lambda s: "HUMAN (" in s)
            tmux.type_line(f"fill #answer {site.captcha_answer}")
            await wait_screen(tmux, "the answer typed", lambda s: re.search(
                r"human\s+fill #answer \w+\s+ok", s))
            tmux.type_line("click button.primary")
            await wait_screen(tmux, "the answer sent", lambda s: re.search(
                r"human\s+click button.primary\s+ok", s))
            tmux.keys("F10")
            # the agent carries on and finishes: told what the person changed, its last
            # command succeeds on the page they reached
            last = await wait_file(out / "zeta.last", zeta)
            assert last.strip() == 'ok: the page to show "Inbox"', last
            waited = (out / "zeta.waited").read_text()
            assert "The human had control for" in waited, waited
            assert f"Tab 1: {site.url}/challenge -> {site.url}/inbox" in waited, waited
            assert "Commands they typed: 2" in waited, waited
            assert waited.splitlines()[-1] == f"{site.url}/inbox", waited
            await wait_screen(tmux, "its agent done, in the cockpit",
                              lambda s: "Agent: exited with code 0" in s)
            assert "agent: exited with code 0\n" in zeta.said, zeta.said  # serve said so

            # Escape: back to the watch; nobody needs a person now
            tmux.keys("Escape")
            await wait_screen(tmux, "the watch again", lambda s: "live session" in s
                              and "NEED A HUMAN" not in s and "Command log" not in s)

            # ten MCP clients on one server: a session each, named after it, its page and
            # cookies its own; all ten in the watch, at work
            await crew.wait_seen()
            for i, (where, cookies) in crew.seen.items():
                assert where.strip() == f"{site.url}/?crew={i}", (i, where)
                assert cookies.strip() == f"crew={i}", (i, cookies)  # no one else's
            await wait_screen(tmux, "the ten in the watch", lambda s: all(
                re.search(rf"crew-{i}\s+headless\s+agent\s+no agent\s+js document.cookie", s)
                for i in range(CLIENTS)), 60)
            assert f"{CLIENTS + 3} live session(s)" in tmux.screen(), tmux.screen()

            # the far session is a row like the others: Enter opens its cockpit through
            # ssh (its log, its agent at work there), Escape comes back
            tmux.keys(*["Up"] * (CLIENTS + 3))
            await wait_screen(tmux, "the cursor on the far session", lambda s: re.search(
                rf"^ {re.escape(far)} · 127\.0\.0\.1:", s, re.M))
            tmux.keys("Enter")
            await wait_screen(tmux, "the far session's cockpit", lambda s: "Command log" in s
                              and "session ledger" in s and re.search(
                                  r"agent\s+goto http://127\.0\.0\.1:\d+/p", s)
                              and "Agent: running" in s)
            tmux.keys("Escape")
            await wait_screen(tmux, "the watch again", lambda s: "Command log" not in s
                              and f"{CLIENTS + 3} live session(s)" in s)

            # the other two agents finish too, the far one's seen through ssh
            (out / "finish").touch()
            for served, name in ((atlas, "atlas"), (ledger, "ledger")):
                await wait_file(out / f"{name}.last", served)
            await wait_screen(tmux, "every agent done", lambda s: len(re.findall(
                r"exited with code 0\s+title", s)) == 2 and first_line_of(s, far) < NOWHERE)
            tmux.keys("q")
            end = time.monotonic() + 30
            while not tmux.dead():
                assert time.monotonic() < end, tmux.screen()
                await asyncio.sleep(0.2)
            assert (tmp_path / "watch-status").read_text().strip() == "0", tmux.screen()
    finally:
        tmux.kill()
        ledger.stop()
        shutil.rmtree(there, ignore_errors=True)
