{{ config(materialized='table') }}

-- One row per group and repository in it: the groups of repositories.yml (`groups:`), else one
-- per owner with more than one registered repository (orchestration/repositories/groups.py decides, and
-- settings.groups holds its answer).
with members as (
    select group_name, repo, position, configured from {{ source('settings', 'groups') }}
)

select * from members
