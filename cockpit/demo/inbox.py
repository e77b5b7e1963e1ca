"""The inbox page and its JSON API (archive, new mail, delete all, polling)."""

from __future__ import annotations

from http import HTTPStatus
from typing import TYPE_CHECKING

from .auth import require
from .pages import esc, page
from .state import InboxSnapshot, Message, Session

if TYPE_CHECKING:
    from .server import DemoHandler


def archive_label(h: DemoHandler) -> str:
    """The row button's text; the "changed" variant renames it to break recorded runs."""
    return "File away" if h.site.variant == "changed" else "Archive"


def count_text(n: int) -> str:
    """Same wording as inbox.js uses when it updates the counter."""
    return "1 message" if n == 1 else f"{n} messages"


def _row(message: Message, label: str) -> str:
    # Kept identical to rowFor() in inbox.js: rows from the server and from the page
    # must look the same to an agent reading the accessibility tree.
    return (f'    <tr data-id="{message.id}"><td>{esc(message.sender)}</td>'
            f"<td>{esc(message.subject)}</td>"
            f'<td><button type="button" class="archive" data-id="{message.id}" '
            f'aria-label="{esc(label)}: {esc(message.subject)}">{esc(label)}</button></td></tr>')


def inbox_page(h: DemoHandler) -> None:
    session = require(h, None)
    if session is None:
        return
    snapshot = h.site.state.snapshot(session)
    label = archive_label(h)
    rows = "\n".join(_row(Message(**m), label) for m in snapshot["messages"])
    count = snapshot["count"]
    h.send_html(page("inbox.html", "Inbox", scripts=("inbox.js",), rows=rows,
                     count=count_text(count), label=esc(label),
                     version=snapshot["version"], empty_hidden="" if count == 0 else " hidden"))


def _api_session(h: DemoHandler) -> Session | None:
    """The fully signed-in session, or None after answering 401 (no redirects in an API)."""
    session = h.session
    if session is None or session.missing_step is not None:
        h.send_json({"error": "not signed in"}, HTTPStatus.UNAUTHORIZED)
        return None
    return session


def _answer(h: DemoHandler, snapshot: InboxSnapshot, **extra: object) -> None:
    h.send_json({**snapshot, "archive_label": archive_label(h), **extra})


def api_messages(h: DemoHandler) -> None:
    if session := _api_session(h):
        _answer(h, h.site.state.snapshot(session))


def api_archive(h: DemoHandler) -> None:
    session = _api_session(h)
    if session is None:
        return
    data = h.json_body()
    message_id = data.get("id") if data else None
    if not isinstance(message_id, int) or isinstance(message_id, bool):
        h.send_json({"error": 'expected {"id": <message id>}'}, HTTPStatus.BAD_REQUEST)
        return
    # Archiving a message already gone (double click, another tab) is not an error:
    # the answer's list is right either way.
    found, snapshot = h.site.state.archive(session, message_id)
    _answer(h, snapshot, archived=message_id if found else None)


def api_check_mail(h: DemoHandler) -> None:
    if session := _api_session(h):
        message, snapshot = h.site.state.new_mail(session)
        _answer(h, snapshot, message=message.to_json())


def api_delete_all(h: DemoHandler) -> None:
    if session := _api_session(h):
        _answer(h, h.site.state.delete_all(session))
