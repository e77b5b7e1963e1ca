"""Recordings: every step of a session as JSON lines (recorder), read back tolerantly
(reader), replayed against a new session (replay) and exported as a test (export)."""
