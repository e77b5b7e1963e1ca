"""A blocking Unix stream socket that reads a line at a time: the blocking client's
connection to a session.

Built on `_socket`, the C half of `socket`: the Python half imports `enum` and
`selectors` (a few milliseconds of every `cockpit exec`) for what this does not use. Its
timeouts are `_socket`'s own: each blocking call gives up after `timeout` seconds with
TimeoutError, as `socket` and its `makefile` did.
"""

from __future__ import annotations

from _socket import AF_UNIX, SOCK_STREAM
from _socket import socket as raw_socket

CHUNK = 64 * 1024  # bytes asked of the kernel a read (below malloc's mmap threshold)


class LineSocket:
    __slots__ = ("_buffer", "_sock")

    def __init__(self) -> None:
        self._sock = raw_socket(AF_UNIX, SOCK_STREAM)  # close-on-exec, as socket's are
        self._buffer = bytearray()  # received, not yet returned

    def settimeout(self, timeout: float | None) -> None:
        """Seconds each later connect, send or read may block; None: no limit."""
        self._sock.settimeout(timeout)

    def connect(self, path: str) -> None:
        self._sock.connect(path)

    def send(self, data: bytes) -> None:
        self._sock.sendall(data)

    def readline(self, limit: int) -> bytes:
        """The next line with its newline, as `readline(limit)` of a file: at most `limit`
        bytes (a longer line comes in pieces); at the end of input what is left, then
        b"" (the peer closed the connection)."""
        buffer = self._buffer
        searched = 0  # bytes of the buffer already known to hold no newline
        while True:
            end = buffer.find(b"\n", searched, limit)
            if end >= 0:
                return self._take(end + 1)
            if len(buffer) >= limit:
                return self._take(limit)
            searched = len(buffer)
            chunk = self._sock.recv(CHUNK)
            if not chunk:
                return self._take(len(buffer))
            buffer += chunk

    def _take(self, size: int) -> bytes:
        line = bytes(self._buffer[:size])
        del self._buffer[:size]
        return line

    def close(self) -> None:
        self._sock.close()
