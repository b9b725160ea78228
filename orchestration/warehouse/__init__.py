"""The warehouse: a run's session (a Dagster resource), the model assets, publishing, which weeks to
rebuild, and which models a stage reads."""
