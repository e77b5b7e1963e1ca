"""The cockpit's face: a Textual app that is a view of, and an input to, one Session."""
