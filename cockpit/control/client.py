"""A Python client for a live Cockpit session (started by `cockpit`, `serve` or `demo`).

    from cockpit.client import Cockpit

    with Cockpit() as browser:            # $COCKPIT_SOCKET, else session "default" here
        browser.goto("localhost:8000/login")
        print(browser.snapshot("-i"))
        browser.fill("@e4", "jane@example.com")
        result = browser.run("click @e6")  # a Result: ok, output, error, data, exit_code
        for event in browser.events():     # every event of the session, as it happens
            ...

`AsyncCockpit` (async_client.py) is the same for asyncio code (`async with AsyncCockpit()
as browser`); what both share is here.
`run` returns the Result whatever happened; the named methods raise `CommandFailed` when
the command fails, so a script stops where the page did not do what it expected.
Standard library only (plus `cockpit.core.base.result`), and little of it: `cockpit exec` is
this client, in a new process per agent step. So no `json`, `socket` or `shlex` (they
import `re`, `enum` and `selectors`): the JSON is wire.py's, the connection line_socket.py's,
the quoting core/shell_words.py's; `core.events` only for events.

The named methods (`Commands`) are the registry's commands with its argument names, in
its order: tests/unit/test_client_methods.py checks each against the registry's parser.
"""

from __future__ import annotations

import os

from ..core import Result, join
from . import discovery, wire
from .discovery import Unreachable
from .line_socket import LineSocket
from .protocol import encode

TYPE_CHECKING = False  # not typing's import: this module is on `cockpit exec`'s path
if TYPE_CHECKING:
    from typing import Any, Callable, Generic, Iterator, TypeVar

    from ..core import Event

    R = TypeVar("R")  # what a command method gives back

    class _Returns(Generic[R]):
        """Generic for the type checker only."""
else:
    R = None

    class _Returns:
        """At run time, `_Returns[X]` is the plain class: importing typing would cost
        `cockpit exec` milliseconds for nothing it uses."""

        def __class_getitem__(cls, item: object) -> type:
            return cls

__all__ = ["Cockpit", "CockpitError", "CommandFailed", "Unreachable"]

READ_LIMIT = 256 * 1024 * 1024  # answers may carry a picture or a large page's text
CONNECT_TIMEOUT = 10.0  # seconds for a session to take the connection and the token


class CockpitError(Exception):
    pass


class CommandFailed(CockpitError):
    def __init__(self, result: Result) -> None:
        super().__init__(f"{result.command}: {result.error}")
        self.result = result


def result_of(reply: dict[str, Any]) -> Result:
    return Result(reply.get("command", ""), bool(reply.get("ok")),
                  output=reply.get("output", ""), error=reply.get("error"),
                  ms=reply.get("ms", 0.0), data=reply.get("data") or {},
                  exit_code=reply.get("exit_code", 0 if reply.get("ok") else 1),
                  source=reply.get("source", "agent"))


def event_of(message: dict[str, Any]) -> Event:
    from ..core import Event  # here: its declarations cost every exec ~0.3 ms
    e = message["event"]
    return Event(e["kind"], e.get("data") or {}, e.get("time", 0.0))


def _line(command: str, *args: Any) -> str:
    """The command line a named method sends: its arguments in the registry's order, each
    one word, after `--` when one starts with '-' (text such as "-5" or "--x" is no flag)."""
    words = [str(a) for a in args]
    return join([command, *(["--"] if any(w.startswith("-") for w in words) else []),
                 *words])


def _words(command: str, *words: str) -> str:
    """A command line of flags and words as given (`snapshot -i`, `wait --text Done`)."""
    return join([command, *words])


def hello(info: discovery.LiveInfo, client: str) -> bytes:
    return encode({"token": info.token, "client": client})


def welcomed(reply: dict[str, Any], info: discovery.LiveInfo) -> int:
    """The session's protocol version, once it accepted us."""
    if not reply.get("ok"):
        raise Unreachable(f"session {info.session!r} refused the connection: "
                          f"{reply.get('error')}")
    version = reply.get("protocol", 1)
    return version if isinstance(version, int) else 1


def run_fields(command: str, source: str, timeout: float | None,
                protocol: int, relayed: bool = False) -> dict[str, Any]:
    fields: dict[str, Any] = {"command": command, "source": source}
    if timeout is not None:
        fields["timeout"] = timeout
    if relayed and protocol >= 3:  # an older session records it as a command of its own
        fields["relayed"] = True
    if protocol >= 2:  # an older session refuses the field
        try:  # `screenshot shot.png` lands here, not in the session's directory
            fields["cwd"] = os.getcwd()
        except OSError:  # our directory was deleted: the session's own is used
            pass
    return fields


class Commands(_Returns[R]):
    """The common commands as methods; each raises CommandFailed when it fails.

    Each method is the registry's command of the same name, its parameters the command's
    arguments by name and in order (tests/unit/test_client_methods.py parses every method's
    line with the registry to check it); `snapshot` and `wait` take their flags as words.
    R is what a command gives back: a Result, or (AsyncCockpit) a coroutine of one."""

    def _checked(self, line: str) -> R:
        raise NotImplementedError

    def goto(self, url: str) -> R:
        return self._checked(_line("goto", url))

    def snapshot(self, *flags: str) -> R:
        return self._checked(_words("snapshot", *flags))

    def click(self, target: str) -> R:
        return self._checked(_line("click", target))

    def fill(self, target: str, text: str) -> R:
        return self._checked(_line("fill", target, text))

    def type(self, target: str, text: str) -> R:
        return self._checked(_line("type", target, text))

    def press(self, key: str, target: str | None = None) -> R:
        """`press KEY [TARGET]`: the key (Enter, Control+a ...) on the target, or on the
        focused element."""
        return self._checked(_line("press", key, *([target] if target else [])))

    def select(self, target: str, *options: str) -> R:
        return self._checked(_line("select", target, *options))

    def check(self, target: str) -> R:
        return self._checked(_line("check", target))

    def text(self, target: str | None = None) -> R:
        return self._checked(_line("text", *([target] if target else [])))

    def title(self) -> R:
        return self._checked("title")

    def url(self) -> R:
        return self._checked("url")

    def tabs(self) -> R:
        return self._checked("tabs")

    def tab(self, n: int) -> R:
        return self._checked(_line("tab", n))

    def js(self, code: str) -> R:
        return self._checked(_line("js", code))

    def wait(self, *conditions: str) -> R:
        return self._checked(_words("wait", *conditions))


class Cockpit(Commands[Result]):
    """A blocking client: one connection, one request at a time."""

    def __init__(self, session: str | None = None, *, socket_path: str | None = None,
                 source: str = "agent", client: str = "python",
                 on_waiting: Callable[[str], None] | None = None,
                 connect_timeout: float = CONNECT_TIMEOUT) -> None:
        self.source = source
        self.on_waiting = on_waiting  # told why a command waits (say, a human has control)
        self._ids = 0
        self.protocol = 1  # the session's, told in its welcome
        self._conn: LineSocket | None = None
        self._conn_to = ""  # the socket _conn is connected to
        self._connect_timeout = connect_timeout
        try:  # finding the session probes its socket: the probe is our connection
            self.info = discovery.find(session, socket_path, probe=self._probe)
        except BaseException:
            self.close()
            raise
        try:  # bounded: a session that accepts and never answers must not hang us
            if self._conn_to != self.info.socket:  # the probe could not tell (it is busy)
                self.close()
                self._conn = LineSocket()
                self._conn.settimeout(connect_timeout)
                self._conn.connect(self.info.socket)
            self._send_raw(hello(self.info, client))
            self.protocol = welcomed(self._receive(connect_timeout), self.info)
        except TimeoutError:  # connect's, or _receive's
            self.close()
            raise Unreachable(f"session {self.info.session!r} did not answer within "
                              f"{connect_timeout:g} s at {self.info.socket}: it may be "
                              f"stuck; restart the cockpit that runs it") from None
        except OSError as exc:
            self.close()
            raise Unreachable(f"session {self.info.session!r} did not answer at "
                              f"{self.info.socket}: {exc}") from None
        except BaseException:  # refused, or not our protocol: no socket left behind
            self.close()
            raise

    def _probe(self, sock: str) -> bool | None:
        """discovery.answers(sock), told by connecting for good: a session would serve
        the probe's connection and then ours; the connection to the socket found is kept."""
        self.close()  # one to an earlier socket, that had no .json to go with it
        conn = LineSocket()
        try:
            conn.settimeout(self._connect_timeout)
            conn.connect(sock)
        except (ConnectionRefusedError, FileNotFoundError):
            conn.close()
            return False
        except OSError:  # EAGAIN: a busy session is still a live one (tried again above)
            conn.close()
            return None
        self._conn, self._conn_to = conn, sock
        return True

    @property
    def session(self) -> str:
        return self.info.session

    def _connected(self) -> LineSocket:
        if self._conn is None:
            raise Unreachable(f"not connected to session {self.session!r}")
        return self._conn

    def _send_raw(self, data: bytes) -> None:
        conn = self._connected()
        try:
            conn.send(data)
        except OSError as exc:  # reset, broken pipe: the session is gone or refused us
            raise Unreachable(f"session {self.session!r} broke the connection: "
                              f"{exc}") from None

    def _receive(self, timeout: float | None = None) -> dict[str, Any]:
        conn = self._connected()
        conn.settimeout(timeout)
        try:
            line = conn.readline(READ_LIMIT)
        except TimeoutError:
            raise TimeoutError(f"no answer from session {self.session!r} within "
                               f"{timeout:g} s") from None
        except OSError as exc:
            raise Unreachable(f"session {self.session!r} broke the connection: "
                              f"{exc}") from None
        if not line:
            raise Unreachable(f"session {self.session!r} closed the connection (it ended)")
        try:
            reply: dict[str, Any] = wire.loads(line)
        # wire.JSONDecodeError (json's) is looked up only when an exception gets this far
        except wire.JSONDecodeError as exc:
            raise Unreachable(f"the session sent a reply that is not JSON ({exc}): the "
                              f"socket may not be a Cockpit session's") from None
        return reply

    def request(self, op: str, *, wait: float | None = None, **fields: Any) -> dict[str, Any]:
        """Send one request and return its answer; `wait`: at most so many seconds."""
        self._ids += 1
        self._send_raw(encode({"id": self._ids, "op": op, **fields}))
        while True:
            reply = self._receive(wait)
            if reply.get("id") is None and reply.get("ok") is False:
                return reply  # the session could not read the request (one is in flight)
            if reply.get("id") != self._ids:
                continue
            if "waiting" in reply and "ok" not in reply:  # a notice; the answer follows
                if self.on_waiting is not None:
                    self.on_waiting(reply["waiting"])
                continue
            return reply

    def run(self, command: str, *, timeout: float | None = None) -> Result:
        """Run one command line. `timeout` bounds the wait for its turn (exit code 4 past
        it); the answer itself is awaited a minute longer at most."""
        fields = run_fields(command, self.source, timeout, self.protocol)
        reply = self.request("run", wait=None if timeout is None else timeout + 60, **fields)
        return result_of(reply)

    def _checked(self, line: str) -> Result:
        result = self.run(line)
        if not result.ok:
            raise CommandFailed(result)
        return result

    def state(self) -> dict[str, Any]:
        state: dict[str, Any] = self.request("state")["data"]
        return state

    def events(self, history: bool = False) -> Iterator[Event]:
        """The session's events from now on (`history`: the kept command and agent events
        first), on a connection of their own, until the session ends."""
        with Cockpit(socket_path=str(self.info.socket), client="events") as other:
            other._ids += 1
            other._send_raw(encode({"id": other._ids, "op": "subscribe", "history": history}))
            other._receive()
            while True:
                try:
                    message = other._receive()
                except Unreachable:
                    return
                if "event" in message:
                    yield event_of(message)

    def close(self) -> None:
        conn, self._conn, self._conn_to = self._conn, None, ""
        if conn is not None:
            try:
                conn.close()
            except OSError:
                pass  # a session that is gone: nothing left to close

    def __enter__(self) -> Cockpit:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
