"""The live view's engine: the page's picture as it paints (screencast.py) and input at
viewport coordinates (input.py), which a person's view drives through `mouse` commands."""
