{{ config(materialized='ephemeral') }}

-- The thresholds of the weekly stories (seeds/thresholds.csv), as one row. A step of
-- int_weekly_story_candidates, inlined where it is read.
select
    cast(max(value) filter (where name = 'story_window_weeks') as integer) as window_weeks,
    cast(max(value) filter (where name = 'story_history_weeks') as integer) as history_weeks,
    max(value) filter (where name = 'story_min_lift') as min_lift,
    max(value) filter (where name = 'story_max_share') as max_share,
    max(value) filter (where name = 'story_churn_min_lines') as churn_min_lines,
    max(value) filter (where name = 'story_churn_max_changes') as churn_max_changes,
    max(value) filter (where name = 'story_plain_name_min_prs') as plain_name_min_prs
from {{ ref('thresholds') }}
