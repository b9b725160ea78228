{{ config(materialized='ephemeral') }}

-- The weeks whose stories a run tells: those of its weeks with a PR. A step of
-- int_weekly_story_candidates, inlined where it is read.
select distinct repo, week_start from {{ ref('int_weekly_story_prs') }} prs
{{ in_run_weeks(repo=false) }}
