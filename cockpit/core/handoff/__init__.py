"""Giving the browser to a person and back: holding agents, the headed window, the
needs a page raises (CAPTCHA, one-time code, sign-in), and the report of what the person
changed. It reaches the session through `HandoffHost`, never the Session itself."""
