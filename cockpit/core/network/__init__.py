"""The network and emulation the session sets on its browser: routes (mocked or aborted
requests), a HAR recorded or replayed, and emulation (device, geolocation, offline,
media, timezone, locale, extra headers, HTTP credentials, permissions, proxy).

All of it lives in one `NetworkState` per session (state.py), which is applied to every
browser context the session makes, so a relaunch (handoff, recovery, `device`) keeps it."""
