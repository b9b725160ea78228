"""The service: the CLI, Dagster's definitions, instance and runs, schedules and sensors."""
