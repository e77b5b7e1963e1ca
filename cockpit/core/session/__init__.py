"""The Session: one browser and its tabs, the one queue commands run through in order,
their deadlines, the holds that keep agents waiting, and the context command handlers
get. Builds on every part below it."""
