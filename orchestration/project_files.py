"""Where prweekly finds its own files (SQL project, seeds, report templates and strings).

A checkout keeps them at the top of the tree (`sql/`, `reports/`, `workspace.yaml`), where an
analyst edits them; a built wheel carries a copy inside the package, under
`orchestration/_project/` (see `force-include` in pyproject.toml), because an installed
package has no source tree beside it. Every caller asks here, so both layouts work.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

PACKAGE_DIR = Path(str(files("orchestration")))
PACKAGED_ROOT = PACKAGE_DIR / "_project"  # only in an installed wheel
SOURCE_ROOT = PACKAGE_DIR.parent  # a checkout, or an editable install of one


def project_root() -> Path:
    """The folder holding `sql/`, `reports/` and `workspace.yaml`: the wheel's copy when
    this package was installed from one, else the source tree it is imported from."""
    return PACKAGED_ROOT if (PACKAGED_ROOT / "sql").is_dir() else SOURCE_ROOT


def project_file(*parts: str) -> Path:
    """A path under the project root, e.g. `project_file("sql", "seeds")`."""
    return project_root().joinpath(*parts)
