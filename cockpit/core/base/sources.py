"""Who sends a command: the one list of sources, and what each may do.

A command's source goes into its events, its log row and its recording step. Views and
the recorder show it; agents' commands are the ones a hold (a pause, a handoff) keeps
waiting; replay runs again only the steps someone sent (not the cockpit's own).
"""

HUMAN = "human"  # typed in the cockpit, or `cockpit exec --source human`
AGENT = "agent"  # the agent subprocess, `cockpit exec`, the Python client, MCP clients
REPLAY = "replay"  # `cockpit replay` running a recording again
SCRIPT = "script"  # a program that says it is neither (a test, a cron job)
COCKPIT = "cockpit"  # the cockpit itself: `resume` when a handoff's window closes

# what a client may say it is over the control socket (the cockpit's own never comes so)
SENT_BY_CLIENTS = (AGENT, HUMAN, REPLAY, SCRIPT)
# the recorded steps `cockpit replay` and `cockpit export` run again
REPLAYED = frozenset(SENT_BY_CLIENTS)
