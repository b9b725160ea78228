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
{%- set key_back = "(select key_weeks - 1 from key_settings)" %}
with key_settings as (
    select
        cast(max(value) filter (where name = 'key_weeks') as integer) as key_weeks,
        max(value) filter (where name = 'key_percentile') as key_percentile,
        max(value) filter (where name = 'key_floor') as key_floor,
        max(value) filter (where name = 'key_min_week_prs') as key_min_week_prs,
        max(value) filter (where name = 'key_max_prs') as key_max_prs
    from {{ ref('thresholds') }}
),

prs as (
    select * from {{ ref('stg_pull_requests') }}
    {{ in_run_weeks(back=key_back) }}
),

classified as (
    select * from {{ ref('int_pull_requests_classified') }}
    {{ in_run_weeks(back=key_back) }}
),

-- the raised flags' names, not their reasons: the list of every flag with its reason is the
-- widest column of the joins below (about 700 MB at a million PRs)
flags as (
    select
        * exclude (risks),
        list_sort([r.risk_flag for r in risks if r.raised]) as risk_flags
    from {{ ref('int_pull_request_flags') }}
    {{ in_run_weeks(back=key_back) }}
),

-- one BOOLEAN column per risk flag, named and ordered by seeds/risk_flags.csv
flag_columns as (
    select * from {{ ref('int_pull_request_flag_columns') }}
    {{ in_run_weeks(back=key_back) }}
),

descriptions as (
    select * from {{ ref('int_pull_request_descriptions') }}
    {{ in_run_weeks(back=key_back) }}
),

releases as (
    select * from {{ ref('int_pull_request_releases') }}
    {{ in_run_weeks(back=key_back) }}
),

key_threshold as (
    select weight from {{ ref('importance_weights') }} where factor = 'key_threshold'
),

weights as (
    select map(list(factor), list(weight)) as w from {{ ref('importance_weights') }}
),

-- the topics a PR serves, in the order of seeds/topics.csv
pr_topics as (
    select repo, number, list(topic order by topic_position, topic) as topics
    from {{ ref('int_pull_request_topics') }}
    {{ in_run_weeks(back=key_back) }}
    group by repo, number
),

factors as (
    select
        p.*,
        c.change_type,
        c.change_type_signal,
        c.primary_area,
        c.areas,
        c.area_signal,
        fc.breaking_change as is_breaking,
        c.is_performance,
        c.touches_tests,
        c.new_module_path,
        fl.* exclude (repo, week_start, number, changed_lines, changed_files),
        d.severity_word,
        d.severity_consequence,
        d.summary,
        d.summary_source,
        d.impact_claims,
        d.headline_claim,
        d.caveats,
        least(w.w['size_cap'], w.w['size'] * log10(1 + p.additions + p.deletions)) as size_points,
        least(
            w.w['breadth_cap'],
            w.w['area_breadth'] * greatest(len(c.areas) - 1, 0)
                + w.w['file_breadth'] * least(p.changed_files, 10)
        ) as breadth_points,
        case when fc.core_path then w.w['core'] else 0 end as core_points,
        coalesce(w.w['type_' || c.change_type], 0) as type_points,
        case when fc.breaking_change then w.w['breaking'] else 0 end as breaking_points,
        -- consequence: a fix of a race, a crash, a corruption, ... (seeds/severity_words.csv)
        case when c.change_type = 'fix' and d.severity_word is not null then w.w['severity'] else 0 end
            as severity_points,
        -- a figure the author measured: the headline claim (a control row's ×1.00 is none)
        case when d.headline_claim is not null then w.w['impact'] else 0 end as impact_points,
        case when c.new_module_path is not null then w.w['surface'] else 0 end as surface_points,
        -- NULL when the source holds no reviews and no threads: unknown, so it adds nothing
        case when fl.reviews_known or fl.threads_known then least(
            w.w['review_cap'],
            w.w['review_reviewer'] * coalesce(fl.reviewers, 0)
                + w.w['review_thread'] * coalesce(fl.thread_count, 0)
        ) end as review_points,
        c.change_type in ('docs', 'ci', 'chore') as dampened,
        w.w['dampener'] as dampener_keep
    from prs p
    join classified c using (repo, number)
    join flags fl using (repo, number)
    join flag_columns fc using (repo, number)
    join descriptions d using (repo, number)
    cross join weights w
),

scored as (
    select
        *,
        size_points + breadth_points + core_points + type_points + breaking_points
            + severity_points + impact_points + surface_points + coalesce(review_points, 0) as raw_points
    from factors
),

-- docs, CI and chore PRs keep `dampener` of their points, but all of a breaking change's
kept as (
    select
        *,
        case when dampened then (raw_points - breaking_points) * (1 - dampener_keep) else 0 end
            as dampener_points
    from scored
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
    from kept f
    join flag_columns fc using (repo, number)
    left join pr_topics tp using (repo, number)
    left join releases rl using (repo, number)
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
            least(t.weight, greatest(s.key_floor, p.window_percentile)) as percentile_threshold,
            w.week_prs >= s.key_min_week_prs
                and w.week_top < least(t.weight, greatest(s.key_floor, p.window_percentile)) as lowered,
            case
                when p.window_percentile >= t.weight then 'ceiling'
                when p.window_percentile < s.key_floor then 'floor'
                else 'percentile'
            end as percentile_rule
        from week_windows w
        cross join key_settings s
        cross join key_threshold t
        cross join lateral (
            select w.window_importances[
                greatest(1, cast(ceil(s.key_percentile * len(w.window_importances)) as integer))
            ] as window_percentile
        ) p
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
