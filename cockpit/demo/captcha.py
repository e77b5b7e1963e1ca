"""The human-check challenge: random text and a distorted (but human-legible) SVG of it."""

from __future__ import annotations

import random
import secrets
import threading

# A-Z and 2-9 without look-alikes (B/8, G/6, I/1, L, O/0, Q, S/5, Z/2), so a human
# reading the image never has to guess.
ALPHABET = "ACDEFHJKMNPRTUVWXY3479"
LENGTH = 5

WIDTH, HEIGHT = 260, 90
INK = ["#1f2937", "#7c2d12", "#1e3a8a", "#14532d", "#581c87", "#831843"]
NOISE = ["#94a3b8", "#a8a29e", "#93c5fd", "#fca5a5", "#86efac"]


def new_text(length: int = LENGTH) -> str:
    """A fresh random challenge text."""
    return "".join(secrets.choice(ALPHABET) for _ in range(length))


def render_svg(text: str, seed: int | None = None) -> str:
    """The challenge image: one <text> per character, shuffled in the source.

    Each character is placed by its own x, so the image reads correctly while the
    source never holds the answer as one string (a bot cannot just grep it).
    """
    rng = random.Random(seed)
    step = (WIDTH - 40) / max(len(text), 1)
    glyphs = []
    for i, char in enumerate(text):
        x = 20 + step * (i + 0.5) + rng.uniform(-4, 4)
        y = HEIGHT / 2 + 15 + rng.uniform(-7, 7)
        angle = rng.uniform(-18, 18)
        size = rng.randint(40, 46)
        glyphs.append(
            f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" fill="{rng.choice(INK)}" '
            f'transform="rotate({angle:.1f} {x:.1f} {y - 15:.1f})">{char}</text>')
    order = list(range(len(glyphs)))
    if len(set(text)) > 1:
        # A shuffle that still spells the text (repeated letters can) is no good.
        while "".join(text[i] for i in order) == text:
            rng.shuffle(order)

    curves, specks = [], []
    for _ in range(4):  # long thin curves across the text
        y0, y1 = rng.uniform(10, HEIGHT - 10), rng.uniform(10, HEIGHT - 10)
        cx, cy = rng.uniform(40, WIDTH - 40), rng.uniform(-20, HEIGHT + 20)
        curves.append(f'<path d="M0 {y0:.1f} Q{cx:.1f} {cy:.1f} {WIDTH} {y1:.1f}" '
                     f'stroke="{rng.choice(NOISE)}" stroke-width="{rng.uniform(1, 2):.1f}" '
                     'fill="none"/>')
    for _ in range(5):  # short straight scratches
        x0, y0 = rng.uniform(0, WIDTH), rng.uniform(0, HEIGHT)
        specks.append(f'<line x1="{x0:.1f}" y1="{y0:.1f}" x2="{x0 + rng.uniform(-40, 40):.1f}" '
                     f'y2="{y0 + rng.uniform(-25, 25):.1f}" stroke="{rng.choice(NOISE)}" '
                     'stroke-width="1"/>')
    for _ in range(60):  # speckles
        specks.append(f'<circle cx="{rng.uniform(0, WIDTH):.1f}" cy="{rng.uniform(0, HEIGHT):.1f}" '
                     f'r="{rng.uniform(0.6, 1.8):.1f}" fill="{rng.choice(NOISE)}"/>')

    # Noise around the glyphs: most under the text, two curves over it (thin, so the
    # characters stay readable).
    under, over = specks + curves[2:], curves[:2]
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" role="img">\n'
        f'<rect width="{WIDTH}" height="{HEIGHT}" rx="6" fill="#f8fafc"/>\n'
        + "\n".join(under) + "\n"
        '<g font-family="DejaVu Sans, Verdana, Arial, Helvetica, sans-serif" '
        'font-weight="bold" text-anchor="middle">\n'
        + "\n".join(glyphs[i] for i in order) + "\n</g>\n"
        + "\n".join(over) + "\n</svg>\n"
    )


class Captcha:
    """The site's current challenge; a fixed text never changes, a random one rotates."""

    def __init__(self, fixed_text: str | None = None) -> None:
        self.fixed = fixed_text is not None
        self._lock = threading.Lock()
        text = fixed_text if fixed_text is not None else new_text()
        # (text, svg, generation) swapped as one tuple so a reader never sees a mix of
        # two challenges; the generation goes into the image URL against stale caches.
        self._current = (text, render_svg(text, seed=secrets.randbits(32)), 0)

    @property
    def text(self) -> str:
        return self._current[0]

    @property
    def svg(self) -> str:
        return self._current[1]

    @property
    def generation(self) -> int:
        return self._current[2]

    def check(self, answer: str) -> bool:
        """Case-insensitive, ignoring spaces; humans type "ab cd" or lower case."""
        return "".join(answer.split()).upper() == self.text.upper()

    def rotate(self) -> None:
        """A new image after a wrong answer, with new text unless fixed by the site's owner."""
        with self._lock:
            text, _, generation = self._current
            if not self.fixed:
                text = new_text()
            self._current = (text, render_svg(text, seed=secrets.randbits(32)), generation + 1)
