{{ config(materialized='ephemeral') }}

-- The PRs the weekly stories are told from: those of a run's weeks and of the
-- story_history_weeks before, with their release and referenced numbers. A step of
-- int_weekly_story_candidates, inlined where it is read.
select
    p.repo, p.week_start, p.number, p.merged_at, p.title, p.author, p.importance, p.areas, p.is_release,
    p.release_version, p.reverts_number, coalesce(r.is_release_pre, false) as is_release_pre,
    c.referenced_numbers
from (
    select
        repo, week_start, number, merged_at, title, author, importance, areas, is_release,
        release_version, reverts_number
    from {{ ref('fct_pull_requests') }}
    {{ in_run_weeks(back="(select history_weeks from " ~ ref('int_weekly_story_settings') ~ " settings)") }}
) p
left join (
    select repo, week_start, number, is_release_pre from {{ ref('int_pull_request_releases') }}
    {{ in_run_weeks(back="(select history_weeks from " ~ ref('int_weekly_story_settings') ~ " settings)") }}
) r using (repo, week_start, number)
join (
    select repo, week_start, number, referenced_numbers from {{ ref('int_pull_requests_classified') }}
    {{ in_run_weeks(back="(select history_weeks from " ~ ref('int_weekly_story_settings') ~ " settings)") }}
) c using (repo, week_start, number)
