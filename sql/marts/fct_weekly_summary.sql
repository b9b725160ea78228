{{ config(materialized='incremental') }}

-- One row per repository and extracted week, including weeks in which nothing merged.
-- volume_trend compares merged_prs with the average of the trailing `trailing_weeks` extracted
-- weeks, with the thresholds of fct_weekly_area_trends; it is `unknown` (and the average NULL)
-- when fewer weeks before are extracted and the history does not reach the first PR.
-- first_time_authors is known only when the history reaches the repository's first PR
-- (int_weekly_history): counted from a later week on, everyone would look new. The theme names the signal carrying the
-- most importance (seeds/theme_signals.csv: the change type, or `performance` for a PR
-- recognised as performance work), joined by the second when it carries at least
-- `theme_second_share` of the week's importance (names in seeds/themes.csv).
with settings as (
    select
        cast(max(value) filter (where name = 'trailing_weeks') as integer) as trailing_weeks,
        max(value) filter (where name = 'rising_ratio') as rising_ratio,
        max(value) filter (where name = 'rising_min_delta') as rising_min_delta,
        max(value) filter (where name = 'falling_ratio') as falling_ratio,
        max(value) filter (where name = 'theme_second_share') as theme_second_share
    from {{ ref('thresholds') }}
),

weeks as (
    select * from {{ ref('stg_weekly_partitions') }}
    {% if is_incremental() %}
    where repo = {{ var('repo') }}
      and week_start between {{ var('start_week') }} - to_weeks((select trailing_weeks from settings))
          and {{ var('end_week') }}
    {% endif %}
),

prs as (
    select * from {{ ref('fct_pull_requests') }}
    {% if is_incremental() %}
    where repo = {{ var('repo') }}
      and week_start between {{ var('start_week') }} - to_weeks((select trailing_weeks from settings))
          and {{ var('end_week') }}
    {% endif %}
),

history as (
    select * from {{ ref('int_weekly_history') }}
    {% if is_incremental() %}
    where repo = {{ var('repo') }} and week_start between {{ var('start_week') }} and {{ var('end_week') }}
    {% endif %}
),

-- an author's first week is their earliest merged PR in everything extracted for the repository
first_weeks as (
    select repo, author, min(week_start) as first_week
    from {{ ref('stg_pull_requests') }}
    {% if is_incremental() %}
    where repo = {{ var('repo') }}
    {% endif %}
    group by repo, author
),

key_threshold as (
    select weight as threshold from {{ ref('importance_weights') }} where factor = 'key_threshold'
),

per_week as (
    select
        p.repo,
        p.week_start,
        count(*) as merged_prs,
        count(*) filter (where p.importance >= k.threshold) as key_prs,
        count(distinct p.author) as authors,
        count(distinct p.author) filter (where fw.first_week = p.week_start) as first_time_authors,
        sum(p.additions) as additions,
        sum(p.deletions) as deletions,
        count(*) filter (where p.is_performance) as performance_prs
    from prs p
    cross join key_threshold k
    left join first_weeks fw using (repo, author)
    group by p.repo, p.week_start
),

signal_importance as (
    select
        p.repo,
        p.week_start,
        case when p.is_performance then 'performance' else ts.signal end as signal,
        -- a decimal sum: float addition in whatever order DuckDB picks made exact ties (and
        -- shares exactly at theme_second_share) come out differently from one build to the next
        sum(cast(p.importance as decimal(18, 1))) as importance
    from prs p
    left join {{ ref('theme_signals') }} ts on ts.change_type = p.change_type
    group by all
),

ranked_signals as (
    select
        *,
        row_number() over (partition by repo, week_start order by importance desc, signal) as rank,
        importance / nullif(sum(importance) over (partition by repo, week_start), 0) as share
    from signal_importance
),

week_signals as (
    select
        r.repo,
        r.week_start,
        max(r.signal) filter (where r.rank = 1) as first_signal,
        max(r.signal) filter (where r.rank = 2 and r.share >= s.theme_second_share) as second_signal
    from ranked_signals r
    cross join settings s
    group by r.repo, r.week_start
),

single_themes as (
    select signal, theme_en, theme_zh from {{ ref('themes') }} where second_signal is null
),

-- a pair names itself in either order; a pair the seed lacks is composed from its two names
themes as (
    select
        w.repo,
        w.week_start,
        w.first_signal,
        w.second_signal,
        coalesce(
            pair.theme_en,
            case when w.second_signal is not null then a.theme_en || ' and ' || b.theme_en end,
            a.theme_en
        ) as theme,
        coalesce(
            pair.theme_zh,
            case when w.second_signal is not null then a.theme_zh || '与' || b.theme_zh end,
            a.theme_zh
        ) as theme_zh
    from week_signals w
    left join {{ ref('themes') }} pair
        on (pair.signal = w.first_signal and pair.second_signal = w.second_signal)
        or (pair.signal = w.second_signal and pair.second_signal = w.first_signal)
    left join single_themes a on a.signal = w.first_signal
    left join single_themes b on b.signal = w.second_signal
),

volumes as (
    select
        w.repo,
        w.week_start,
        coalesce(s.merged_prs, 0) as merged_prs,
        avg(coalesce(s.merged_prs, 0)) over (
            partition by w.repo order by w.week_start
            range between to_weeks((select trailing_weeks from settings)) preceding and interval 1 day preceding
        ) as trailing_avg_prs
    from weeks w
    left join per_week s using (repo, week_start)
),

final as (
    select
        w.repo,
        w.week_start,
        cast(isoyear(w.week_start) as integer) as iso_year,
        cast(week(w.week_start) as integer) as iso_week,
        w.merged_prs,
        coalesce(s.key_prs, 0) as key_prs,
        coalesce(s.authors, 0) as authors,
        case when h.history_complete then coalesce(s.first_time_authors, 0) end
            as first_time_authors,
        coalesce(s.additions, 0) as additions,
        coalesce(s.deletions, 0) as deletions,
        t.theme,
        t.theme_zh,
        t.first_signal as theme_signal,
        t.second_signal as theme_second_signal,
        coalesce(t.first_signal = 'performance' or t.second_signal = 'performance', false)
            as is_perf_theme,
        coalesce(s.performance_prs, 0) as performance_prs,
        case when h.trailing_known then round(w.trailing_avg_prs, 2) end as trailing_avg_prs,
        case
            when not h.trailing_known then 'unknown'
            when coalesce(w.trailing_avg_prs, 0) = 0 then 'new'
            when w.merged_prs >= st.rising_ratio * w.trailing_avg_prs
                 and w.merged_prs - w.trailing_avg_prs >= st.rising_min_delta then 'rising'
            when w.merged_prs <= st.falling_ratio * w.trailing_avg_prs then 'falling'
            else 'steady'
        end as volume_trend,
        h.history_since,
        h.history_complete
    from volumes w
    cross join settings st
    join (
        select *, history_complete or history_weeks >= (select trailing_weeks from settings)
            as trailing_known
        from history
    ) h using (repo, week_start)
    left join per_week s using (repo, week_start)
    left join themes t using (repo, week_start)
)

select * from final
{% if is_incremental() %}
where week_start between {{ var('start_week') }} and {{ var('end_week') }}
{% endif %}
