{{ config(materialized='table') }}

-- One row per group and repository in it: the groups of repositories.yml (`groups:`), else one
-- per owner with more than one registered repository (orchestration/groups.py decides, and
-- settings.groups holds its answer), with the spelling of each repository that reports show.
with members as (
    select group_name, repo, position, configured from {{ source('settings', 'groups') }}
),

final as (
    select
        m.group_name,
        m.repo,
        coalesce(r.display_name, m.repo) as display_name,
        m.position,
        m.configured
    from members m
    left join {{ ref('dim_repositories') }} r using (repo)
)

select * from final
