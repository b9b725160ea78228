{{ config(materialized='table') }}

-- One row per repository: its identity (`repo`, lower case, as GitHub compares names) and the
-- spelling reports show. GitHub's own spelling is in its PR URLs (the latest PR's counts);
-- before any PR was seen, the spelling the user registered first in repositories.yml.
with urls as (
    select
        repo,
        -- of PRs merged in the same second, the last number's (a total order)
        arg_max(
            regexp_extract(url, '^https?://[^/]+/([^/]+/[^/]+)/pull/[0-9]+', 1), {'at': merged_at, 'number': number}
        ) as spelling
    from {{ ref('stg_pull_requests') }}
    where url is not null
    group by repo
),

registered as (
    select repo, name from {{ source('settings', 'repositories') }}
),

repos as (
    select repo from {{ ref('stg_weekly_partitions') }}
    union
    select repo from registered
),

final as (
    select
        repos.repo,
        coalesce(
            case when lower(urls.spelling) = repos.repo then urls.spelling end,
            registered.name,
            repos.repo
        ) as display_name
    from repos
    left join urls using (repo)
    left join registered using (repo)
)

select * from final
