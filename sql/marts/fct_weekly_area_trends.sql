{{ config(materialized='incremental') }}

-- Activity per area and week against the area's trailing average, classified as a trend:
-- new (no PRs in the trailing weeks), rising, steady or falling (thresholds in seeds/thresholds).
with settings as (
    select
        max(value) filter (where name = 'trailing_weeks') as trailing_weeks,
        max(value) filter (where name = 'rising_ratio') as rising_ratio,
        max(value) filter (where name = 'rising_min_delta') as rising_min_delta,
        max(value) filter (where name = 'falling_ratio') as falling_ratio
    from {{ ref('thresholds') }}
),

weeks as (
    select * from {{ ref('stg_weekly_partitions') }}
    {% if is_incremental() %}
    where repo = {{ var('repo') }}
    {% endif %}
),

area_prs as (
    select repo, week_start, unnest(areas) as area, importance
    from {{ ref('fct_pull_requests') }}
    {% if is_incremental() %}
    where repo = {{ var('repo') }}
    {% endif %}
),

counts as (
    select repo, week_start, area, count(*) as pr_count, sum(importance) as importance_sum
    from area_prs
    group by repo, week_start, area
),

-- every area the repository has ever had, in every extracted week, so quiet weeks count as zero
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
        round(coalesce(c.importance_sum, 0), 1) as importance_sum
    from grid g
    left join counts c using (repo, week_start, area)
),

windowed as (
    select
        f.repo,
        f.week_start,
        f.area,
        any_value(f.pr_count) as pr_count,
        any_value(f.importance_sum) as importance_sum,
        avg(p.pr_count) as trailing_avg,
        avg(p.importance_sum) as trailing_importance_avg
    from filled f
    cross join settings s
    left join filled p
        on p.repo = f.repo
        and p.area = f.area
        and p.week_start < f.week_start
        and p.week_start >= f.week_start - cast(7 * s.trailing_weeks as integer)
    group by f.repo, f.week_start, f.area
),

classified as (
    select
        w.repo,
        w.week_start,
        w.area,
        w.pr_count,
        w.importance_sum,
        round(coalesce(w.trailing_avg, 0), 2) as trailing_avg,
        round(coalesce(w.trailing_importance_avg, 0), 2) as trailing_importance_avg,
        case
            when coalesce(w.trailing_avg, 0) = 0 then 'new'
            when w.pr_count >= s.rising_ratio * w.trailing_avg
                 and w.pr_count - w.trailing_avg >= s.rising_min_delta then 'rising'
            when w.pr_count <= s.falling_ratio * w.trailing_avg then 'falling'
            else 'steady'
        end as trend
    from windowed w
    cross join settings s
    where w.pr_count > 0 or coalesce(w.trailing_avg, 0) > 0
)

select * from classified
{% if is_incremental() %}
where week_start between {{ var('start_week') }} and {{ var('end_week') }}
{% endif %}
