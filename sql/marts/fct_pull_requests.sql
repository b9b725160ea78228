{{ config(materialized='incremental', lookback=var('lookback_weeks')) }}

-- One row per merged pull request: what it is, how much it matters and what is risky about it.
-- importance = the sum of the importance_* factors (weights in seeds/importance_weights.csv),
-- kept between 0 and 10 and rounded to one decimal.
--
-- Key PRs (`is_key`, the one rule; see key_thresholds below): a PR is key when its importance
-- reaches its week's `key_threshold` and it is among the week's `key_max_prs` most important,
-- or when it is a breaking change or a release, whatever its importance. The threshold adapts
-- to the repository: the `key_percentile` of the importance of its PRs in the `key_weeks`
-- weeks ending with this one, kept between `key_floor` (seeds/thresholds.csv) and
-- `key_threshold` (seeds/importance_weights.csv), which is reached by a PR of any repository;
-- a week with `key_min_week_prs` merged PRs or more in which no PR reaches it takes its most
-- important PR's importance instead. `key_threshold_rule` says which applied.
-- In an incremental run every input reads from `key_back` weeks before the run's first week, the
-- first of those weeks, so that the run's weeks see the same trailing PRs as a build of all weeks.
-- Its steps, each inlined here (ephemeral): int_pull_request_key_settings (the threshold's
-- settings) and int_pull_request_importance_factors (each PR's row and importance factors).
{%- set key_back = "(select key_weeks - 1 from " ~ ref('int_pull_request_key_settings') ~ ")" %}
with key_settings as (
    select * from {{ ref('int_pull_request_key_settings') }}
),

-- one BOOLEAN column per risk flag, named and ordered by seeds/risk_flags.csv
flag_columns as (
    select * from {{ ref('int_pull_request_flag_columns') }}
    {{ in_run_weeks(back=key_back) }}
),

releases as (
    select * from {{ ref('int_pull_request_releases') }}
    {{ in_run_weeks(back=key_back) }}
),

key_threshold as (
    select weight from {{ ref('importance_weights') }} where factor = 'key_threshold'
),

-- the topics a PR serves, in the order of seeds/topics.csv
pr_topics as (
    -- sorted as structs (position, topic): an ordered aggregate sorts each PR's rows apart
    select
        repo, week_start, number,
        list_transform(list_sort(list({'position': topic_position, 'topic': topic})), lambda x: x.topic) as topics
    from {{ ref('int_pull_request_topics') }}
    {{ in_run_weeks(back=key_back) }}
    group by repo, week_start, number
),

final as (
    select
        f.repo,
        f.number,
        f.week_start,
        f.merged_at,
        f.title,
        f.url,
        f.author,
        f.change_type,
        f.change_type_signal,
        f.primary_area,
        f.areas,
        f.area_signal,
        f.is_breaking,
        f.is_performance or list_contains(coalesce(tp.topics, []), 'performance') as is_performance,
        coalesce(tp.topics, []) as topics,
        f.additions,
        f.deletions,
        f.changed_files,
        f.files_complete,
        f.listed_files,
        f.touches_tests,
        round(least(10, greatest(0, f.raw_points - f.dampener_points)), 1) as importance,
        round(f.size_points, 2) as importance_size,
        round(f.breadth_points, 2) as importance_breadth,
        round(f.core_points, 2) as importance_core,
        round(f.type_points, 2) as importance_type,
        round(f.breaking_points, 2) as importance_breaking,
        round(f.severity_points, 2) as importance_severity,
        round(f.impact_points, 2) as importance_impact,
        round(f.surface_points, 2) as importance_surface,
        round(f.review_points, 2) as importance_review,
        round(-f.dampener_points, 2) as importance_dampener,
        f.risk_flags,
        fc.* exclude (repo, week_start, number),
        f.reverts_number,
        f.reverted_by,
        f.followed_up_by,
        f.follows_up,
        f.new_module_path,
        f.severity_word,
        f.severity_consequence,
        f.impact_claims,
        f.headline_claim,
        f.caveats,
        coalesce(rl.is_release, false) as is_release,
        rl.release_version,
        f.summary,
        f.summary_source
    from {{ ref('int_pull_request_importance_factors') }} f
    join flag_columns fc using (repo, week_start, number)
    left join pr_topics tp using (repo, week_start, number)
    left join releases rl using (repo, week_start, number)
),

-- the week's threshold (see the header): of the importance of the PRs of the key_weeks weeks
-- ending with it in ascending order, the value at key_percentile of the way (at least that
-- share of them are at or below it); and the week's key_max_prs most important PRs. Worked out
-- per week from its PRs' importance, then joined to them (no sort of the PRs' rows).
week_importance as (
    select
        repo,
        week_start,
        list(importance) as importances,
        max(importance) as week_top,
        count(*) as week_prs,
        list(number order by importance desc, number asc)[1:(select cast(key_max_prs as integer) from key_settings)]
            as week_leaders
    from final
    group by repo, week_start
),

week_windows as (
    select
        *,
        list_sort(flatten(list(importances) over (
            partition by repo order by week_start
            range between to_weeks((select key_weeks - 1 from key_settings)) preceding and current row
        ))) as window_importances
    from week_importance
),

week_thresholds as (
    select
        repo,
        week_start,
        week_leaders,
        case when lowered then week_top else percentile_threshold end as key_threshold,
        case when lowered then 'week_top' else percentile_rule end as key_threshold_rule
    from (
        select
            w.repo,
            w.week_start,
            w.week_leaders,
            w.week_top,
            least(w.weight, greatest(w.key_floor, w.window_percentile)) as percentile_threshold,
            w.week_prs >= w.key_min_week_prs
                and w.week_top < least(w.weight, greatest(w.key_floor, w.window_percentile)) as lowered,
            case
                when w.window_percentile >= w.weight then 'ceiling'
                when w.window_percentile < w.key_floor then 'floor'
                else 'percentile'
            end as percentile_rule
        -- the percentile a column of the row: a lateral subquery was joined back to the weeks
        from (
            select
                w.*,
                t.weight,
                s.key_floor,
                s.key_min_week_prs,
                w.window_importances[
                    greatest(1, cast(ceil(s.key_percentile * len(w.window_importances)) as integer))
                ] as window_percentile
            from week_windows w
            cross join key_settings s
            cross join key_threshold t
        ) w
    ) k
)

select
    f.*,  -- noqa: AM04
    k.key_threshold,
    k.key_threshold_rule,
    -- breaking changes and releases are key whatever their importance
    case
        when f.is_breaking then 'breaking'
        when f.is_release then 'release'
        when f.importance >= k.key_threshold and list_contains(k.week_leaders, f.number) then 'importance'
    end as key_reason,
    coalesce(f.is_breaking, false) or f.is_release
        or (f.importance >= k.key_threshold and list_contains(k.week_leaders, f.number)) as is_key
from final f
join week_thresholds k using (repo, week_start)
{{ in_run_weeks(repo=false, of='f') }}
