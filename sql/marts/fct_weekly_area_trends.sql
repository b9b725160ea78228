{{ config(materialized='incremental') }}

-- PRs and importance per area and week against the area's average over the trailing
-- `trailing_weeks` extracted weeks (quiet weeks count as zero), classified as a trend
-- (thresholds in seeds/thresholds.csv):
--   unknown  fewer than trailing_weeks weeks before are extracted, and the history does not
--            reach the repository's first PR (int_weekly_history): trailing_avg is NULL;
--   new      no PRs in the area in the trailing weeks (or no trailing weeks at all);
--   rising   pr_count >= rising_ratio x trailing_avg and pr_count - trailing_avg >= rising_min_delta;
--   falling  pr_count <= falling_ratio x trailing_avg (a week with no PRs after an active one);
--   steady   anything else.
-- An area appears in a week when it has PRs then or in its trailing weeks.
with settings as (
    select
        cast(max(value) filter (where name = 'trailing_weeks') as integer) as trailing_weeks,
        max(value) filter (where name = 'rising_ratio') as rising_ratio,
        max(value) filter (where name = 'rising_min_delta') as rising_min_delta,
        max(value) filter (where name = 'falling_ratio') as falling_ratio
    from {{ ref('thresholds') }}
),

weeks as (
    select * from {{ ref('stg_weekly_partitions') }}
    {% if is_incremental() %}
    where {{ scoped('repo') }}
      and week_start between {{ var('start_week') }} - to_weeks((select trailing_weeks from settings))
          and {{ var('end_week') }}
    {% endif %}
),

area_prs as (
    select repo, week_start, unnest(areas) as area, importance
    from {{ ref('fct_pull_requests') }}
    {% if is_incremental() %}
    where {{ scoped('repo') }}
      and week_start between {{ var('start_week') }} - to_weeks((select trailing_weeks from settings))
          and {{ var('end_week') }}
    {% endif %}
),

counts as (
    -- decimal sums: the same inputs give the same figures whatever order DuckDB adds them in
    select
        repo, week_start, area, count(*) as pr_count,
        sum(cast(importance as decimal(18, 1))) as importance_sum
    from area_prs
    group by repo, week_start, area
),

-- each area in every extracted week of the window, so quiet weeks count as zero
grid as (
    select w.repo, w.week_start, a.area
    from weeks w
    join (select distinct repo, area from counts) a using (repo)
),

filled as (
    select
        g.repo,
        g.week_start,
        g.area,
        coalesce(c.pr_count, 0) as pr_count,
        coalesce(c.importance_sum, 0) as importance_sum
    from grid g
    left join counts c using (repo, week_start, area)
),

windowed as (
    select
        f.*,
        avg(f.pr_count) over trailing_window as trailing_avg,
        avg(f.importance_sum) over trailing_window as trailing_importance_avg
    from filled f
    window trailing_window as (
        partition by f.repo, f.area order by f.week_start
        range between to_weeks((select trailing_weeks from settings)) preceding and interval 1 day preceding
    )
),

history as (
    select
        h.repo,
        h.week_start,
        h.history_complete or h.history_weeks >= s.trailing_weeks as trailing_known
    from {{ ref('int_weekly_history') }} h
    cross join settings s
    {% if is_incremental() %}
    where {{ scoped('repo', 'h.repo') }}
      and h.week_start between {{ var('start_week') }} and {{ var('end_week') }}
    {% endif %}
),

classified as (
    select
        w.repo,
        w.week_start,
        w.area,
        w.pr_count,
        cast(w.importance_sum as double) as importance_sum,
        case when h.trailing_known then round(coalesce(w.trailing_avg, 0), 2) end as trailing_avg,
        case when h.trailing_known
            then round(cast(coalesce(w.trailing_importance_avg, 0) as double), 2)
        end as trailing_importance_avg,
        case
            when not h.trailing_known then 'unknown'
            when coalesce(w.trailing_avg, 0) = 0 then 'new'
            when w.pr_count >= s.rising_ratio * w.trailing_avg
                 and w.pr_count - w.trailing_avg >= s.rising_min_delta then 'rising'
            when w.pr_count <= s.falling_ratio * w.trailing_avg then 'falling'
            else 'steady'
        end as trend
    from windowed w
    cross join settings s
    join history h using (repo, week_start)
    where w.pr_count > 0 or coalesce(w.trailing_avg, 0) > 0
)

select * from classified
{% if is_incremental() %}
where week_start between {{ var('start_week') }} and {{ var('end_week') }}
{% endif %}
