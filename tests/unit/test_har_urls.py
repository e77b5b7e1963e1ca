"""A HAR file written by `har start|stop` keeps no credential in a URL: query values
named like one (token, access_token, code, key, signature) and the session's --secret
values anywhere in a URL (the request's, a redirect's Location, the Referer)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from cockpit.core.network.har import HarRecorder
from cockpit.core.language.registry import REGISTRY
from cockpit.core.secrets.redact import Redactor

SECRET = "hunter2-sekrit-77"


class _Response:
    status, status_text = 302, "Found"

    async def all_headers(self) -> dict[str, str]:
        return {"location": f"/next?signature=sig-sekrit-5&u={SECRET}",
                "content-type": "text/plain"}

    async def body(self) -> bytes:
        return b""


class _Request:
    method = "GET"
    url = (f"https://api.example/cb?code=oauth-sekrit-1&access_token=tok-sekrit-2&key=k-3"
           f"&page=2&q={SECRET}")
    timing: dict[str, float] = {"startTime": 0, "responseEnd": 5}
    post_data = None

    async def response(self) -> _Response:
        return _Response()

    async def all_headers(self) -> dict[str, str]:
        return {"referer": f"https://app.example/form?token=ref-sekrit-4&name={SECRET}"}


def test_a_har_masks_credential_query_values_and_secrets_in_urls(tmp_path: Path) -> None:
    redactor = Redactor(REGISTRY)
    redactor.add_secret("PASSWORD", SECRET)
    recorder = HarRecorder(tmp_path / "x.har", None, redactor.files)

    async def record() -> int:
        await recorder._entry(_Request())
        return await recorder.stop()

    assert asyncio.run(record()) == 1
    written = (tmp_path / "x.har").read_text()
    for secret in ("oauth-sekrit-1", "tok-sekrit-2", "k-3", "sig-sekrit-5", "ref-sekrit-4",
                   SECRET):
        assert secret not in written, f"{secret} was written to the HAR"
    entry: dict[str, Any] = json.loads(written)["log"]["entries"][0]
    url = entry["request"]["url"]
    assert url.startswith("https://api.example/cb?code=***&access_token=***&key=***&page=2")
    assert "$PASSWORD" in url and "$PASSWORD" in entry["response"]["redirectURL"]
