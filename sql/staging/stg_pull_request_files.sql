{{ config(materialized='incremental') }}

-- One row per file changed by a merged pull request, from the lake's copy in stg_pull_requests.
with source as (
    select repo, week_start, number, unnest(files) as file
    from {{ ref('stg_pull_requests') }}
    {{ in_run_weeks() }}
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
