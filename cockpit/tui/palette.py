"""The command palette: commands (into the prompt), tabs (switch) and refs (into the prompt)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider

from .safe import clean


class CockpitCommands(Provider):
    def _items(self) -> Iterator[tuple[str, str, Callable[[], object]]]:
        from .app import CockpitApp  # here: app.py imports this module
        app = self.app
        if not isinstance(app, CockpitApp):  # the palette of another app: nothing of ours
            return
        session = app.session
        for spec in session.registry.commands.values():
            yield (f"{spec.name}  {spec.summary}", spec.synopsis,
                   partial(app.insert_into_prompt, spec.name + " "))
        for info in session.tabs_info():
            label = clean(f"tab {info['index']}: {info['title'] or '(untitled)'}")
            yield label, clean(info["url"]), partial(app.submit, f"tab {info['index']}")
        for ref, role, name, _ in session.refs_info()[:500]:
            yield (clean(f'@{ref} {role} "{name}"'), "insert the ref",
                   partial(app.insert_into_prompt, f"@{ref} "))

    async def discover(self) -> Hits:
        for label, help_text, callback in list(self._items())[:60]:
            yield DiscoveryHit(label, callback, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for label, help_text, callback in self._items():
            score = matcher.match(label)
            if score > 0:
                yield Hit(score, matcher.highlight(label), callback, help=help_text)
