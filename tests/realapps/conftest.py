"""Fixtures: the real third-party apps (apps.py), each started once per test run.

Every test here is marked `realapps` (`-m "not realapps"` leaves them out). When the apps'
venv cannot be installed (no network, no registry) they are skipped with the reason, except
under CI=true, where a missing install is a failure: CI must run them."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import apps

HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if HERE in item.path.parents:
            item.add_marker(pytest.mark.realapps)


@pytest.fixture(scope="session")
def realapps_venv() -> Path:
    """The apps' venv (.ci/realapps installs it once, then it is cached)."""
    try:
        return apps.venv()
    except (RuntimeError, OSError) as exc:
        why = f"the real apps' venv could not be installed (.ci/realapps): {exc}"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(why)
        pytest.skip(why)


@pytest.fixture(scope="session")
def shop(realapps_venv):
    with apps.shop() as started:
        yield started


@pytest.fixture(scope="session")
def notebook(realapps_venv):
    with apps.notebook() as url:
        yield url


@pytest.fixture(scope="session")
def data_app(realapps_venv):
    with apps.data_app() as url:
        yield url
