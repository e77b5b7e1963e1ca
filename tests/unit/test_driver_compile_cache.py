"""Node's compile cache for Playwright's driver: set only while the driver starts, in a
directory that is the user's alone; a NODE_COMPILE_CACHE of the user's own is kept."""

from __future__ import annotations

import os

import pytest

from cockpit.core.browser import driver

pytestmark = pytest.mark.unit


@pytest.fixture
def cache_home(monkeypatch, tmp_path):
    monkeypatch.delenv("NODE_COMPILE_CACHE", raising=False)
    monkeypatch.delenv("COCKPIT_NODE_CACHE", raising=False)
    home = tmp_path / "cache" / "cockpit"
    monkeypatch.setattr(driver.platformdirs, "user_cache_dir", lambda app: str(home))
    return home


def test_set_while_the_driver_starts_and_gone_after(cache_home):
    with driver.compile_cache():
        assert os.environ["NODE_COMPILE_CACHE"] == str(cache_home / "node-compile-cache")
    assert "NODE_COMPILE_CACHE" not in os.environ
    assert (cache_home / "node-compile-cache").stat().st_mode & 0o777 == 0o700


def test_a_cache_of_the_users_own_is_kept(cache_home, monkeypatch):
    monkeypatch.setenv("NODE_COMPILE_CACHE", "/somewhere/mine")
    with driver.compile_cache():
        assert os.environ["NODE_COMPILE_CACHE"] == "/somewhere/mine"
    assert os.environ["NODE_COMPILE_CACHE"] == "/somewhere/mine"


@pytest.mark.parametrize("how", ["others may write", "a link"])
def test_a_directory_others_could_write_to_is_not_used(cache_home, tmp_path, how):
    if how == "others may write":
        (cache_home / "node-compile-cache").mkdir(parents=True)
        cache_home.chmod(0o777)
    else:
        elsewhere = tmp_path / "elsewhere"
        elsewhere.mkdir(mode=0o700)
        cache_home.mkdir(parents=True)
        (cache_home / "node-compile-cache").symlink_to(elsewhere)
    with driver.compile_cache():
        assert "NODE_COMPILE_CACHE" not in os.environ


def test_the_caches_of_older_drivers_are_removed(cache_home, tmp_path):
    """A folder a Node version: the CACHES_KEPT last written stay, older ones go (a
    Playwright upgrade left them behind); a link there is never followed."""
    where = cache_home / "node-compile-cache"
    where.mkdir(parents=True, mode=0o700)
    cache_home.chmod(0o700)
    names = [f"v26.{n}.0-x64-310b2ce3-0" for n in range(5)]
    for age, name in enumerate(names):  # names[0] the newest, names[4] the oldest
        (where / name).mkdir()
        (where / name / "chunk").write_bytes(b"x")
        os.utime(where / name, (1_000_000 - age * 1000, 1_000_000 - age * 1000))
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep").write_text("mine")
    (where / "a-link").symlink_to(outside)
    with driver.compile_cache():
        pass
    kept = sorted(p.name for p in where.iterdir())
    assert kept == sorted(["a-link", *names[:driver.CACHES_KEPT]])
    assert (outside / "keep").read_text() == "mine"
