"""One tab: its page, snapshots and refs, targets, diffs of what an action changed,
buffers (console, network, dialogs) and renderings. A tab reaches the rest of the session
through the small `TabHost` it is given, never the Session itself."""
