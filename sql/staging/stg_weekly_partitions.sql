{{ config(materialized='view') }}

-- Every repository and week that has been extracted, including weeks in which nothing merged.
with files as (
    select file from {{ source('github', 'partitions') }}
),

parsed as (
    select
        regexp_extract(file, 'repo=([^/\\]+)', 1) as repo_slug,
        cast(regexp_extract(file, 'week=(\d{4}-\d{2}-\d{2})', 1) as date) as week_start
    from files
)

select
    -- `owner__name` back to `owner/name`: GitHub owners cannot contain underscores
    regexp_replace(repo_slug, '__', '/') as repo,
    week_start
from parsed
