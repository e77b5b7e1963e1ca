"""The control socket's JSON (cockpit/control/wire.py) is the json module's, exactly:
the same values both ways, the same bytes on the socket, the same errors for bad input;
and the small pieces `cockpit exec` uses instead of shlex and a regex agree with them."""

from __future__ import annotations

import json
import math
import os
import random
import re
import shlex
import socket
import subprocess
import sys

import pytest

from cockpit.control import discovery, wire
from cockpit.control.line_socket import LineSocket
from cockpit.control.protocol import ProtocolError, check_request, decode, encode
from cockpit.core.language.shell_words import join, quote
from cockpit.core.base.terminal import show_controls, visible

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def same(a, b) -> bool:
    """Equal, NaN included (NaN != NaN), and of the same types all the way down."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a):
        return math.isnan(b)
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b


def outcome(function, data):
    try:
        return "value", function(data)
    except Exception as exc:  # noqa: BLE001  the error is what is compared
        return type(exc), str(exc)


def assert_loads_like_json(data) -> None:
    ours, theirs = outcome(wire.loads, data), outcome(json.loads, data)
    assert ours[0] == theirs[0], (data, ours, theirs)
    if ours[0] == "value":
        assert same(ours[1], theirs[1]), (data, ours, theirs)
    else:
        assert ours[1] == theirs[1], (data, ours, theirs)


def json_dumps(value, **kwargs) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), **kwargs)


# --- decoding ----------------------------------------------------------------------------
GOOD = [
    '{"ok": true, "session": "default", "protocol": 2, "pid": 4242}',
    '{"id": 1, "ok": true, "command": "title", "output": "bench", "error": null, '
    '"ms": 2.4, "data": {"title": "bench"}, "exit_code": 0}\n',
    '  \t{"a": [1, 2.5, -0.0, 1e400, -1e400, 1E-7, 12345678901234567890123]} \r\n ',
    '[NaN, Infinity, -Infinity]', "NaN", "-Infinity", '"text"', "3", "-0", "0.1", "true",
    "null", '"caf\u00e9 \u2014 \u65e5\u672c\u8a9e \U0001f600"',
    r'"\u00e9\ud83d\ude00\u2028\n\t\"\\\/\b\f\r\u0000\u001b"',
    r'"\ud800 lone, \udfff lone, \ud800\ud800 two highs"',  # as the session encodes them
    '{"a": {"b": {"c": [[], {}, [[[{"d": null}]]]]}}}', '{"k": 1, "k": 2}',
    '{"" : ""}', "[" * 200 + "]" * 200, "9" * 4300, "-" + "9" * 4300,
]
BAD = [
    "", " ", "\n", "{", '{"a": 1', '{"a": 1}}', '{"a": 1} x', "[1,]", '{"a" 1}', "{'a': 1}",
    "nan", "inf", "+1", "01", "1.", ".5", "tru", '"unterminated', '"bad \\x escape"',
    '"raw \x1b control"', '"raw\nnewline"', r'"\ud83d\udZZZ"', "\ufeff{}", "[1] [2]",
    "9" * 4301, '{"a": ' + "9" * 5000 + "}", "[" * 100_000 + "]" * 100_000,
]


@pytest.mark.parametrize("text", GOOD + BAD)
def test_loads_gives_what_json_gives_for_text_and_utf8_bytes(text):
    assert_loads_like_json(text)
    assert_loads_like_json(text.encode("utf-8", "surrogatepass"))
    assert_loads_like_json(bytearray(text.encode("utf-8", "surrogatepass")))


@pytest.mark.parametrize("data", [
    b"\xef\xbb\xbf{\"a\": 1}",  # a UTF-8 BOM: json takes it off bytes
    '{"a": "\u00e9"}'.encode("utf-16"), '{"a": "\u00e9"}'.encode("utf-16-le"),
    '{"a": "\u00e9"}'.encode("utf-16-be"), '{"a": "\u00e9"}'.encode("utf-32"),
    '{"a": 1}'.encode("utf-32-le"), "1".encode("utf-16-le"), "1".encode("utf-16-be"),
    b"1", b"\x00", b"", b'"\xff not utf-8"', b'"\xed\xa0\x80"',  # a surrogate, surrogatepass
    b'{"a": "\xc3"}', 42, None, ["[]"],  # not str, bytes or bytearray: json's TypeError
])
def test_loads_gives_what_json_gives_for_other_encodings_and_types(data):
    assert_loads_like_json(data)


def test_loads_and_dumps_round_trip_random_data_as_json_does():
    rng = random.Random(17)
    alphabet = ("abc \u00e9\u2028\u2029\U0001f600\x00\x1b\x7f\x85\"\\/\n\t"
                "\ud800\udc00\udbff\udfff")  # lone surrogates: a page's JS string can hold them

    def text() -> str:
        return "".join(rng.choice(alphabet) for _ in range(rng.randrange(12)))

    def value(depth: int = 0):
        kind = rng.randrange(9 if depth < 4 else 6)
        if kind == 0:
            return rng.choice([None, True, False])
        if kind == 1:
            return rng.randrange(-10**30, 10**30)
        if kind == 2:
            return rng.choice([rng.uniform(-1e6, 1e6), 1e300 * rng.random(), -0.0,
                               float("nan"), float("inf"), float("-inf"), 5e-324])
        if kind in (3, 4, 5):
            return text()
        if kind in (6, 7):
            return {text(): value(depth + 1) for _ in range(rng.randrange(5))}
        return [value(depth + 1) for _ in range(rng.randrange(5))]

    for _ in range(2000):
        data = value()
        dumped = wire.dumps(data)
        assert dumped == json_dumps(data)
        assert wire.dumps(data, default=str) == json_dumps(data, default=str)
        line = encode({"data": data})  # what the session writes: surrogates escaped
        assert same(decode(line)["data"], json.loads(line)["data"])
        assert same(wire.loads(dumped), json.loads(dumped))


# --- encoding ----------------------------------------------------------------------------
class Thing:
    def __str__(self) -> str:
        return "a thing"


@pytest.mark.parametrize("value", [
    {"ok": True, "output": "caf\u00e9\n\x1b[2J\u2028", "ms": 41.2, "data": {"diff": [1, 2]}},
    "plain", "\ud800", "", 0, -1, 10**40, 1.0, -0.0, 1e-7, 1e22, 5e-324, float("nan"),
    float("inf"), float("-inf"), True, None, [], {}, [[[]]], (1, "tuple"),
    {1: "int key", 2.5: "float key", False: "bool key", None: "None key"},
    {"nested": [{"a": [None, {"b": "\U0001f600"}]}]},
])
def test_dumps_writes_what_json_writes(value):
    assert wire.dumps(value) == json_dumps(value)
    assert wire.dumps(value, separators=(", ", ": ")) == json.dumps(value, ensure_ascii=False)


def test_dumps_fails_as_json_fails_and_default_str_is_json_default_str():
    loop: list = []
    loop.append(loop)
    for bad in (Thing(), {"a": {1, 2}}, {(1, 2): "tuple key"}, loop, b"bytes"):
        assert outcome(wire.dumps, bad) == outcome(json_dumps, bad)
    for odd in (Thing(), {"a": Thing()}, [b"bytes", {1}]):
        assert wire.dumps(odd, default=str) == json_dumps(odd, default=str)
    # a failed encoding leaves nothing behind for the next (json's circular check)
    holder = {"x": [1]}
    assert wire.dumps([holder, holder]) == json_dumps([holder, holder])


def test_the_socket_sees_the_bytes_it_saw_before():
    """protocol.encode was json.dumps(..., ensure_ascii=False, separators=(",", ":"),
    default=str) + a newline, UTF-8 with lone surrogates as backslash escapes."""
    message = {"id": 1, "ok": True, "output": "\ud800 caf\u00e9 \U0001f600\x1b", "data": {
        "path": Thing(), "n": 1e400}}
    before = (json.dumps(message, ensure_ascii=False, separators=(",", ":"), default=str)
              + "\n").encode("utf-8", errors="backslashreplace")
    assert encode(message) == before
    back = decode(before)
    assert back["output"] == "\ud800 caf\u00e9 \U0001f600\x1b" and back["data"]["n"] == math.inf


@pytest.mark.parametrize("line", [b"not json\n", b"{\"a\": 1} 2\n", b"\xff\n", b"[1]\n", b"\n",
                                  b"[" * 100_000 + b"]" * 100_000 + b"\n"])
def test_bad_lines_get_the_protocol_errors_they_got_with_json(line):
    def old_decode(line: bytes):  # protocol.decode as it was, on json
        try:
            message = json.loads(line)
        except (ValueError, UnicodeDecodeError) as exc:
            raise ProtocolError(f"not JSON ({exc}): send one JSON object a line, like "
                                '{"id": 1, "command": "snapshot -i"}') from None
        except RecursionError:
            raise ProtocolError("JSON nested too deeply: send one flat JSON object a line"
                                ) from None
        if not isinstance(message, dict):
            raise ProtocolError(f"expected a JSON object, got {type(message).__name__}")
        return message
    assert outcome(decode, line) == outcome(old_decode, line)


def test_a_timeout_too_large_for_a_float_is_refused_not_a_crash():
    for timeout in (10**400, float("nan"), float("inf"), 0, -1, True, "30"):
        with pytest.raises(ProtocolError, match='"timeout" must be a finite number'):
            check_request({"id": 1, "command": "title", "timeout": timeout})
    assert check_request({"id": 1, "command": "title", "timeout": 10**300})[0] == "run"


def run_python(code: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-S", "-c", code, *args], text=True,
                          capture_output=True, timeout=60, check=False,
                          env={**os.environ, "PYTHONPATH": ROOT})


def test_json_is_imported_for_bad_input_only_and_its_errors_are_json_s():
    done = run_python(
        "import sys; from cockpit.control import wire, protocol\n"
        "line = protocol.encode({'id': 1, 'output': 'caf\\u00e9', 'n': [1.5, None]})\n"
        "assert protocol.decode(line) == {'id': 1, 'output': 'caf\\u00e9', 'n': [1.5, None]}\n"
        "print('json' in sys.modules, 're' in sys.modules)\n"
        "try:\n"
        "    wire.loads(b'{oops}')\n"
        "except wire.JSONDecodeError as exc:\n"
        "    import json; print(type(exc) is json.JSONDecodeError, exc)\n")
    assert done.stdout.splitlines() == [
        "False False",
        "True Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"
    ], done.stderr


def test_without_the_c_accelerator_json_does_it_all():
    done = run_python(
        "import sys; sys.modules['_json'] = None  # as on a Python without it\n"
        "import json; from cockpit.control import wire\n"
        "assert wire._scan is None\n"
        "v = {'a': [1, 2.5, None, 'caf\\u00e9', float('inf')]}\n"
        "assert wire.dumps(v) == json.dumps(v, ensure_ascii=False, separators=(',', ':'))\n"
        "assert wire.loads(wire.dumps(v).encode()) == v\n"
        "print('ok')\n")
    assert done.stdout.strip() == "ok", done.stderr


# --- shell words, control characters, session names, lines -------------------------------
WORDS = ["", "a", "@e3", "snapshot", "-i", "a b", "it's", "\"q\"", "$HOME", "a;b", "x*",
         "caf\u00e9", "\u0663", "ab\n", "\t", "%+,-./:=@_", "~user", "a'b'c", "!", "#c",
         "\uff41", "ß", "\x00"]


def test_quote_and_join_are_shlex_s():
    rng = random.Random(5)
    alphabet = "aZ09_@%+=:,./-'\" $\\!*?~#;&|()<>[]{}\n\t\u00e9\u0663\uff41"
    words = WORDS + ["".join(rng.choice(alphabet) for _ in range(rng.randrange(8)))
                     for _ in range(3000)]
    for word in words:
        assert quote(word) == shlex.quote(word), word
    # join is shlex.join but for a lone secret reference, left for the session to expand
    assert join(WORDS) == shlex.join(WORDS).replace("'$HOME'", "$HOME")
    assert shlex.split(join(["fill", "@e4", "a b", "it's"])) == ["fill", "@e4", "a b", "it's"]
    for word in ["$PASSWORD", "${PASSWORD}", "$_x1", "$1", "$", "${}", "$a b", "$a-b",
                 "x$A", "$caf\u00e9", "${A"]:
        bare = word in ("$PASSWORD", "${PASSWORD}", "$_x1")
        assert join([word]) == (word if bare else shlex.quote(word)), word


def test_a_joined_line_is_the_same_words_to_the_session():
    """Every face quotes with join; the session splits the line back into the words, and
    a secret given as `$NAME` reaches the page whole, quotes and spaces included."""
    from cockpit.core.language.parser import split_words
    from cockpit.core.secrets.secrets import Secrets
    rng = random.Random(7)
    alphabet = "aZ09_@%+=:,./-'\" $\\!*?~#;&|()<>[]{}\t\u00e9\u0663\uff41"
    for _ in range(2000):
        words = ["fill"] + ["".join(rng.choice(alphabet) for _ in range(rng.randrange(1, 8)))
                            for _ in range(rng.randrange(1, 4))]
        assert split_words(join(words)) == words, words
    secrets = Secrets()
    secrets.add("PASSWORD=it's a \"pass\"")
    line = join(["fill", "@e4", "$PASSWORD"])
    assert split_words(secrets.expand(line)) == ["fill", "@e4", "it's a \"pass\""]


CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def old_visible(text: str) -> str:  # core/terminal.py as it was, on a regex
    def picture(match: re.Match[str]) -> str:
        code = ord(match.group())
        if code < 0x20:
            return chr(0x2400 + code)
        return "␡" if code == 0x7F else f"\\x{code:02x}"
    if "\r\n" in text:
        text = text.replace("\r\n", "\n")
    return CONTROLS.sub(picture, text)


def test_visible_shows_what_it_showed_with_a_regex():
    every = "".join(chr(code) for code in range(0x200)) + "\ud800\u2028\U0001f600\r\n"
    rng = random.Random(3)
    samples = [every, "", "plain ascii\n\ttab", "caf\u00e9 \u65e5\u672c", "\x1b[2J\x07",
               "\u0085 next line", "\xa0\xc2 no C1", "a\r\nb\rc", "\u0080\u009f\u00a0"]
    samples += ["".join(rng.choice(every) for _ in range(rng.randrange(40)))
                for _ in range(3000)]
    for text in samples:
        assert visible(text) == old_visible(text), repr(text)
        assert show_controls(text) == CONTROLS.sub(
            lambda m: old_visible(m.group()), text), repr(text)


def test_session_names_are_checked_as_the_regex_checked_them():
    name = re.compile(r"[A-Za-z0-9_.-]{1,64}")
    for candidate in ["default", "a", "a" * 64, "a" * 65, "", ".", "..", "...", "a b",
                      "caf\u00e9", "\u0663", "\uff41", "x\n", "\nx", "x/y", "-", "_.-", "A-Z.09",
                      "name\x00", "tab\t"]:
        if name.fullmatch(candidate) and candidate not in (".", ".."):
            assert discovery.check_name(candidate) == candidate
        else:
            with pytest.raises(ValueError):
                discovery.check_name(candidate)


@pytest.mark.parametrize("chunks, limit", [
    ([b'{"a": 1}\n{"b": 2}\n'], 1000),                    # two lines in one read
    ([b'{"a"', b": 1", b"}\n", b"rest"], 1000),           # a line over reads; no newline at EOF
    ([b"x" * 70_000 + b"\n" + b"y" * 10], 1000),          # lines longer than the limit
    ([b"abc\n"], 4), ([b"abc\n"], 3), ([b"\n\n\n"], 10), ([], 10),
])
def test_a_line_socket_reads_lines_as_a_socket_file_does(chunks, limit):
    def lines_of(read) -> list[bytes]:
        out = []
        while line := read(limit):
            out.append(line)
        return out

    def feed(sock: socket.socket) -> None:
        for chunk in chunks:
            sock.sendall(chunk)
        sock.close()

    ours_a, ours_b = socket.socketpair(socket.AF_UNIX)
    theirs_a, theirs_b = socket.socketpair(socket.AF_UNIX)
    feed(ours_b)
    feed(theirs_b)
    conn = LineSocket()
    conn.close()
    conn._sock = ours_a  # a connected end, as connect() would give
    conn.settimeout(5)
    with theirs_a, theirs_a.makefile("rb") as file:
        assert lines_of(conn.readline) == lines_of(file.readline)
    conn.close()
