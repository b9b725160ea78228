"""The raw lake: its layout and week files, the compacted copies, and how models read it."""
