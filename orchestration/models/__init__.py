"""A small dbt-style model runner: SQL files with Jinja `ref`/`source`/`config`, run in DuckDB."""
