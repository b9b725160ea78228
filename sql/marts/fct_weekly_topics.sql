{{ config(materialized='incremental') }}

-- PRs and importance per topic and week (a PR serving two topics counts in both), the PRs
-- themselves by importance, and the topic's share of the week's importance, against the
-- topic's average over the trailing `trailing_weeks` extracted weeks (quiet weeks count as
-- zero), classified with the thresholds of fct_weekly_area_trends (seeds/thresholds.csv):
--   unknown  fewer than trailing_weeks weeks before are extracted, and the history does not
--            reach the repository's first PR (int_weekly_history): trailing_avg is NULL;
--   new      no PRs of the topic in the trailing weeks (or no trailing weeks at all);
--   rising   pr_count >= rising_ratio x trailing_avg and pr_count - trailing_avg >= rising_min_delta;
--   falling  pr_count <= falling_ratio x trailing_avg (a week without the topic after one with it);
--   steady   anything else.
-- A topic appears in a week when it has PRs then or in its trailing weeks. baseline_share is
-- the topic's share of the importance of the `theme_baseline_weeks` extracted weeks before
-- this one: what the repository usually spends on it, which the week's theme compares with.
with settings as (
    select
        cast(max(value) filter (where name = 'trailing_weeks') as integer) as trailing_weeks,
        cast(max(value) filter (where name = 'theme_baseline_weeks') as integer) as baseline_weeks,
        max(value) filter (where name = 'rising_ratio') as rising_ratio,
        max(value) filter (where name = 'rising_min_delta') as rising_min_delta,
        max(value) filter (where name = 'falling_ratio') as falling_ratio
    from {{ ref('thresholds') }}
),

weeks as (
    select * from {{ ref('stg_weekly_partitions') }}
    {% if is_incremental() %}
    where {{ scoped('repo') }}
      and week_start between {{ var('start_week') }} - to_weeks((select greatest(trailing_weeks, baseline_weeks) from settings))
          and {{ var('end_week') }}
    {% endif %}
),

prs as (
    select repo, week_start, number, importance
    from {{ ref('fct_pull_requests') }}
    {% if is_incremental() %}
    where {{ scoped('repo') }}
      and week_start between {{ var('start_week') }} - to_weeks((select greatest(trailing_weeks, baseline_weeks) from settings))
          and {{ var('end_week') }}
    {% endif %}
),

topic_prs as (
    select t.repo, t.week_start, t.topic, t.number, p.importance
    from {{ ref('int_pull_request_topics') }} t
    join prs p using (repo, week_start, number)
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
        coalesce(c.numbers, []) as numbers,
        coalesce(wt.importance, 0) as week_importance
    from grid g
    left join counts c using (repo, week_start, topic)
    left join week_totals wt using (repo, week_start)
),

windowed as (
    select
        f.*,
        avg(f.pr_count) over trailing_window as trailing_avg,
        avg(f.importance_sum) over trailing_window as trailing_importance_avg,
        sum(f.importance_sum) over baseline_window as baseline_importance,
        sum(f.week_importance) over baseline_window as baseline_total
    from filled f
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
    {% if is_incremental() %}
    where {{ scoped('repo', 'h.repo') }}
      and h.week_start between {{ var('start_week') }} and {{ var('end_week') }}
    {% endif %}
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
        round(cast(w.importance_sum / nullif(w.week_importance, 0) as double), 3) as importance_share,
        round(cast(w.baseline_importance / nullif(w.baseline_total, 0) as double), 3) as baseline_share,
        w.numbers,
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
    join {{ ref('topics') }} t using (topic)
    join history h using (repo, week_start)
    where w.pr_count > 0 or coalesce(w.trailing_avg, 0) > 0
)

select * from classified
{% if is_incremental() %}
where week_start between {{ var('start_week') }} and {{ var('end_week') }}
{% endif %}
