"""prweekly: a weekly report of a GitHub repository's merged pull requests."""
