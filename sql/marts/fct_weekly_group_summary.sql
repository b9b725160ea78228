{{ config(materialized='table') }}

-- One row per group and week that any of its repositories has extracted: what happened across
-- them, added up from fct_weekly_group_repositories; `authors` counts each login once across
-- the group (bots left out). The trailing averages add up the repositories' own (each over the
-- weeks of it that exist, at most trailing_weeks; `trailing_weeks` is the most any covers), so a
-- repository with a shorter history weighs only the weeks it has, and they are NULL when a
-- repository's is (its weeks before are not in the warehouse). volume_trend, active_trend and
-- missing_tests_trend word this week against them as every trend does (macros/trends.sql;
-- `weeks_since_last` counts from the group's last week with a merged PR). Releases: every
-- repository's, with the PR's link, in the group's order. First-time contributors: the authors
-- whose first merged PR in any repository of the group, as far as the warehouse holds them, is
-- this week's, in a repository whose history reaches its first PR; `first_time_authors` counts
-- them when every repository that merged a PR this week has such a history, else it is NULL and
-- `first_time_unknown` names those that do not.
with settings as (
    select
        max(value) filter (where name = 'rising_ratio') as rising_ratio,
        max(value) filter (where name = 'rising_min_delta') as rising_min_delta,
        max(value) filter (where name = 'falling_ratio') as falling_ratio,
        max(value) filter (where name = 'falling_min_delta') as falling_min_delta
    from {{ ref('thresholds') }}
),

repos as (
    select * from {{ ref('fct_weekly_group_repositories') }}
),

logins as (
    select group_name, week_start, unnest(author_logins) as author from repos
),

first_weeks as (
    select group_name, author, min(week_start) as first_week from logins group by all
),

newcomers as (
    select
        r.group_name,
        r.week_start,
        u.n.author as author,
        list(distinct r.display_name order by r.display_name) as repos,
        flatten(list(
            list_transform(u.n.prs, lambda x: {'repo': r.display_name, 'number': x.number, 'title': x.title, 'url': x.url})
            order by r.position
        )) as prs
    from repos r, unnest(r.newcomers) as u(n)  -- noqa: AL01, LT01
    join first_weeks f on f.group_name = r.group_name and f.author = u.n.author
    where r.history_complete and f.first_week = r.week_start
    group by all
),

newcomer_lists as (
    select
        group_name,
        week_start,
        list({'author': author, 'repos': repos, 'prs': prs} order by author) as first_time_contributors
    from newcomers
    group by all
),

authors as (
    select group_name, week_start, count(distinct author) as authors from logins group by all
),

releases as (
    select
        r.group_name,
        r.week_start,
        list({'repo': r.display_name, 'number': u.rel.number, 'version': u.rel.version, 'title': u.rel.title,
              'url': u.rel.url} order by r.position, u.rel.number) as releases
    from repos r, unnest(r.releases) as u(rel)  -- noqa: AL01, LT01
    group by all
),

per_week as (
    select
        group_name,
        week_start,
        cast(count(*) as integer) as repositories,
        cast(count(*) filter (where extracted) as integer) as reported_repositories,
        cast(count(*) filter (where merged_prs > 0) as integer) as active_repositories,
        cast(sum(merged_prs) as bigint) as merged_prs,
        cast(sum(key_prs) as bigint) as key_prs,
        cast(sum(missing_tests_prs) as bigint) as missing_tests_prs,
        max(trailing_weeks) filter (where extracted) as trailing_weeks,
        bool_and(trailing_avg_prs is not null) filter (where extracted) as trailing_known,
        sum(trailing_avg_prs) filter (where extracted) as trailing_avg_prs,
        sum(trailing_active_share) filter (where extracted) as trailing_avg_active,
        sum(trailing_missing_tests) filter (where extracted) as trailing_missing_tests,
        coalesce(list(display_name order by position) filter (where merged_prs > 0 and not history_complete), [])
            as first_time_unknown
    from repos
    group by all
),

dated as (
    select
        *,
        max(case when merged_prs > 0 then week_start end) over (
            partition by group_name order by week_start rows between unbounded preceding and 1 preceding
        ) as last_week,
        max(case when missing_tests_prs > 0 then week_start end) over (
            partition by group_name order by week_start rows between unbounded preceding and 1 preceding
        ) as last_missing_week
    from per_week
),

final as (
    select
        w.group_name,
        w.week_start,
        cast(isoyear(w.week_start) as integer) as iso_year,
        cast(week(w.week_start) as integer) as iso_week,
        w.repositories,
        w.reported_repositories,
        w.active_repositories,
        w.merged_prs,
        w.key_prs,
        coalesce(a.authors, 0) as authors,
        case when len(w.first_time_unknown) = 0 then coalesce(len(n.first_time_contributors), 0) end
            as first_time_authors,
        coalesce(n.first_time_contributors, []) as first_time_contributors,
        w.first_time_unknown,
        coalesce(rl.releases, []) as releases,
        cast(w.trailing_weeks as integer) as trailing_weeks,
        case when w.trailing_known then round(w.trailing_avg_prs, 2) end as trailing_avg_prs,
        {{ trend_word('w.merged_prs', 'w.trailing_avg_prs', 'w.last_week', 'coalesce(w.trailing_known, false)', 'st') }}
            as volume_trend,
        case when w.trailing_known then round(w.trailing_avg_active, 2) end as trailing_avg_active,
        {{ trend_word('w.active_repositories', 'w.trailing_avg_active', 'w.last_week', 'coalesce(w.trailing_known, false)', 'st') }}
            as active_trend,
        w.missing_tests_prs,
        case when w.trailing_known then round(w.trailing_missing_tests, 2) end as trailing_missing_tests,
        {{ trend_word('w.missing_tests_prs', 'w.trailing_missing_tests', 'w.last_missing_week', 'coalesce(w.trailing_known, false)', 'st') }}
            as missing_tests_trend,
        cast((w.week_start - w.last_week) / 7 as integer) as weeks_since_last
    from dated w
    cross join settings st
    left join authors a using (group_name, week_start)
    left join newcomer_lists n using (group_name, week_start)
    left join releases rl using (group_name, week_start)
)

select * from final
