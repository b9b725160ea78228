"""A GitHub GraphQL emulator for tests, benchmarks and the offline demo.

Use `Emulator(dataset)` as a context manager, or `prweekly emulator --dataset FILE`.
"""

from orchestration.testing.github_emulator.faults import Fault, Faults
from orchestration.testing.github_emulator.server import Emulator, main

__all__ = ["Emulator", "Fault", "Faults", "main"]
