{{ config(materialized='incremental') }}

-- Hotspots: for each repository and week, the code files changed by the most PRs over the
-- `hotspot_weeks` weeks ending with that week (seeds/thresholds.csv: the top `hotspot_top_n`
-- with at least `hotspot_min_prs` PRs). Tests, docs and CI files are not hotspots.
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
    where is_code
    {% if is_incremental() %}
      and repo = {{ var('repo') }}
      and week_start between {{ var('start_week') }}
          - to_weeks((select hotspot_weeks - 1 from settings)) and {{ var('end_week') }}
    {% endif %}
),

weeks as (
    select * from {{ ref('stg_weekly_partitions') }}
    {% if is_incremental() %}
    where repo = {{ var('repo') }} and week_start between {{ var('start_week') }} and {{ var('end_week') }}
    {% endif %}
),

path_weeks as (
    select repo, week_start, path, count(distinct number) as prs
    from files
    group by repo, week_start, path
),

-- each week's changes count for it and for the hotspot_weeks - 1 weeks after it
spread as (
    select
        p.repo,
        p.path,
        p.prs,
        cast(unnest(generate_series(
            p.week_start, p.week_start + to_weeks(s.hotspot_weeks - 1), interval 7 days
        )) as date) as week_start
    from path_weeks p
    cross join settings s
),

windowed as (
    select s.repo, s.week_start, s.path, sum(s.prs) as pr_count
    from spread s
    join weeks w using (repo, week_start)
    group by s.repo, s.week_start, s.path
),

ranked as (
    select
        w.*,
        row_number() over (
            partition by w.repo, w.week_start order by w.pr_count desc, w.path
        ) as hotspot_rank
    from windowed w
    cross join settings s
    where w.pr_count >= s.hotspot_min_prs
)

select r.repo, r.week_start, r.path, r.pr_count, r.hotspot_rank
from ranked r
cross join settings s
where r.hotspot_rank <= s.hotspot_top_n
