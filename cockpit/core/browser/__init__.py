"""The browser's lifecycle: launching or attaching, relaunching it (headed for a
handoff, headless after), recovering a hung or killed one, and recycling a long-lived
page. It reaches the session through `BrowserHost`, never the Session itself."""
