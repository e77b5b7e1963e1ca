"""The control socket's JSON, straight on CPython's C accelerator `_json`.

`json` itself costs `cockpit exec` (a new process per agent step) more than the rest of
its imports: its Python half imports `re`, which compiles patterns at import. Here the
same C scanner and encoder that `json.loads` and `json.dumps` run are driven directly:

- `loads(data)` is `json.loads(data)`: the same values, and for input it refuses, the
  same exception with the same message, because anything the fast path does not take
  plainly (a parse error, data after the value, a BOM, UTF-16/32 bytes) is handed to
  `json.loads` itself, imported then. Only bad input pays for `json` (and parses twice).
- `dumps(obj)` is `json.dumps(obj, ensure_ascii=False, separators=(",", ":"))` (other
  separators and a `default` as json's): json.dumps builds this very C encoder with
  these arguments and joins its chunks.

Where `_json` is missing (another Python) or differs in a way we do not know, both are
`json`'s own, imported then. Standard library only: `cockpit exec` imports this.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's import: this module is on `cockpit exec`'s path
if TYPE_CHECKING:
    from typing import Any, Callable

# json's whitespace between tokens (its decoder's WHITESPACE pattern, without the regex)
WHITESPACE = " \t\n\r"
COMPACT = (",", ":")
NAN, INFINITY = float("nan"), float("inf")


class _Defaults:
    """What `_json.make_scanner` reads from its context (a json.JSONDecoder): json.loads'
    defaults. NaN, Infinity and -Infinity parse as json's do (its `_CONSTANTS`)."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    array_hook = None  # read by Python 3.15's scanner; None there means a list, as before
    parse_float = float
    parse_int = int
    parse_constant = {"NaN": NAN, "Infinity": INFINITY, "-Infinity": -INFINITY}.__getitem__


try:
    from _json import encode_basestring, make_encoder, make_scanner

    _scan: Callable[[str, int], tuple[Any, int]] | None = make_scanner(_Defaults())  # type: ignore[arg-type]
except (ImportError, AttributeError, TypeError):  # no C accelerator, or one we do not know
    _scan = None


def _json_loads(data: str | bytes | bytearray) -> Any:
    import json  # here: only for what the fast path leaves (bad input, other encodings)
    return json.loads(data)


def loads(data: str | bytes | bytearray) -> Any:
    """`json.loads(data)`: the same value, or the same exception."""
    if _scan is None:
        return _json_loads(data)
    if isinstance(data, (bytes, bytearray)):
        # json.loads guesses UTF-16/32 from NUL bytes at the start and honours BOMs; a
        # first byte that is ASCII (not NUL) and a second that is not NUL mean UTF-8
        if len(data) < 2 or not (0 < data[0] < 0x80 and data[1]):
            return _json_loads(data)
        text = data.decode("utf-8", "surrogatepass")  # as json.loads decodes it
    elif isinstance(data, str) and not data.startswith("\ufeff"):  # json refuses a BOM
        text = data
    else:
        return _json_loads(data)  # its TypeError or its BOM error
    try:
        value, end = _scan(text, len(text) - len(text.lstrip(WHITESPACE)))
    except (StopIteration, ValueError, RecursionError, SystemError):
        # no value, a syntax error, a number past int's digit limit, too deep: json's own
        # error, from json. (SystemError: 3.11's scanner raises its JSONDecodeError only
        # when json.decoder is loaded already, and fails without saying why otherwise.)
        return _json_loads(data)
    if text[end:].lstrip(WHITESPACE):
        return _json_loads(data)  # "Extra data"
    return value


def _not_serializable(value: Any) -> Any:
    # json.JSONEncoder.default's message, word for word
    raise TypeError(f"Object of type {value.__class__.__name__} is not JSON serializable")


def dumps(obj: Any, *, separators: tuple[str, str] = COMPACT,
          default: Callable[[Any], Any] | None = None) -> str:
    """`json.dumps(obj, ensure_ascii=False, separators=separators, default=default)`."""
    if _scan is None:
        import json  # here: only where there is no C accelerator
        return json.dumps(obj, ensure_ascii=False, separators=separators, default=default)
    # a new encoder per call, as json.dumps makes: its `markers` (the circular-reference
    # check) keeps the ids of what an encoding that failed was inside
    encode = make_encoder({}, default or _not_serializable, encode_basestring, None,
                          separators[1], separators[0], False, False, True)
    return "".join(encode(obj, 0))


def __getattr__(name: str) -> Any:
    # `except wire.JSONDecodeError:` looks this up only when an exception reaches that
    # clause, so json is imported for a reply that failed to parse, never on success
    if name == "JSONDecodeError":
        from json import JSONDecodeError
        return JSONDecodeError
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
