"""The engine never imports Textual: the TUI is a view of it, not part of it."""

import subprocess
import sys


def test_core_imports_without_textual():
    code = ("import sys, cockpit.core; "
            "bad = sorted(m for m in sys.modules if m == 'textual' or m.startswith('textual.'));"
            "print(','.join(bad))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "", f"cockpit.core pulled in: {out.stdout}"
