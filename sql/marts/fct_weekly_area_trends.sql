{{ config(materialized='incremental') }}

-- PRs and importance per area and week against the area's average over the trailing
-- `trailing_weeks` extracted weeks (quiet weeks count as zero; `trailing_weeks` of a row says
-- how many weeks the average covers: fewer at the start of the history), classified as a trend
-- (thresholds in seeds/thresholds.csv, the rule in macros/trends.sql):
--   unknown  fewer than trailing_weeks weeks before are extracted, and the history does not
--            reach the repository's first PR (int_weekly_history): trailing_avg is NULL;
--   new      no PR in the area in any extracted week before;
--   back     PRs before, but none in the trailing weeks (`weeks_since_last` says how long ago);
--   rising   pr_count >= rising_ratio x trailing_avg and pr_count - trailing_avg >= rising_min_delta;
--   falling  pr_count <= falling_ratio x trailing_avg and trailing_avg - pr_count >= falling_min_delta;
--   steady   anything else.
-- pr_count counts every area a PR touches (a PR counts in each of its areas); primary_pr_count
-- only the PRs whose primary area it is (what a chart of primary areas shows). An area appears
-- in a week when it has PRs then or in its trailing weeks.
with settings as (
    select
        cast(max(value) filter (where name = 'trailing_weeks') as integer) as trailing_weeks,
        max(value) filter (where name = 'rising_ratio') as rising_ratio,
        max(value) filter (where name = 'rising_min_delta') as rising_min_delta,
        max(value) filter (where name = 'falling_ratio') as falling_ratio,
        max(value) filter (where name = 'falling_min_delta') as falling_min_delta
    from {{ ref('thresholds') }}
),

weeks as (
    select * from {{ ref('stg_weekly_partitions') }}
    {{ in_run_weeks(back="(select trailing_weeks from settings)") }}
),

prs as (
    select repo, week_start, areas, primary_area, importance
    from {{ ref('fct_pull_requests') }}
    {{ in_run_weeks(back="(select trailing_weeks from settings)") }}
),

area_prs as (
    select repo, week_start, unnest(areas) as area, importance from prs
),

primary_counts as (
    select repo, week_start, primary_area as area, count(*) as primary_pr_count
    from prs
    group by repo, week_start, primary_area
),

counts as (
    -- decimal sums: the same inputs give the same figures whatever order DuckDB adds them in
    select
        coalesce(a.repo, p.repo) as repo,
        coalesce(a.week_start, p.week_start) as week_start,
        coalesce(a.area, p.area) as area,
        coalesce(a.pr_count, 0) as pr_count,
        coalesce(a.importance_sum, 0) as importance_sum,
        coalesce(p.primary_pr_count, 0) as primary_pr_count
    from (
        select
            repo, week_start, area, count(*) as pr_count,
            sum(cast(importance as decimal(18, 1))) as importance_sum
        from area_prs
        group by repo, week_start, area
    ) a
    full join primary_counts p using (repo, week_start, area)
),

-- the last week before the window with a PR in the area (an incremental run reads no further)
earlier as (
    {% if is_incremental() %}
    select repo, area, max(week_start) as last_week
    from (
        select repo, week_start, unnest(areas) as area
        from {{ ref('fct_pull_requests') }}
        where {{ scoped('repo') }}
          and week_start < {{ var('start_week') }} - to_weeks((select trailing_weeks from settings))
    ) e
    group by repo, area
    {% else %}
    select cast(null as varchar) as repo, cast(null as varchar) as area, cast(null as date) as last_week
    where false
    {% endif %}
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
        coalesce(c.primary_pr_count, 0) as primary_pr_count,
        coalesce(c.importance_sum, 0) as importance_sum
    from grid g
    left join counts c using (repo, week_start, area)
),

windowed as (
    select
        f.*,
        avg(f.pr_count) over trailing_window as trailing_avg,
        avg(f.importance_sum) over trailing_window as trailing_importance_avg,
        count(*) over trailing_window as trailing_weeks,
        coalesce(
            -- ordered as the range frames are (a week as a timestamp): one sort for every window
            max(case when f.pr_count > 0 then f.week_start end) over (
                partition by f.repo, f.area order by cast(f.week_start as timestamp)
                rows between unbounded preceding and 1 preceding
            ),
            e.last_week
        ) as last_week
    from filled f
    left join earlier e using (repo, area)
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
    {{ in_run_weeks(of='h') }}
),

classified as (
    select
        w.repo,
        w.week_start,
        w.area,
        w.pr_count,
        w.primary_pr_count,
        cast(w.importance_sum as double) as importance_sum,
        case when h.trailing_known then round(coalesce(w.trailing_avg, 0), 2) end as trailing_avg,
        case when h.trailing_known
            then round(cast(coalesce(w.trailing_importance_avg, 0) as double), 2)
        end as trailing_importance_avg,
        cast(w.trailing_weeks as integer) as trailing_weeks,
        {{ trend_word('w.pr_count', 'w.trailing_avg', 'w.last_week', 'h.trailing_known') }} as trend,
        cast((w.week_start - w.last_week) / 7 as integer) as weeks_since_last
    from windowed w
    cross join settings s
    join history h using (repo, week_start)
    where w.pr_count > 0 or coalesce(w.trailing_avg, 0) > 0
)

select * from classified
{{ in_run_weeks(repo=false) }}
