"""prweekly: a weekly report of a GitHub repository's merged pull requests."""

import warnings

# Dagster marks single-run backfills and pools as beta; the warnings say nothing to our users.
warnings.filterwarnings("ignore", message=r".*is currently in (beta|preview).*")
