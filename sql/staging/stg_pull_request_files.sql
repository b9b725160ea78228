{{ config(materialized='view') }}

-- One row per file changed by a merged pull request. `repo` and `week_start` come from the
-- file's folder, as in stg_pull_requests, so a filter on them reads only the matching files.
with source as (
    select
        regexp_replace(repo, '__', '/') as repo,
        week as week_start,
        number,
        unnest(files) as file
    from {{ source('github', 'pull_requests') }}
),

renamed as (
    select
        repo,
        week_start,
        number,
        file.path as path,
        coalesce(file.additions, 0) as additions,
        coalesce(file.deletions, 0) as deletions,
        file.change_type as change_type
    from source
    where file.path is not null
)

select * from renamed
