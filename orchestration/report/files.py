"""Which weeks of a repository have reports, read from the reports location itself."""

from __future__ import annotations

import re
from datetime import date

import pyarrow.fs as pafs

from orchestration.config import repo_slug
from orchestration.storage import Location, filesystem_of, join

_PAGE = re.compile(r"^(\d{4}-\d{2}-\d{2})\.en\.html$")


def file_names(folder: Location) -> list[str]:
    """The names of the files directly in `folder`; [] when it does not exist."""
    filesystem, path, _ = filesystem_of(folder)
    try:
        infos = filesystem.get_file_info(pafs.FileSelector(path, allow_not_found=True))
    except FileNotFoundError:
        return []
    return sorted(i.base_name for i in infos if i.type == pafs.FileType.File)


def reported_weeks(reports_dir: Location, repo: str) -> list[date]:
    """The weeks with a report (its English HTML page), oldest first."""
    names = file_names(join(reports_dir, repo_slug(repo)))
    return [date.fromisoformat(m.group(1)) for n in names if (m := _PAGE.match(n))]
