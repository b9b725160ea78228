{{ config(materialized='table') }}

-- The most important stories of each repository of a group (its first `group_stories_per_repo`
-- by repo_rank, seeds/group_thresholds.csv: its stories and the key PRs in none, as its own
-- report orders them), ranked together. Repositories score importance on their own scales (a
-- busy repository's usual PR outweighs a quiet one's best), so the group ranks by
-- importance_percentile, the story's worth against its own repository's PRs of the key_weeks
-- weeks ending with this one (int_weekly_repo_headlines), then by worth, then by name.
-- is_repo_lead marks each repository's first story, the one its line in the group report names.
with group_settings as (
    select cast(max(value) filter (where name = 'group_stories_per_repo') as integer) as per_repo
    from {{ ref('group_thresholds') }}
),

members as (
    select * from {{ ref('dim_groups') }}
),

headlines as (
    select h.*
    from {{ ref('int_weekly_repo_headlines') }} h
    semi join members using (repo)
    where h.repo_rank <= (select per_repo from group_settings)
),

final as (
    select
        m.group_name,
        h.week_start,
        h.repo,
        m.display_name,
        h.item_id as story_id,
        h.kind,
        h.title_en,
        h.title_zh,
        h.numbers,
        h.lead_number,
        h.lead_title,
        h.lead_url,
        h.lead_claim,
        h.lead_caveat,
        h.lead_is_breaking,
        h.lead_release_version,
        h.is_release,
        h.worth,
        h.importance_percentile,
        h.scale_prs,
        h.scale_weeks,
        h.repo_rank,
        h.repo_rank = 1 as is_repo_lead,
        cast(row_number() over (
            partition by m.group_name, h.week_start
            order by h.importance_percentile desc nulls last, h.worth desc, m.position asc, h.item_id asc
        ) as integer) as group_rank
    from headlines h
    join members m using (repo)
)

select * from final
