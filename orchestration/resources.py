"""The one resource every asset shares: where prweekly keeps its data and what it reads from."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import dagster as dg

from orchestration.config import Settings, load_settings
from orchestration.repositories import find, load_repositories


class PrweeklyResource(dg.ConfigurableResource):
    """Settings come from the environment; a run may override the home or the source.

    The GitHub token is read from `GITHUB_TOKEN` when needed and never enters run config.
    """

    home: str | None = None
    source: str | None = None

    def settings(self) -> Settings:
        settings = load_settings()
        overrides = {}
        if self.home:
            overrides["home"] = Path(self.home).resolve()
        if self.source:
            overrides["source"] = self.source
        return dataclasses.replace(settings, **overrides)

    def source_for(self, repo: str) -> str:
        """Where `repo`'s PRs come from in this run: the run's own `source` (`build --source`),
        else the repository's in repositories.yml, else `PRWEEKLY_SOURCE` (default `github`).

        Every run asks this, however it was launched (the CLI, a UI materialisation or
        backfill, the schedule, `dagster asset materialize`), so none falls back to GitHub
        for a repository registered with a file.
        """
        if self.source:
            return self.source
        settings = self.settings()
        registered = find(load_repositories(settings.home), repo)
        return (registered.source if registered else None) or settings.source

    def teardown_after_execution(self, context: dg.InitResourceContext) -> None:
        """A run that ends before publishing lets go of the warehouse's working copy."""
        from orchestration.build_session import close_session

        close_session()
