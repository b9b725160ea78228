"""A language-model emulator (OpenAI-compatible chat completions) for tests and the demo.

Use `LlmEmulator()` as a context manager, or `prweekly llm-emulator [--port N]`.
"""

from orchestration.testing.llm_emulator.faults import LlmFault, LlmFaults
from orchestration.testing.llm_emulator.server import LlmEmulator, main

__all__ = ["LlmEmulator", "LlmFault", "LlmFaults", "main"]
