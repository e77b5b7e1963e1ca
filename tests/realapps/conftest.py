"""Fixtures: the real third-party apps (apps.py), each started once per test run."""

from __future__ import annotations

import pytest

import apps


@pytest.fixture(scope="session")
def shop():
    with apps.shop() as started:
        yield started


@pytest.fixture(scope="session")
def notebook():
    with apps.notebook() as url:
        yield url


@pytest.fixture(scope="session")
def data_app():
    with apps.data_app() as url:
        yield url
