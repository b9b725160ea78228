{{ config(materialized='incremental') }}

-- How much of a repository's history the warehouse holds before each extracted week, so that a
-- fact comparing with earlier weeks can tell "nothing before" from "not extracted":
--   history_since     the first week of the unbroken run of extracted weeks ending with this one;
--   history_weeks     how many weeks of that run come before this one;
--   history_complete  the run reaches the repository's first merged PR (raw/history: the source
--                     found nothing merged before `nothing_merged_before`).
-- A build extracts the weeks its facts look back to by itself, so a short run is rare (a lake
-- written by an older prweekly, a model rebuilt without its extract); a run that does not reach
-- the first PR is common, and leaves first-time authors unknown.
with weeks as (
    select repo, week_start from {{ ref('stg_weekly_partitions') }}
    {{ in_run_weeks(weeks='until') }}
),

origins as (
    select {{ repo_of_slug('repo') }} as repo, max(nothing_merged_before) as nothing_merged_before
    from {{ source('github', 'history') }}
    group by all
),

-- consecutive weeks keep the same distance to their row number: that distance names the run
runs as (
    select
        repo,
        week_start,
        week_start - cast(7 * row_number() over (partition by repo order by week_start) as integer)
            as run_key
    from weeks
),

spans as (
    select repo, week_start, min(week_start) over (partition by repo, run_key) as history_since
    from runs
),

final as (
    select
        s.repo,
        s.week_start,
        s.history_since,
        cast((s.week_start - s.history_since) / 7 as integer) as history_weeks,
        coalesce(s.history_since <= o.nothing_merged_before, false) as history_complete
    from spans s
    left join origins o using (repo)
)

select * from final
{{ in_run_weeks(repo=false) }}
