{{ config(materialized='incremental') }}

-- Every repository and week that has been extracted, including weeks in which nothing merged.
-- An incremental table, not a view over the lake's file list: the trailing-window models read
-- it on every run, and listing the whole lake (100,000 files at scale) costs a second or more
-- each time. An incremental run lists only its repository's folder.
with files as (
    select file from {{ source('github', 'partitions') }}
),

parsed as (
    select
        regexp_extract(file, 'repo=([^/\\]+)', 1) as repo_slug,
        cast(regexp_extract(file, 'week=(\d{4}-\d{2}-\d{2})', 1) as date) as week_start
    from files
),

renamed as (
    select
        {{ repo_of_slug('repo_slug') }} as repo,
        week_start
    from parsed
)

select * from renamed
{{ in_run_weeks() }}
