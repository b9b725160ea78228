{{ config(materialized='ephemeral') }}

-- An author's first week in a repository: the week of their earliest merged PR in everything
-- extracted for it (not only a run's weeks), one row per repository and author. Inlined into
-- fct_weekly_summary (its newcomers) and int_weekly_repo_authors (theirs, with their PRs).
select repo, author, min(week_start) as first_week
from {{ ref('stg_pull_requests') }}
{{ in_run_weeks(weeks=none) }}
group by repo, author
