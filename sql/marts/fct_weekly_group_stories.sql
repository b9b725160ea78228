{{ config(materialized='table') }}

-- The most important stories of each repository of a group (its first `group_stories_per_repo`
-- by repo_rank, seeds/group_thresholds.csv: its stories and the key PRs in none, as its own
-- report orders them), ranked together. Repositories score importance on their own scales (a
-- busy repository's usual PR outweighs a quiet one's best), so the group ranks by
-- importance_percentile, the story's worth against its own repository's PRs of the key_weeks
-- weeks ending with this one (int_weekly_repo_digest), then by worth, then by the group's order.
-- is_repo_lead marks each repository's first story, the one its line in the group report names.
with group_settings as (
    select cast(max(value) filter (where name = 'group_stories_per_repo') as integer) as per_repo
    from {{ ref('group_thresholds') }}
),

stories as (
    select r.group_name, r.week_start, r.repo, r.display_name, r.position, r.scale_weeks, u.s
    from {{ ref('fct_weekly_group_repositories') }} r, unnest(r.stories) as u(s)  -- noqa: AL01, LT01
    where u.s.repo_rank <= (select per_repo from group_settings)
),

final as (
    select
        group_name,
        week_start,
        repo,
        display_name,
        s.story_id,
        s.kind,
        s.title_en,
        s.title_zh,
        s.numbers,
        s.lead_number,
        s.lead_title,
        s.lead_url,
        s.lead_claim,
        s.lead_caveat,
        s.is_release,
        s.worth,
        s.importance_percentile,
        s.scale_prs,
        scale_weeks,
        s.repo_rank,
        s.repo_rank = 1 as is_repo_lead,
        cast(row_number() over (
            partition by group_name, week_start
            order by s.importance_percentile desc nulls last, s.worth desc, position asc, s.story_id asc
        ) as integer) as group_rank
    from stories
)

select * from final
