"""The parsed accessibility snapshot of a page (nodes, roles, refs, ref names): data
only, no browser. Imports only `base`."""
