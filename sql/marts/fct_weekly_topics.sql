{{ config(materialized='incremental') }}

-- PRs and importance per topic and week (a PR serving two topics counts in both), the PRs
-- themselves by importance, and the topic's share of the week's importance, against the
-- topic's average over the trailing `trailing_weeks` extracted weeks (quiet weeks count as
-- zero; `trailing_weeks` of a row says how many weeks the average covers), classified as the
-- area trends are (seeds/thresholds.csv, macros/trends.sql): unknown, new (no PR of the topic
-- in any extracted week before), back (PRs before, none in the trailing weeks), rising, falling
-- (both need the ratio and an absolute change) or steady.
-- A topic appears in a week when it has PRs then or in its trailing weeks. baseline_share is
-- the topic's share of the importance of the `theme_baseline_weeks` extracted weeks before
-- this one: what the repository usually spends on it, which the week's theme compares with.
with settings as (
    select
        cast(max(value) filter (where name = 'trailing_weeks') as integer) as trailing_weeks,
        cast(max(value) filter (where name = 'theme_baseline_weeks') as integer) as baseline_weeks,
        max(value) filter (where name = 'rising_ratio') as rising_ratio,
        max(value) filter (where name = 'rising_min_delta') as rising_min_delta,
        max(value) filter (where name = 'falling_ratio') as falling_ratio,
        max(value) filter (where name = 'falling_min_delta') as falling_min_delta
    from {{ ref('thresholds') }}
),

weeks as (
    select * from {{ ref('stg_weekly_partitions') }}
    {{ in_run_weeks(back="(select greatest(trailing_weeks, baseline_weeks) from settings)") }}
),

prs as (
    select repo, week_start, number, importance
    from {{ ref('fct_pull_requests') }}
    {{ in_run_weeks(back="(select greatest(trailing_weeks, baseline_weeks) from settings)") }}
),

topic_prs as (
    select t.repo, t.week_start, t.topic, t.number, p.importance
    from {{ ref('int_pull_request_topics') }} t
    join prs p using (repo, week_start, number)
),

-- the last week before the window with a PR of the topic (an incremental run reads no further)
earlier as (
    {% if is_incremental() %}
    select repo, topic, max(week_start) as last_week
    from {{ ref('int_pull_request_topics') }}
    where {{ scoped('repo') }}
      and week_start < {{ var('start_week') }} - to_weeks((select greatest(trailing_weeks, baseline_weeks) from settings))
    group by repo, topic
    {% else %}
    select cast(null as varchar) as repo, cast(null as varchar) as topic, cast(null as date) as last_week
    where false
    {% endif %}
),

-- decimal sums: the same inputs give the same figures whatever order DuckDB adds them in
week_totals as (
    select repo, week_start, sum(cast(importance as decimal(18, 1))) as importance
    from prs
    group by repo, week_start
),

counts as (
    select
        repo,
        week_start,
        topic,
        count(*) as pr_count,
        sum(cast(importance as decimal(18, 1))) as importance_sum,
        list(number order by importance desc, number asc) as numbers
    from topic_prs
    group by repo, week_start, topic
),

-- each topic in every extracted week of the window, so quiet weeks count as zero
grid as (
    select w.repo, w.week_start, t.topic
    from weeks w
    join (select distinct repo, topic from counts) t using (repo)
),

filled as (
    select
        g.repo,
        g.week_start,
        g.topic,
        coalesce(c.pr_count, 0) as pr_count,
        coalesce(c.importance_sum, 0) as importance_sum,
        coalesce(c.numbers, []) as numbers
    from grid g
    left join counts c using (repo, week_start, topic)
),

-- what depends on the week alone (its total, its trailing weeks and baseline total), windowed
-- over the repository's weeks, not over every topic's copy of them in the grid; distinct: a
-- week twice in the partitions has the same frames both times, as in the grid
week_windows as (
    select distinct
        w.repo,
        w.week_start,
        coalesce(wt.importance, 0) as week_importance,
        count(*) over trailing_window as trailing_weeks,
        sum(coalesce(wt.importance, 0)) over baseline_window as baseline_total
    from weeks w
    left join week_totals wt using (repo, week_start)
    window
        trailing_window as (
            partition by w.repo order by w.week_start
            range between to_weeks((select trailing_weeks from settings)) preceding and interval 1 day preceding
        ),
        baseline_window as (
            partition by w.repo order by w.week_start
            range between to_weeks((select baseline_weeks from settings)) preceding and interval 1 day preceding
        )
),

windowed as (
    select
        f.*,
        avg(f.pr_count) over trailing_window as trailing_avg,
        avg(f.importance_sum) over trailing_window as trailing_importance_avg,
        sum(f.importance_sum) over baseline_window as baseline_importance,
        coalesce(
            -- ordered as the range frames are (a week as a timestamp): one sort for every window
            max(case when f.pr_count > 0 then f.week_start end) over (
                partition by f.repo, f.topic order by cast(f.week_start as timestamp)
                rows between unbounded preceding and 1 preceding
            ),
            e.last_week
        ) as last_week
    from filled f
    left join earlier e using (repo, topic)
    window
        trailing_window as (
            partition by f.repo, f.topic order by f.week_start
            range between to_weeks((select trailing_weeks from settings)) preceding and interval 1 day preceding
        ),
        baseline_window as (
            partition by f.repo, f.topic order by f.week_start
            range between to_weeks((select baseline_weeks from settings)) preceding and interval 1 day preceding
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
        w.topic,
        t.name_en as topic_en,
        t.name_zh as topic_zh,
        w.pr_count,
        cast(w.importance_sum as double) as importance_sum,
        round(cast(w.importance_sum / nullif(ww.week_importance, 0) as double), 3) as importance_share,
        round(cast(w.baseline_importance / nullif(ww.baseline_total, 0) as double), 3) as baseline_share,
        w.numbers,
        case when h.trailing_known then round(coalesce(w.trailing_avg, 0), 2) end as trailing_avg,
        case when h.trailing_known
            then round(cast(coalesce(w.trailing_importance_avg, 0) as double), 2)
        end as trailing_importance_avg,
        cast(ww.trailing_weeks as integer) as trailing_weeks,
        {{ trend_word('w.pr_count', 'w.trailing_avg', 'w.last_week', 'h.trailing_known') }} as trend,
        cast((w.week_start - w.last_week) / 7 as integer) as weeks_since_last
    from windowed w
    cross join settings s
    join week_windows ww using (repo, week_start)
    join {{ ref('topics') }} t using (topic)
    join history h using (repo, week_start)
    where w.pr_count > 0 or coalesce(w.trailing_avg, 0) > 0
)

select * from classified
{{ in_run_weeks(repo=false) }}
