{{ config(materialized='incremental') }}

-- What a repository's week could tell a group of repositories: its stories (fct_weekly_stories)
-- and each key PR in none of them, as its own report tells them, with the story's worth on the
-- repository's own scale, so that stories of repositories scored differently compare.
-- worth: the story's importance or its lead PR's, whichever is more (a story is worth at least
-- its lead alone). repo_rank orders them as the repository's report does: releases first, then
-- by worth. importance_percentile: the share (0 to 100) of the repository's PRs merged in the
-- key_weeks weeks ending with this one (seeds/thresholds.csv, the window of its key threshold)
-- whose importance is below the worth, a PR of the same importance counting half. Importance
-- has one decimal, so the PRs are counted per value and week before they are compared.
with key_settings as (
    select cast(max(value) filter (where name = 'key_weeks') as integer) as key_weeks
    from {{ ref('thresholds') }}
),

prs as (
    select * from {{ ref('fct_pull_requests') }}
    {% if is_incremental() %}
    where {{ scoped('repo') }}
      and week_start between {{ var('start_week') }} - to_weeks((select key_weeks - 1 from key_settings))
          and {{ var('end_week') }}
    {% endif %}
),

stories as (
    select * from {{ ref('fct_weekly_stories') }}
    {% if is_incremental() %}
    where {{ scoped('repo') }} and week_start between {{ var('start_week') }} and {{ var('end_week') }}
    {% endif %}
),

week_prs as (
    select * from prs
    {% if is_incremental() %}
    where week_start between {{ var('start_week') }} and {{ var('end_week') }}
    {% endif %}
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
    left join week_prs p on p.repo = s.repo and p.number = s.lead_number
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

-- how many PRs of each importance each week merged
values_per_week as (
    select repo, week_start, importance, count(*) as prs from prs group by all
),

scale as (
    select
        i.repo,
        i.week_start,
        i.item_id,
        coalesce(sum(v.prs) filter (where v.importance < i.worth), 0) as below,
        coalesce(sum(v.prs) filter (where v.importance = i.worth), 0) as equal,
        coalesce(sum(v.prs), 0) as total
    from items i
    left join values_per_week v
        on v.repo = i.repo
        and v.week_start between i.week_start - to_weeks((select key_weeks - 1 from key_settings))
            and i.week_start
    group by all
),

final as (
    select
        i.repo,
        i.week_start,
        i.item_id,
        i.kind,
        i.title_en,
        i.title_zh,
        i.numbers,
        i.lead_number,
        l.title as lead_title,
        l.url as lead_url,
        l.headline_claim as lead_claim,
        l.caveats[1] as lead_caveat,
        coalesce(l.is_breaking, false) as lead_is_breaking,
        l.release_version as lead_release_version,
        i.is_release,
        cast(i.worth as double) as worth,
        cast(case when s.total > 0 then round(100.0 * (s.below + 0.5 * s.equal) / s.total, 1) end as double)
            as importance_percentile,
        cast(s.total as integer) as scale_prs,
        (select key_weeks from key_settings) as scale_weeks,
        cast(row_number() over (
            partition by i.repo, i.week_start order by i.is_release desc, i.worth desc, i.lead_number asc, i.item_id asc
        ) as integer) as repo_rank
    from items i
    join scale s using (repo, week_start, item_id)
    left join week_prs l on l.repo = i.repo and l.number = i.lead_number
)

select * from final
