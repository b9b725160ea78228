{{ config(materialized='incremental') }}

-- Hotspots: for each repository and week, the code files changed by the most PRs over the
-- `hotspot_weeks` weeks ending with that week (seeds/thresholds.csv: the top `hotspot_top_n`
-- with at least `hotspot_min_prs` PRs). Only program source counts: tests, docs, CI,
-- configuration and data files and generated files (lock files, `_generated_*`, snapshots)
-- are not hotspots.
with settings as (
    select
        cast(max(value) filter (where name = 'hotspot_weeks') as integer) as hotspot_weeks,
        cast(max(value) filter (where name = 'hotspot_top_n') as integer) as hotspot_top_n,
        max(value) filter (where name = 'hotspot_min_prs') as hotspot_min_prs
    from {{ ref('thresholds') }}
),

files as (
    select repo, week_start, number, path
    from {{ ref('int_pull_request_files') }}
    -- program source, not configuration or data files that list options
    where is_source and not is_generated
    {{ in_run_weeks(back="(select hotspot_weeks - 1 from settings)", keyword='and') }}
),

weeks as (
    select * from {{ ref('stg_weekly_partitions') }}
    {{ in_run_weeks() }}
),

-- each repository's path numbered once, so that the per-path steps below group and sort
-- integers instead of path strings
paths as (
    select repo, path, row_number() over () as path_id
    from (select distinct repo, path from files)
),

path_weeks as (
    select p.path_id, f.week_start, count(distinct f.number) as prs
    from files f
    join paths p using (repo, path)
    group by p.path_id, f.week_start
),

-- A week's PRs count for the hotspot_weeks weeks from that week on: they enter the path's
-- count in their week and leave it hotspot_weeks later, so the count changes only at those
-- weeks. (Repeating each week's PRs into hotspot_weeks rows and adding those up again made
-- twelve times the rows to group.)
changes as (
    select path_id, week_start, prs as delta
    from path_weeks
    union all
    select p.path_id, cast(p.week_start + to_weeks(s.hotspot_weeks) as date), -p.prs
    from path_weeks p
    cross join settings s
),

-- each path's count from one change until the next; when PRs enter and leave in the same week,
-- both rows get the week's count (the window's peers) and the first one's range is empty
counts as (
    select
        path_id,
        week_start as valid_from,
        lead(week_start) over by_path as valid_until,
        sum(delta) over by_path as pr_count
    from changes
    window by_path as (partition by path_id order by week_start)
),

-- the count in each extracted week, where it is high enough for a hotspot (a count under
-- hotspot_min_prs is never ranked, so its weeks are not spelt out)
windowed as (
    select w.repo, w.week_start, p.path, c.pr_count
    from counts c
    cross join settings s
    join paths p using (path_id)
    join weeks w
        on w.repo = p.repo and w.week_start >= c.valid_from and w.week_start < c.valid_until
    where c.pr_count >= s.hotspot_min_prs
),

ranked as (
    select
        w.*,
        row_number() over (
            partition by w.repo, w.week_start order by w.pr_count desc, w.path asc
        ) as hotspot_rank
    from windowed w
)

select r.repo, r.week_start, r.path, r.pr_count, r.hotspot_rank
from ranked r
cross join settings s
where r.hotspot_rank <= s.hotspot_top_n
