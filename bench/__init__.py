"""Benchmarks: `python -m bench.<name>`; each returns its figures as a dict."""
