"""Waiting for a page to finish what an action started: the in-page tracker of
requests, timers, sockets and DOM changes (installed in every page), and the rules that
read it."""
