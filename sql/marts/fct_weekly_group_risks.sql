{{ config(materialized='table') }}

-- The risks that recur across a group's repositories in a week, strongest first (`rank`):
--   dependency     the same dependency (the `package` a dependency_change flag's evidence
--                  names, in lower case) bumped, pinned or changed in at least
--                  `recurring_min_repos` repositories (seeds/group_thresholds.csv);
--   platform       the same hardware (a hardware_specific flag's evidence `word`) targeted in
--                  at least that many;
--   missing_tests  more PRs flagged missing_tests across the group than its trailing average
--                  (fct_weekly_group_summary.missing_tests_trend rising or new).
-- Each row lists the repositories (display names, in the group's order) and the PRs with the
-- evidence each flag's reason gives. The concrete ones come first: a dependency, then hardware
-- (each by how many repositories), then missing tests.
with group_settings as (
    select max(value) filter (where name = 'recurring_min_repos') as min_repos
    from {{ ref('group_thresholds') }}
),

pr_details as (
    select
        r.group_name,
        r.week_start,
        r.repo,
        r.display_name,
        r.position,
        u.f.risk_flag as risk_flag,
        u.f.subject as subject,
        u.f.number as number,
        u.f.title as title,
        u.f.url as url,
        u.f.reason as reason
    from {{ ref('fct_weekly_group_repositories') }} r, unnest(r.flagged) as u(f)  -- noqa: AL01, LT01
),

-- the same PRs, keyed by what recurs: the dependency or hardware, or missing tests as such
keyed as (
    select
        *,
        case risk_flag when 'dependency_change' then 'dependency' when 'hardware_specific' then 'platform'
            else 'missing_tests' end as risk_kind,
        case when risk_flag <> 'missing_tests' then subject end as risk_subject
    from pr_details
    where risk_flag = 'missing_tests' or subject is not null
),

repo_lists as (
    select group_name, week_start, risk_kind, risk_subject, list(display_name order by position) as repos
    from (select distinct group_name, week_start, risk_kind, risk_subject, display_name, position from keyed) d
    group by all
),

together as (
    select
        k.group_name,
        k.week_start,
        k.risk_kind,
        min(k.risk_flag) as risk_flag,
        k.risk_subject as subject,
        cast(count(distinct k.repo) as integer) as repositories,
        cast(count(*) as integer) as pr_count,
        list({'repo': k.display_name, 'number': k.number, 'title': k.title, 'url': k.url, 'evidence': k.reason}
            order by k.position, k.number) as prs
    from keyed k
    group by k.group_name, k.week_start, k.risk_kind, k.risk_subject
),

final as (
    select
        t.group_name,
        t.week_start,
        t.risk_kind,
        t.risk_flag,
        t.subject,
        t.repositories,
        l.repos,
        t.pr_count,
        t.prs,
        case when t.risk_kind = 'missing_tests' then s.trailing_missing_tests end as trailing_missing_tests,
        case when t.risk_kind = 'missing_tests' then s.missing_tests_trend end as trend,
        cast(row_number() over (
            partition by t.group_name, t.week_start
            order by case t.risk_kind when 'dependency' then 1 when 'platform' then 2 else 3 end asc,
                t.repositories desc, t.pr_count desc, t.subject asc
        ) as integer) as rank
    from together t
    join repo_lists l
        on l.group_name = t.group_name and l.week_start = t.week_start and l.risk_kind = t.risk_kind
        and l.risk_subject is not distinct from t.subject
    join {{ ref('fct_weekly_group_summary') }} s on s.group_name = t.group_name and s.week_start = t.week_start
    cross join group_settings g
    where case t.risk_kind
        when 'missing_tests' then s.missing_tests_trend in ('rising', 'new')
        else t.repositories >= g.min_repos
    end
)

select * from final
