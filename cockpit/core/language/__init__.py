"""The command language: the one registry of commands (every fact about each), the
parser of a line into a command and its arguments, completion, and quoting words into a
line. Imports `base` and `model`."""
