"""The engine stays an engine: every module of cockpit/core imports without Textual and
without any layer above it (tui, cli, control, record, demo). Each check is proven able
to fail: the same check runs on a copy of the package with a violation planted in it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
UPPER = ("cockpit.tui", "cockpit.cli", "cockpit.control", "cockpit.record", "cockpit.demo")

# Runs in a fresh interpreter: import every module file under <root>/cockpit/core, then
# list what got loaded that the engine must never load.
CHECK = """
import importlib, sys
from pathlib import Path
root = Path(sys.argv[1])
sys.path.insert(0, str(root))
import cockpit
assert Path(cockpit.__file__).is_relative_to(root), f"wrong cockpit: {cockpit.__file__}"
core = root / "cockpit" / "core"
names = sorted(".".join(p.relative_to(root).with_suffix("").parts).removesuffix(".__init__")
               for p in core.rglob("*.py"))
for name in names:
    importlib.import_module(name)
upper = sys.argv[2].split(",")
bad = sorted(m for m in sys.modules
             if m.split(".")[0] in ("textual", "textual_image")
             or any(m == u or m.startswith(u + ".") for u in upper))
print(len(names), "modules imported")
if bad:
    sys.exit("cockpit.core loaded: " + ", ".join(bad))
"""


def check_core(root: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(root)}
    return subprocess.run([sys.executable, "-c", CHECK, str(root), ",".join(UPPER)],
                          capture_output=True, text=True, env=env, timeout=120)


def planted_copy(tmp_path: Path, module: str, line: str, layer: str = "core") -> Path:
    """A copy of the package (and pyproject.toml) with `line` added to one module of a
    layer (the engine's, unless told)."""
    shutil.copytree(ROOT / "cockpit", tmp_path / "cockpit",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    target = tmp_path / "cockpit" / layer / module
    target.write_text(target.read_text() + f"\n{line}  # planted by the test\n")
    return tmp_path


def test_every_core_module_imports_without_textual_or_an_upper_layer():
    out = check_core(ROOT)
    assert out.returncode == 0, out.stderr or out.stdout
    count = int(out.stdout.split()[0])
    on_disk = len(list((ROOT / "cockpit" / "core").rglob("*.py")))
    assert count == on_disk > 30  # every file, not just the lazy package


@pytest.mark.parametrize("line", ["import textual", "from cockpit import tui",
                                  "import cockpit.record.recorder"])
def test_the_check_fails_on_a_planted_violation(tmp_path, line):
    out = check_core(planted_copy(tmp_path, "browser/storage_state.py", line))
    assert out.returncode != 0
    assert "cockpit.core loaded:" in out.stderr, out.stderr


# the venv running the tests has it even when its bin/ is not on PATH (CI calls python)
lint_imports = shutil.which("lint-imports", path=str(Path(sys.executable).parent)) \
    or shutil.which("lint-imports")
needs_linter = pytest.mark.skipif(lint_imports is None, reason="import-linter not installed")


def run_lint_imports(root: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(root)}
    return subprocess.run([str(lint_imports), "--no-cache"], cwd=root, capture_output=True,
                          text=True, env=env, timeout=120)


@needs_linter
def test_the_import_contracts_hold():
    out = run_lint_imports(ROOT)
    assert out.returncode == 0, out.stdout + out.stderr


@needs_linter
@pytest.mark.parametrize(("layer", "module", "line", "broken"), [
    ("core", "page/render.py", "import textual", "never import Textual BROKEN"),
    ("core", "page/render.py", "from cockpit import tui", "Layers: cli > tui"),
    # a part importing one above it (the page part reaching for the Session)
    ("core", "page/render.py", "from ..session import session", "only downwards"),
    # capture is given a small protocol of the session, never the Session itself
    ("core", "capture/capture.py", "from ..session import session", "only downwards"),
    # another layer reaching past the engine's surface into one of its parts
    ("tui", "tables.py", "from ..core.page import tab", "never its parts BROKEN"),
])
def test_lint_imports_fails_on_a_planted_violation(tmp_path, layer, module, line, broken):
    out = run_lint_imports(planted_copy(tmp_path, module, line, layer))
    assert out.returncode != 0, out.stdout
    assert broken in out.stdout and "BROKEN" in out.stdout, out.stdout


def test_every_part_of_the_engine_is_in_both_contracts():
    """A new part (a sub-package of cockpit/core) must take its place in the order of
    parts and be hidden behind the engine's surface: a part left out of the contracts
    would be checked by neither."""
    import tomllib
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    by_name = {c["name"]: c for c in config["contracts"]}
    order = next(c for n, c in by_name.items() if n.startswith("The engine's parts"))
    surface = next(c for n, c in by_name.items() if n.startswith("Other layers reach"))
    parts = {p.parent.name for p in (ROOT / "cockpit" / "core").glob("*/__init__.py")}
    assert parts == set(order["layers"]), "the parts' order in pyproject.toml"
    assert {f"cockpit.core.{p}" for p in parts} == set(surface["forbidden_modules"])


def test_the_surface_exports_exactly_what_it_loads():
    """`__all__` is a literal (a type checker cannot read `list(_HOMES)`), so it is
    checked here against the names the lazy loader knows, and each one loads."""
    import cockpit.core as core

    assert sorted(core.__all__) == sorted(core._HOMES)
    for name in core.__all__:
        assert getattr(core, name) is not None
