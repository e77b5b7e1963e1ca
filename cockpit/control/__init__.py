"""Reaching a live session from outside: the control socket, its protocol and clients.

Only the standard library is imported by `paths`, `wire` and `client`, so `cockpit exec`
(called once per agent step) starts in a few milliseconds; `server` runs inside the
session's process and may import the engine.
"""
