"""Fuzzed lines through `cockpit run --json`: every line gets exactly one JSON answer, no
traceback, no internal error, and the exit code is one the contract names.

The lines are made from the registry (every command name and alias, its flags, its
argument kinds) mixed with bad flags, unbalanced quotes, unicode, control bytes, shell
metacharacters, refs and arguments up to 100 KB. Targets are refs or selectors that
fail at once, so no line waits out a timeout. COCKPIT_FUZZ_SEED and COCKPIT_FUZZ_LINES
change the seed (default 16) and the number of lines (default 2,000)."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys

import pytest

from cockpit.core import REGISTRY

COCKPIT = [sys.executable, "-m", "cockpit"]
SEED = int(os.environ.get("COCKPIT_FUZZ_SEED", "16"))
LINES = int(os.environ.get("COCKPIT_FUZZ_LINES", "2000"))
# Commands a fuzzed line must not run: a person's (handoff waits for one), a wait (a bare
# number is milliseconds), a viewport of random size (a 10⁶-pixel page is not a bug)
SKIPPED = {"handoff", "resume", "wait", "viewport"}

REFS = ["@e1", "e2", "ref=e3", "@f1e2", "@e99999", "@e", "@", "ref=", "@e1e1", "@E1",
        "@e-1", "@e0", "@e٣"]
UNICODE = ["é", "日本語", "🙂", "\u202e", "e\u0301", "\u00a0", "\ufeff", "\U0001d518", "ß",
           "İ"]
CONTROL = [chr(c) for c in range(32) if chr(c) not in "\n\r"] + [
    "\x7f", "\x1b[2J", "\x1b]0;x\x07", "\x1b]52;c;eA==\x07"]
SHELL = ["$(rm -rf /)", "`id`", ";", "|", "&&", ">", "<", "$HOME", "${X}", "*", "~",
         "'", '"', "\\", "#", "!", "$"]
NUMBERS = ["0", "-1", "1e309", "NaN", "Infinity", "-Infinity", "99999999999999999999",
           "1.5", "0x10", "", "5"]
URLS = ["about:blank", "data:text/html,<p>x</p>", "http://", "://", "http://[::1",
        "javascript:alert(1)", "file:///nonexistent", "about:blank#" + "x" * 50]


def word(rng: random.Random) -> str:
    pool = rng.choice([REFS, UNICODE, CONTROL, SHELL, NUMBERS])
    w = rng.choice(pool)
    if rng.random() < 0.1:
        w += "".join(rng.choice(UNICODE + CONTROL) for _ in range(rng.randint(1, 8)))
    return w


def huge(rng: random.Random) -> str:
    size = rng.choice([1_000, 10_000, 100_000])
    return "".join(rng.choice("ab é🙂\"'\\$") for _ in range(size // 4)) * 4


def quoted(rng: random.Random, text: str) -> str:
    style = rng.random()
    if style < 0.3:
        return '"' + text.replace('"', '\\"') + '"'
    if style < 0.5:
        return "'" + text.replace("'", "") + "'"
    if style < 0.6:
        return rng.choice(['"', "'"]) + text  # unbalanced
    return text


def argument(rng: random.Random, kind: str) -> str:
    if kind == "target":  # a selector would wait for its element: a ref answers at once
        return rng.choice(REFS)
    if kind == "url":
        return rng.choice(URLS)
    if kind == "int":
        return rng.choice(NUMBERS)
    if kind == "file":
        return rng.choice(["./", "/proc/self/environ", "/nonexistent/x", "out.png",
                           "x.pdf", "state.json", "/dev/null", "."])
    if rng.random() < 0.03:
        return quoted(rng, huge(rng))
    return quoted(rng, word(rng))


def line(rng: random.Random, names: list[str]) -> str:
    roll = rng.random()
    if roll < 0.08:  # not a command at all
        return " ".join(word(rng) for _ in range(rng.randint(1, 4)))
    name = rng.choice(names)
    if roll < 0.14:  # a near miss
        name = name[:-1] + rng.choice("xz") if len(name) > 2 else name + "x"
    spec = REGISTRY.get(name)
    words = [name]
    if spec is not None:
        for arg in spec.args:
            kind = "target" if spec.name == "scroll" else arg.kind  # WHERE may be one
            if kind == "target" or rng.random() < 0.8:  # a missing target: the next
                words.append(argument(rng, kind))          # word would be one

        for flag in spec.flags:
            if rng.random() < 0.2:
                words.append(rng.choice([flag.name, flag.short or flag.name]))
                if flag.value and rng.random() < 0.9:
                    words.append(argument(rng, "int" if flag.kind == "int" else "text"))
    if rng.random() < 0.15:  # a flag nobody declared
        words.append(rng.choice(["--bogus", "-z", "--", "-", "--timeout", "--=x"]))
    if rng.random() < 0.15:
        words.append(word(rng))
    text = " ".join(words)
    if "while" in text or "for(" in text:  # nothing that runs for ever
        text = name
    return text


def lines(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    names = [n for n in REGISTRY.words() if n not in SKIPPED
             and REGISTRY.get(n).name not in SKIPPED]
    return [line(rng, names) for _ in range(count)]


@pytest.mark.slow
def test_fuzzed_lines_each_get_one_json_answer(tmp_path, site):
    generated = [f"goto {site.url}/login", "snapshot -i", *lines(LINES, SEED)]
    script = tmp_path / "fuzz.txt"
    script.write_text("\n".join(generated) + "\n", encoding="utf-8", errors="surrogatepass")
    expected = [x for x in generated if x.strip() and not x.strip().startswith("#")]
    with script.open("rb") as stdin:
        done = subprocess.run(COCKPIT + ["run", "--json", "--no-record", "--session",
                                         f"fuzz-{SEED}"],
                              stdin=stdin, capture_output=True, timeout=600, cwd=tmp_path,
                              check=False)
    stderr = done.stderr.decode("utf-8", "replace")
    assert "Traceback" not in stderr, stderr[-3000:]
    answers = [json.loads(x) for x in done.stdout.decode("utf-8").splitlines()]
    assert len(answers) == len(expected), stderr[-2000:]
    internal = [(x, a["error"]) for x, a in zip(expected, answers)
                if "internal error" in (a["error"] or "").lower()]
    assert not internal, internal[:5]
    for answer in answers:
        assert answer["ok"] == (answer["error"] is None)
        assert len(answer["error"] or "") < 2_000  # long input is cut to an excerpt
    assert done.returncode in (0, 1, 2)  # everything ran / a command failed / usage
    assert done.returncode == (0 if all(a["ok"] for a in answers) else done.returncode)
