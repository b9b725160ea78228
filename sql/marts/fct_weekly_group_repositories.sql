{{ config(materialized='table') }}

-- One row per group, week and repository of the group, for every week any of them has
-- extracted (`extracted` false for a repository whose lake lacks the week): its figures
-- (int_weekly_repo_digest, from fct_weekly_summary), where it stands in the group, the trailing
-- figures the group's trends add up, and the lists the other group marts read (its authors,
-- newcomers, flagged PRs and stories): they read this table alone of the repositories' facts.
-- busy_rank: its place by merged PRs among the group's repositories that merged any (then by
-- name); busiest for the first `busiest_repos` (seeds/group_thresholds.csv). Newly
-- quiet: nothing merged this week, something merged the week before, and a trailing average of
-- at least `quiet_min_avg` PRs. trailing_active_share: the share of its trailing weeks (those
-- extracted, at most trailing_weeks) in which it merged any PR; trailing_missing_tests: its
-- average of PRs flagged missing_tests over the same weeks (NULL when trailing_avg_prs is:
-- the weeks before are not all in the warehouse).
-- (settings is read in the window clause, which the linter does not see)
with settings as (  -- noqa: ST03
    select cast(max(value) filter (where name = 'trailing_weeks') as integer) as trailing_weeks
    from {{ ref('thresholds') }}
),

group_settings as (
    select
        max(value) filter (where name = 'busiest_repos') as busiest_repos,
        max(value) filter (where name = 'quiet_min_avg') as quiet_min_avg
    from {{ ref('group_thresholds') }}
),

members as (
    select * from {{ ref('dim_groups') }}
),

digest as (
    select d.*
    from {{ ref('int_weekly_repo_digest') }} d
    semi join members using (repo)
),

repo_weeks as (
    select
        d.*,
        avg(case when d.merged_prs > 0 then 1.0 else 0.0 end) over trailing_window as active_share,
        avg(d.missing_tests_prs) over trailing_window as missing_tests_avg
    from digest d
    window trailing_window as (
        partition by d.repo order by d.week_start
        range between to_weeks((select trailing_weeks from settings)) preceding and interval 1 day preceding
    )
),

group_weeks as (
    select distinct m.group_name, d.week_start
    from members m
    join digest d using (repo)
),

-- a repository's spelling: GitHub's, as its latest week has it
names as (
    select repo, arg_max(display_name, week_start) as display_name from digest group by repo
),

placed as (
    select
        w.group_name,
        w.week_start,
        m.repo,
        coalesce(nm.display_name, m.repo) as display_name,
        m.position,
        r.repo is not null as extracted,
        coalesce(r.merged_prs, 0) as merged_prs,
        coalesce(r.key_prs, 0) as key_prs,
        coalesce(r.author_count, 0) as authors,
        coalesce(r.history_complete, false) as history_complete,
        coalesce(r.releases, []) as releases,
        r.theme,
        r.theme_zh,
        r.trailing_weeks,
        r.trailing_avg_prs,
        coalesce(r.volume_trend, 'unknown') as volume_trend,
        r.weeks_since_last,
        coalesce(r.missing_tests_prs, 0) as missing_tests_prs,
        case when r.trailing_avg_prs is not null then round(r.active_share, 3) end as trailing_active_share,
        case when r.trailing_avg_prs is not null then round(r.missing_tests_avg, 2) end as trailing_missing_tests,
        coalesce(r.authors, []) as author_logins,
        coalesce(r.newcomers, []) as newcomers,
        coalesce(r.flagged, []) as flagged,
        coalesce(r.stories, []) as stories,
        r.scale_weeks
    from group_weeks w
    join members m using (group_name)
    left join names nm using (repo)
    left join repo_weeks r on r.repo = m.repo and r.week_start = w.week_start
),

final as (
    select
        p.*,
        case when p.merged_prs > 0 then cast(row_number() over (
            partition by p.group_name, p.week_start order by p.merged_prs desc, p.repo asc
        ) as integer) end as busy_rank,
        p.merged_prs > 0 and row_number() over (
            partition by p.group_name, p.week_start order by p.merged_prs desc, p.repo asc
        ) <= g.busiest_repos as is_busiest,
        p.extracted and p.merged_prs = 0 and p.weeks_since_last = 1
            and coalesce(p.trailing_avg_prs >= g.quiet_min_avg, false) as is_newly_quiet
    from placed p
    cross join group_settings g
)

select * from final
