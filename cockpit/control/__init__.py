"""Reaching a live session from outside: the control socket, its protocol and clients.

Only the standard library is imported by `discovery`, `protocol`, `wire`, `line_socket`
and `client` (and the engine's `shell_words`, `names` and `result`), and only its cheapest
modules, so `cockpit exec` (called once per agent step) starts in about a bare Python's
time; `server` runs inside the session's process and may import the engine.
"""
