"""The weekly report: query the marts, render Markdown per language, write files atomically."""
