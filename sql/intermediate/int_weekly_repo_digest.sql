{{ config(materialized='incremental') }}

-- One row per repository and extracted week: everything a group of repositories reads of it,
-- so the group marts (tables across repositories) read this model alone of the repositories'
-- facts. `stories`: its stories (fct_weekly_stories) and each key PR in none of them, as its
-- own report tells them, with their worth on the repository's own scale so that stories of
-- repositories scored differently compare: worth is the story's importance or its lead PR's,
-- whichever is more (a story is worth at least its lead alone); repo_rank orders them as the
-- repository's report does (releases first, then by worth); importance_percentile is the share
-- (0 to 100) of the repository's PRs merged in the key_weeks weeks ending with this one
-- (seeds/thresholds.csv, the window of its key threshold) whose importance is below the worth,
-- a PR of the same importance counting half (importance has one decimal, so PRs are counted
-- per value and week before they are compared). `authors`: the week's authors but bots
-- (seeds/bot_authors.csv) and `ghost`; `newcomers`: those whose first merged PR in the
-- repository is this week's (known only when history_complete), with their PRs. `flagged`:
-- its PRs flagged dependency_change, hardware_specific or missing_tests, each with what the
-- flag's evidence names (`subject`: the dependency's `package`, the hardware's `word`, in
-- lower case) and the flag's reason. Its step int_weekly_repo_authors (ephemeral, inlined here)
-- lists the authors and newcomers.
with key_settings as (
    select cast(max(value) filter (where name = 'key_weeks') as integer) as key_weeks
    from {{ ref('thresholds') }}
),

summary as (
    select * from {{ ref('fct_weekly_summary') }}
    {{ in_run_weeks() }}
),

-- the week's PRs, and those of the key_weeks weeks before for the scale, each once (a PR
-- twice in a week would multiply itself in the joins below; read again rather than copied)
scale_rows as not materialized (
    select repo, week_start, number, importance, is_key, is_release, title, url, headline_claim, caveats
    from {{ ref('fct_pull_requests') }}
    {{ in_run_weeks(back="(select key_weeks - 1 from key_settings)") }}
),

{{ each_pr_once('scale_prs', 'scale_rows') }},

week_prs as (
    select * from scale_prs
    {{ in_run_weeks(repo=false) }}
),

stories as (
    select * from {{ ref('fct_weekly_stories') }}
    {{ in_run_weeks() }}
),

risks as (
    select * from {{ ref('fct_weekly_risks') }}
    where risk_flag in ('dependency_change', 'hardware_specific', 'missing_tests')
    {{ in_run_weeks(keyword='and') }}
),

in_stories as (
    select s.repo, s.week_start, unnest(s.numbers) as number from stories s
),

items as (
    select
        s.repo,
        s.week_start,
        'story:' || s.story_id as item_id,
        s.kind,
        s.title_en,
        s.title_zh,
        s.numbers,
        s.lead_number,
        greatest(s.importance, p.importance) as worth,
        s.kind = 'release' or coalesce(p.is_release, false) as is_release
    from stories s
    left join week_prs p on p.repo = s.repo and p.week_start = s.week_start and p.number = s.lead_number
    union all
    select
        p.repo,
        p.week_start,
        'pr:' || p.number as item_id,
        'single' as kind,
        null as title_en,
        null as title_zh,
        [p.number] as numbers,
        p.number as lead_number,
        p.importance as worth,
        p.is_release
    from week_prs p
    anti join in_stories i using (repo, week_start, number)
    where p.is_key
),

-- each week's PRs' importance as one list, and each item's week beside the key_weeks lists of
-- its window (joined on the week): an item's counts are then three filters of one list of a
-- hundred values, where joining each item to each importance of each week made 25 rows an item
week_importances as (
    select repo, week_start, list(importance) as importances from scale_prs group by all
),

window_importances as (
    select t.repo, t.week_start, flatten(list(v.importances)) as importances
    from (select distinct repo, week_start from items) t
    cross join (select unnest(range(key_weeks)) as back from key_settings) w
    join week_importances v
        on v.repo = t.repo
        and v.week_start = t.week_start - to_weeks(cast(w.back as integer))
    group by all
),

scale as (
    select
        i.repo,
        i.week_start,
        i.item_id,
        coalesce(len(list_filter(v.importances, lambda x: x < i.worth)), 0) as below,
        coalesce(len(list_filter(v.importances, lambda x: x = i.worth)), 0) as equal,
        coalesce(len(v.importances), 0) as total
    from items i
    left join window_importances v using (repo, week_start)
),

ranked as (
    select
        i.*,
        l.title as lead_title,
        l.url as lead_url,
        l.headline_claim as lead_claim,
        l.caveats[1] as lead_caveat,
        cast(case when s.total > 0 then round(100.0 * (s.below + 0.5 * s.equal) / s.total, 1) end as double)
            as importance_percentile,
        cast(s.total as integer) as scale_prs,
        cast(row_number() over (
            partition by i.repo, i.week_start order by i.is_release desc, i.worth desc, i.lead_number asc, i.item_id asc
        ) as integer) as repo_rank
    from items i
    join scale s using (repo, week_start, item_id)
    left join week_prs l on l.repo = i.repo and l.week_start = i.week_start and l.number = i.lead_number
),

-- in repo_rank order: sorting the list by its unique rank first is the same order, and far
-- cheaper than an ordered aggregate over 100,000 weeks (14 s at a million PRs)
story_lists as (
    select
        repo,
        week_start,
        list_transform(list_sort(list({'rank': repo_rank, 'story': {
            'story_id': item_id, 'kind': kind, 'title_en': title_en, 'title_zh': title_zh, 'numbers': numbers,
            'lead_number': lead_number, 'lead_title': lead_title, 'lead_url': lead_url, 'lead_claim': lead_claim,
            'lead_caveat': lead_caveat, 'is_release': is_release, 'worth': cast(worth as double),
            'importance_percentile': importance_percentile, 'scale_prs': scale_prs, 'repo_rank': repo_rank
        }})), lambda x: x.story) as stories
    from ranked
    group by all
),

flag_lists as (
    select
        r.repo,
        r.week_start,
        -- in (risk_flag, number) order: the list sorted on its leading key, not an ordered aggregate
        list_transform(list_sort(list({'key': {'risk_flag': r.risk_flag, 'number': r.number}, 'flag': {
            'risk_flag': r.risk_flag,
            'subject': lower(case r.risk_flag
                when 'dependency_change' then json_extract_string(r.evidence, '$.package')
                when 'hardware_specific' then json_extract_string(r.evidence, '$.word')
            end),
            'number': r.number, 'title': p.title, 'url': p.url, 'reason': r.reason
        }})), lambda x: x.flag) as flagged
    from risks r
    join week_prs p using (repo, week_start, number)
    group by all
),

release_lists as (
    select
        s.repo,
        s.week_start,
        list({'number': u.rel.number, 'version': u.rel.version, 'title': u.rel.title, 'url': p.url}
            order by u.rel.number) as releases
    from summary s, unnest(s.releases) as u(rel)  -- noqa: AL01, LT01
    left join week_prs p on p.repo = s.repo and p.week_start = s.week_start and p.number = u.rel.number
    group by all
),

final as (
    select
        s.repo,
        s.week_start,
        coalesce(d.display_name, s.repo) as display_name,
        s.merged_prs,
        s.key_prs,
        s.authors as author_count,
        s.history_complete,
        s.theme,
        s.theme_zh,
        s.trailing_weeks,
        s.trailing_avg_prs,
        s.volume_trend,
        s.weeks_since_last,
        coalesce(rl.releases, []) as releases,
        coalesce(a.authors, []) as authors,
        coalesce(a.newcomers, []) as newcomers,
        coalesce(f.flagged, []) as flagged,
        cast(len(list_filter(coalesce(f.flagged, []), lambda x: x.risk_flag = 'missing_tests')) as integer)
            as missing_tests_prs,
        coalesce(st.stories, []) as stories,
        (select key_weeks from key_settings) as scale_weeks
    from summary s
    left join {{ ref('dim_repositories') }} d using (repo)
    left join release_lists rl using (repo, week_start)
    left join {{ ref('int_weekly_repo_authors') }} a using (repo, week_start)
    left join flag_lists f using (repo, week_start)
    left join story_lists st using (repo, week_start)
)

select * from final
