{{ config(materialized='incremental') }}

-- One row per repository and extracted week, including weeks in which nothing merged.
-- volume_trend compares merged_prs with the average of the trailing `trailing_weeks` extracted
-- weeks (`trailing_weeks` of a row: how many the average covers), as the area trends do
-- (macros/trends.sql): unknown (and the average NULL) when fewer weeks before are extracted and
-- the history does not reach the first PR; new for the first week with PRs, back after weeks
-- without; rising and falling need the ratio and an absolute change. `type_counts` are the
-- week's PRs per change type, most first (they add up to merged_prs); `theme_pr_count` the PRs
-- that serve a topic of the theme.
-- first_time_authors is known only when the history reaches the repository's first PR
-- (int_weekly_history): counted from a later week on, everyone would look new. The theme names
-- the week's leading topics (fct_weekly_topics) that stand out from the repository's usual mix:
-- among the topics with at least `theme_min_prs` PRs and `theme_min_share` of the week's
-- importance, the one whose share most exceeds its share over the `theme_baseline_weeks` weeks
-- before (a week where none qualifies takes the topic carrying the most importance), joined by
-- the next such topic when it carries at least `theme_second_share` and more than its usual
-- share. Names in English and Chinese from seeds/topics.csv.
with settings as (
    select
        cast(max(value) filter (where name = 'trailing_weeks') as integer) as trailing_weeks,
        max(value) filter (where name = 'rising_ratio') as rising_ratio,
        max(value) filter (where name = 'rising_min_delta') as rising_min_delta,
        max(value) filter (where name = 'falling_ratio') as falling_ratio,
        max(value) filter (where name = 'falling_min_delta') as falling_min_delta,
        max(value) filter (where name = 'theme_min_prs') as theme_min_prs,
        max(value) filter (where name = 'theme_min_share') as theme_min_share,
        max(value) filter (where name = 'theme_second_share') as theme_second_share
    from {{ ref('thresholds') }}
),

weeks as (
    select * from {{ ref('stg_weekly_partitions') }}
    {{ in_run_weeks(back="(select trailing_weeks from settings)") }}
),

prs as (
    select * from {{ ref('fct_pull_requests') }}
    {{ in_run_weeks(back="(select trailing_weeks from settings)") }}
),

history as (
    select * from {{ ref('int_weekly_history') }}
    {{ in_run_weeks() }}
),

-- the last week before the window with a merged PR (an incremental run reads no further)
earlier as (
    {% if is_incremental() %}
    select repo, max(week_start) as last_week
    from {{ ref('stg_pull_requests') }}
    where {{ scoped('repo') }}
      and week_start < {{ var('start_week') }} - to_weeks((select trailing_weeks from settings))
    group by repo
    {% else %}
    select cast(null as varchar) as repo, cast(null as date) as last_week where false
    {% endif %}
),

type_counts as (
    select
        repo,
        week_start,
        list({'change_type': change_type, 'pr_count': prs} order by prs desc, change_type asc) as type_counts
    from (
        select repo, week_start, change_type, count(*) as prs from prs group by repo, week_start, change_type
    ) t
    group by repo, week_start
),

key_threshold as (
    select weight as key_threshold from {{ ref('importance_weights') }} where factor = 'key_threshold'
),

per_week as (
    select
        p.repo,
        p.week_start,
        count(*) as merged_prs,
        count(*) filter (where p.is_key) as key_prs,
        count(distinct p.author) as authors,
        count(distinct p.author) filter (where fw.first_week = p.week_start) as first_time_authors,
        sum(p.additions) as additions,
        sum(p.deletions) as deletions,
        count(*) filter (where p.is_performance) as performance_prs,
        -- one threshold per week (fct_pull_requests)
        max(p.key_threshold) as key_threshold,
        max(p.key_threshold_rule) as key_threshold_rule,
        list({'number': p.number, 'version': p.release_version, 'title': p.title}
            order by p.merged_at, p.number) filter (where p.is_release) as releases
    from prs p
    left join {{ ref('int_author_first_weeks') }} fw using (repo, author)
    group by p.repo, p.week_start
),

topics as (
    select
        t.*,
        t.pr_count >= s.theme_min_prs and t.importance_share >= s.theme_min_share as can_lead,
        t.importance_share - coalesce(t.baseline_share, 0) as excess_share
    from {{ ref('fct_weekly_topics') }} t
    cross join settings s
    where t.pr_count > 0
    {{ in_run_weeks(of='t', keyword='and') }}
),

ranked_topics as (
    select
        *,
        row_number() over (
            partition by repo, week_start
            order by can_lead desc, case when can_lead then excess_share end desc nulls last,
                importance_sum desc, topic asc
        ) as rank
    from topics
),

themes as (
    select
        r.repo,
        r.week_start,
        list(r.topic order by r.rank) as theme_topics,
        string_agg(n.theme_en, ' and ' order by r.rank) as theme,
        string_agg(n.theme_zh, '与' order by r.rank) as theme_zh
    from ranked_topics r
    join {{ ref('topics') }} n using (topic)
    cross join settings s
    where r.rank = 1
       or (r.rank = 2 and r.can_lead and r.importance_share >= s.theme_second_share and r.excess_share > 0)
    group by r.repo, r.week_start
),

volumes as (
    select
        w.repo,
        w.week_start,
        coalesce(s.merged_prs, 0) as merged_prs,
        avg(coalesce(s.merged_prs, 0)) over trailing_window as trailing_avg_prs,
        count(*) over trailing_window as trailing_weeks,
        coalesce(
            max(case when s.merged_prs > 0 then w.week_start end) over (
                partition by w.repo order by w.week_start rows between unbounded preceding and 1 preceding
            ),
            e.last_week
        ) as last_week
    from weeks w
    left join per_week s using (repo, week_start)
    left join earlier e using (repo)
    window trailing_window as (
        partition by w.repo order by w.week_start
        range between to_weeks((select trailing_weeks from settings)) preceding and interval 1 day preceding
    )
),

theme_prs as (
    select p.repo, p.week_start, count(*) as theme_pr_count
    from prs p
    join themes t using (repo, week_start)
    where list_has_any(p.topics, t.theme_topics)
    group by p.repo, p.week_start
),

final as (
    select
        w.repo,
        w.week_start,
        cast(isoyear(w.week_start) as integer) as iso_year,
        cast(week(w.week_start) as integer) as iso_week,
        w.merged_prs,
        coalesce(s.key_prs, 0) as key_prs,
        -- a week without PRs has no threshold of its own: the one any repository's PRs reach
        coalesce(s.key_threshold, (select key_threshold from key_threshold)) as key_threshold,
        coalesce(s.key_threshold_rule, 'ceiling') as key_threshold_rule,
        coalesce(s.releases, []) as releases,
        coalesce(s.authors, 0) as authors,
        case when h.history_complete then coalesce(s.first_time_authors, 0) end
            as first_time_authors,
        coalesce(s.additions, 0) as additions,
        coalesce(s.deletions, 0) as deletions,
        t.theme,
        t.theme_zh,
        t.theme_topics,
        coalesce(list_contains(t.theme_topics, 'performance'), false) as is_perf_theme,
        coalesce(tp.theme_pr_count, 0) as theme_pr_count,
        coalesce(tc.type_counts, []) as type_counts,
        coalesce(s.performance_prs, 0) as performance_prs,
        cast(w.trailing_weeks as integer) as trailing_weeks,
        case when h.trailing_known then round(w.trailing_avg_prs, 2) end as trailing_avg_prs,
        {{ trend_word('w.merged_prs', 'w.trailing_avg_prs', 'w.last_week', 'h.trailing_known', 'st') }}
            as volume_trend,
        cast((w.week_start - w.last_week) / 7 as integer) as weeks_since_last,
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
    left join theme_prs tp using (repo, week_start)
    left join type_counts tc using (repo, week_start)
)

select * from final
{{ in_run_weeks(repo=false) }}
