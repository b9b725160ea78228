{{ config(materialized='ephemeral') }}

-- The settings of the key PRs' threshold (seeds/thresholds.csv), as one row: a step of
-- fct_pull_requests, inlined where it is read.
select
    cast(max(value) filter (where name = 'key_weeks') as integer) as key_weeks,
    max(value) filter (where name = 'key_percentile') as key_percentile,
    max(value) filter (where name = 'key_floor') as key_floor,
    max(value) filter (where name = 'key_min_week_prs') as key_min_week_prs,
    max(value) filter (where name = 'key_max_prs') as key_max_prs
from {{ ref('thresholds') }}
