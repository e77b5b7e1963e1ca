"""What every part of the engine uses: errors and exit codes, events, results, logs,
session names, paths and workspaces. Imports no other part."""
