"""Capture: what a person does in the browser becomes recorded steps (capture.py)."""
