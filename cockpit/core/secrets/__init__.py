"""Keeping secrets out of everything shown or stored: --secret values, password fields,
command lines, results, event payloads and traces. Below `page`: a tab masks its
snapshots with it."""
