"""In-memory state of the demo site: sessions, their sign-in progress and their inboxes."""

from __future__ import annotations

import itertools
import secrets
import threading
from dataclasses import dataclass, field
from typing import TypedDict

# Each new session starts with this inbox, newest first.
STARTER_MESSAGES = [
    ("Ada Lovelace", "Notes on the Analytical Engine"),
    ("Grace Hopper", "Compiler meeting moved to Thursday"),
    ("Alan Turing", "Lunch on Friday?"),
    ("Billing", "Your invoice for March"),
]

# "Check for new mail" cycles through these so every new message is distinct.
NEW_MAIL = [
    ("Margaret Hamilton", "Launch checklist review"),
    ("Edsger Dijkstra", "Re: goto considered harmful"),
    ("Barbara Liskov", "Substitution examples for the talk"),
    ("Donald Knuth", "Typo in chapter 3"),
    ("Radia Perlman", "Spanning tree diagrams"),
    ("Ken Thompson", "Shell scripts for the build"),
]


class MessageJson(TypedDict):
    id: int
    sender: str
    subject: str


class InboxSnapshot(TypedDict):
    """The inbox as the page's script reads it (JSON-ready)."""

    messages: list[MessageJson]
    count: int
    version: int


@dataclass
class Message:
    """One inbox row."""

    id: int
    sender: str
    subject: str

    def to_json(self) -> MessageJson:
        return {"id": self.id, "sender": self.sender, "subject": self.subject}


@dataclass
class Session:
    """One browser's progress through sign-in, and its own inbox."""

    token: str
    logged_in: bool = False
    mfa_ok: bool = False
    verified: bool = False
    messages: list[Message] = field(default_factory=list)  # newest first
    # Bumped on every inbox change so the page can ignore poll answers older than its
    # own last change (a poll racing an archive would otherwise resurrect the row).
    version: int = 0
    new_mail_count: int = 0

    @property
    def missing_step(self) -> str | None:
        """The path of the first sign-in step not done yet, or None when fully verified."""
        if not self.logged_in:
            return "/login"
        if not self.mfa_ok:
            return "/mfa"
        if not self.verified:
            return "/challenge"
        return None


class AppState:
    """All sessions, behind one lock: handlers run on many threads at once."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._sessions: dict[str, Session] = {}
        self._ids = itertools.count(1)  # message ids are unique across sessions

    def get(self, token: str | None) -> Session | None:
        with self._lock:
            return self._sessions.get(token) if token else None

    def login(self) -> Session:
        """A fresh signed-in session (password checked) with the starter inbox."""
        with self._lock:
            session = Session(token=secrets.token_urlsafe(24), logged_in=True)
            session.messages = [Message(next(self._ids), s, subj) for s, subj in STARTER_MESSAGES]
            self._sessions[session.token] = session
            return session

    def logout(self, token: str | None) -> None:
        with self._lock:
            if token:
                self._sessions.pop(token, None)

    def mark(self, session: Session, *, mfa_ok: bool | None = None,
             verified: bool | None = None) -> None:
        with self._lock:
            if mfa_ok is not None:
                session.mfa_ok = mfa_ok
            if verified is not None:
                session.verified = verified

    def snapshot(self, session: Session) -> InboxSnapshot:
        """The inbox as JSON-ready data, read consistently under the lock."""
        with self._lock:
            return self._snapshot(session)

    def archive(self, session: Session, message_id: int) -> tuple[bool, InboxSnapshot]:
        """Remove one message; returns (found, inbox snapshot)."""
        with self._lock:
            before = len(session.messages)
            session.messages = [m for m in session.messages if m.id != message_id]
            found = len(session.messages) != before
            if found:
                session.version += 1
            return found, self._snapshot(session)

    def new_mail(self, session: Session) -> tuple[Message, InboxSnapshot]:
        """Deliver the next canned message to the top of this inbox."""
        with self._lock:
            sender, subject = NEW_MAIL[session.new_mail_count % len(NEW_MAIL)]
            round_ = session.new_mail_count // len(NEW_MAIL)
            if round_:
                subject = f"{subject} ({round_ + 1})"  # keep subjects (and button names) unique
            session.new_mail_count += 1
            message = self._add(session, sender, subject)
            return message, self._snapshot(session)

    def deliver(self, sender: str, subject: str) -> int:
        """Add a message to every live session's inbox; returns how many got it."""
        with self._lock:
            for session in self._sessions.values():
                self._add(session, sender, subject)
            return len(self._sessions)

    def delete_all(self, session: Session) -> InboxSnapshot:
        with self._lock:
            session.messages = []
            session.version += 1
            return self._snapshot(session)

    def _add(self, session: Session, sender: str, subject: str) -> Message:
        message = Message(next(self._ids), sender, subject)
        session.messages.insert(0, message)
        session.version += 1
        return message

    @staticmethod
    def _snapshot(session: Session) -> InboxSnapshot:
        return {"messages": [m.to_json() for m in session.messages],
                "count": len(session.messages), "version": session.version}
