"""The static site over the reports: home page, a page per repository, Atom feeds."""
